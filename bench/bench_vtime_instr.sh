#!/bin/sh
# bench_vtime_instr.sh BUILD_DIR [WINDOWS] - what `--virtual-time` adds
# per 8-byte message in instructions (callgrind: deterministic, unlike time
# on a shared VM), with bench_mpi's message-rate loop (windows of 64
# MPI_Isend) under the layer on a BG/Q midplane and a Gemini torus,
# without and with --virtual-time --cpu-scale 0:
#   sender:   inclusive instructions per MPI_Isend call of rank 0 (the
#             message, its stamp, the online model's queue);
#   receiver: inclusive instructions of rank 1 in following the receive
#             requests (tmpi_treq_add at MPI_Irecv, tmpi_treq_done at their
#             completion, which takes the stamp with an MPI_Recv that may
#             also wait for it: an upper bound), per message.
# Totals of whole programs are no use here: waiting loops spin for as long
# as the host makes them.
set -eu
B=${1:-_build}
NAME=bench_vtime_instr
# shellcheck source=bench/mpi_callgrind.sh
. "$(dirname "$0")/mpi_callgrind.sh"

WINDOWS=${2:-200}
# run CFG MACHINE MAP [launcher options]
run() {
    cfg=$1 machine=$2 map=$3
    shift 3
    # shellcheck disable=SC2086
    CFG=$cfg "$TORUSEMU" run --quiet --machine "$machine" --map "$map" -np 2 "$@" \
        --mpirun-arg -x --mpirun-arg CFG -- $CG "$PROG" --rate "$WINDOWS" >/dev/null 2>&1
}
# incl FILE NAME: inclusive instructions of function NAME per message
incl() {
    cg_per_call "$1" "$2" "$((WINDOWS * 64))"
}
for m in bgq gem; do
    machine=midplane
    [ "$m" = gem ] && machine=gemini-small
    run "$m-off" "$machine" "$T/$m.map"
    run "$m-vt" "$machine" "$T/$m.map" --virtual-time --cpu-scale 0
done
echo "instructions per 8-byte message ($((WINDOWS * 64)) messages, callgrind)"
for m in bgq gem; do
    so=$(incl "$T/$m-off.0" MPI_Isend)
    sv=$(incl "$T/$m-vt.0" MPI_Isend)
    r2=$(incl "$T/$m-vt.1" tmpi_treq_add)
    r3=$(incl "$T/$m-vt.1" tmpi_treq_done)
    awk -v m="$m" -v so="$so" -v sv="$sv" -v r2="$r2" -v r3="$r3" 'BEGIN {
        printf "  %s sender: MPI_Isend %.0f with the layer, %.0f with --virtual-time (%+.0f)\n", m, so, sv, sv - so
        printf "  %s receiver: %.0f at MPI_Irecv + %.0f at completion (stamp included)\n", m, r2, r3
        printf "  %s added per message: %.0f instructions\n", m, sv - so + r2 + r3
    }'
done
