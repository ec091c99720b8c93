#!/bin/sh
# vtime_flow.sh - `torusemu run --virtual-time --model flow`: the online
# model is the flow level (doc/virtual-time.md, "Online model").  An MPI
# program completes under it; the volume counters it leaves, and those its
# ranks read through PAPI, are the packet level's; its estimated stalls
# reach the store while the job runs; `torusemu dump` names the level.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"
# every run in virtual time here must keep its virtual times exact: none
# may need the launcher's 2 s stall rule (mpilib.sh, run_mpi)
VT_STRICT=1

CG="$TM/vt_congest"
volume() { # the counters that do not depend on the level (no stalls)
    "$TORUSEMU" dump "$1" --format csv --all --tiles | grep -v STALL
}

# Gemini: four ranks send 64 KiB each to rank 0 at once (vtime.sh's incast)
for level in packet flow; do
    run_mpi "incast, $level level" "$TMP/$level.store" gemini:4x4x4 5 --virtual-time \
        --cpu-scale 0 --model "$level" --quiet -- "$CG" 65536 incast
    expect_eq "incast, $level level: rank 0 sees stalls while the job runs" \
        "stalls during the run" "$(cat "$TMP/out")"
done
volume "$TMP/packet.store" >"$TMP/packet.csv"
volume "$TMP/flow.store" >"$TMP/flow.csv"
expect_ok "incast: the flow level's volume counters are the packet level's" \
    cmp "$TMP/packet.csv" "$TMP/flow.csv"
expect_ok "dump the flow run's store" "$TORUSEMU" dump "$TMP/flow.store"
expect_out "dump names the flow level" "^# stall and occupancy counters: flow model"

# PAPI inside the ranks (BG/Q NW events, exact counts asserted by
# tests/mpi/papi_mpi itself) under either level
if [ -x "$TM/papi_mpi" ]; then
    printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$TMP/two.map"
    for level in packet flow; do
        run_mpi "papi_mpi, $level level" "$TMP/p.store" midplane 2 --map "$TMP/two.map" \
            --virtual-time --cpu-scale 0 --model "$level" -- "$TM/papi_mpi"
        take_result "papi_mpi, $level level"
    done
else
    echo "PAPI with the components is not built: the PAPI part is skipped"
fi
finish
