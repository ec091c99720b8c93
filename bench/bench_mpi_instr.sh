#!/bin/sh
# bench_mpi_instr.sh BUILD_DIR [WINDOWS] - what one 8-byte MPI_Isend costs
# in instructions (callgrind: deterministic, unlike time on a shared VM):
# plain Open MPI, Open MPI with its pml_monitoring (`--mca
# pml_monitoring_enable 2`), and the interposition layer on a BG/Q midplane
# and a Gemini torus (ranks one hop apart).  Prints the inclusive
# instructions per MPI_Isend call of rank 0, what each adds to plain Open
# MPI, and the layer's added cost as a multiple of monitoring's.  Then the
# same over Open MPI's TCP transport, with the layer's run split over two
# hosts (`--split-hosts 2`: the receiver's counters on the other host; the
# wait for the batch's acknowledgement falls in the next MPI_Isend, so it
# is inside that call's figure).
set -eu
B=${1:-_build}
WINDOWS=${2:-200}
NAME=bench_mpi_instr
# shellcheck source=bench/mpi_callgrind.sh
. "$(dirname "$0")/mpi_callgrind.sh"

# shellcheck disable=SC2086
CFG=base mpirun $ROOT -x CFG -np 2 $CG "$PROG" --rate "$WINDOWS" >/dev/null 2>&1
# shellcheck disable=SC2086
CFG=mon mpirun $ROOT -x CFG --mca pml_monitoring_enable 2 -np 2 $CG "$PROG" --rate "$WINDOWS" \
    >/dev/null 2>&1
# shellcheck disable=SC2086
CFG=bgq "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" -np 2 \
    --mpirun-arg -x --mpirun-arg CFG -- $CG "$PROG" --rate "$WINDOWS" >/dev/null 2>&1
# shellcheck disable=SC2086
CFG=gem "$TORUSEMU" run --quiet --machine gemini-small --map "$T/gem.map" -np 2 \
    --mpirun-arg -x --mpirun-arg CFG -- $CG "$PROG" --rate "$WINDOWS" >/dev/null 2>&1
# across hosts: everything over TCP (a split run's default transport)
# shellcheck disable=SC2086
CFG=tbase OMPI_MCA_btl=self,tcp mpirun $ROOT -x CFG -np 2 $CG "$PROG" --rate "$WINDOWS" \
    >/dev/null 2>&1
# shellcheck disable=SC2086
CFG=tmon OMPI_MCA_btl=self,tcp mpirun $ROOT -x CFG --mca pml_monitoring_enable 2 -np 2 $CG \
    "$PROG" --rate "$WINDOWS" >/dev/null 2>&1
# shellcheck disable=SC2086
CFG=tsplit OMPI_MCA_btl=self,tcp "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" \
    -np 2 --split-hosts 2 --mpirun-arg -x --mpirun-arg CFG -- $CG "$PROG" --rate "$WINDOWS" \
    >/dev/null 2>&1

# per_isend CFG: inclusive instructions per call of the MPI_Isend entry
# the program calls (libmpi's MPI_Isend is an alias of PMPI_Isend)
per_isend() {
    cg_per_call "$T/$1.0" 'P?MPI_Isend' "$((WINDOWS * 64))"
}
b=$(per_isend base)
o=$(per_isend mon)
q=$(per_isend bgq)
g=$(per_isend gem)
tb=$(per_isend tbase)
to=$(per_isend tmon)
ts=$(per_isend tsplit)
echo "instructions per 8-byte MPI_Isend (rank 0, $((WINDOWS * 64)) calls, callgrind)"
awk -v b="$b" -v o="$o" -v q="$q" -v g="$g" 'BEGIN {
    printf "  plain Open MPI %.0f   monitoring %.0f (%+.0f)\n", b, o, o - b
    printf "  layer bgq %.0f (%+.0f)   gemini %.0f (%+.0f)\n", q, q - b, g, g - b
    printf "  added per message vs monitoring: bgq %.2fx, gemini %.2fx\n", (q - b) / (o - b),
        (g - b) / (o - b)
}'
echo "over TCP, the layer split over 2 hosts (the receiver's counters on the other host)"
awk -v b="$tb" -v o="$to" -v s="$ts" 'BEGIN {
    printf "  plain Open MPI %.0f   monitoring %.0f (%+.0f)   layer across hosts %.0f (%+.0f, %.2fx monitoring)\n",
        b, o, o - b, s, s - b, (s - b) / (o - b)
}'
