#!/bin/sh
# bench_mpi_instr.sh BUILD_DIR [WINDOWS] - what one 8-byte MPI_Isend costs
# in instructions (callgrind: deterministic, unlike time on a shared VM):
# plain Open MPI, Open MPI with its pml_monitoring (`--mca
# pml_monitoring_enable 2`), and the interposition layer on a BG/Q midplane
# and a Gemini torus (ranks one hop apart).  Prints the inclusive
# instructions per MPI_Isend call of rank 0, what each adds to plain Open
# MPI, and the layer's added cost as a multiple of monitoring's.
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

# per_isend CFG: inclusive instructions per call of the MPI_Isend entry
# the program calls (libmpi's MPI_Isend is an alias of PMPI_Isend)
per_isend() {
    cg_per_call "$T/$1.0" 'P?MPI_Isend' "$((WINDOWS * 64))"
}
b=$(per_isend base)
o=$(per_isend mon)
q=$(per_isend bgq)
g=$(per_isend gem)
echo "instructions per 8-byte MPI_Isend (rank 0, $((WINDOWS * 64)) calls, callgrind)"
awk -v b="$b" -v o="$o" -v q="$q" -v g="$g" 'BEGIN {
    printf "  plain Open MPI %.0f   monitoring %.0f (%+.0f)\n", b, o, o - b
    printf "  layer bgq %.0f (%+.0f)   gemini %.0f (%+.0f)\n", q, q - b, g, g - b
    printf "  added per message vs monitoring: bgq %.2fx, gemini %.2fx\n", (q - b) / (o - b),
        (g - b) / (o - b)
}'
