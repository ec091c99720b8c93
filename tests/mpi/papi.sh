#!/bin/sh
# papi.sh - PAPI components inside MPI ranks read their own emulated node:
# tests/mpi/papi_mpi with the event set started after MPI_Init (the
# identity the layer sets) and before it, as TAU does (the rank from the
# launcher's environment); a process that cannot know its node is refused
# with the reason.  Skipped when PAPI with the components was not built
# (the ctests report why).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"
# every run in virtual time here must keep its virtual times exact: none
# may need the launcher's 2 s stall rule (mpilib.sh, run_mpi)
VT_STRICT=1

if [ ! -x "$TM/papi_mpi" ]; then
    echo "PAPI with the components is not built: skipped"
    exit 77
fi
S="$TMP/p.store"
printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$TMP/two.map"
run_mpi "papi_mpi" "$S" midplane 2 --map "$TMP/two.map" -- "$TM/papi_mpi"
take_result papi_mpi
run_mpi "papi_mpi --papi-first" "$S" midplane 2 --map "$TMP/two.map" -- "$TM/papi_mpi" \
    --papi-first
take_result "papi_mpi --papi-first"
# the same placement reversed: rank 0 on node 1 (the counts follow the rank)
printf '0 0 0 0 1 0\n0 0 0 0 0 0\n' >"$TMP/rev.map"
run_mpi "papi_mpi --papi-first, reversed" "$S" midplane 2 --map "$TMP/rev.map" -- \
    "$TM/papi_mpi" --papi-first
take_result "papi_mpi --papi-first, reversed"

# PEVT_NW_CYCLES in the ranks (tests/mpi/vt_cycles.c: set started before
# MPI_Init, 10 round trips of 8 bytes, rank 0 resets and makes one more).
# Under --virtual-time --cpu-scale 0 each rank counts its own virtual clock
# in 2 ns cycles: bgq:4x1x1x1x2, ranks two hops apart, one way 118,200 ps
# and a round trip 236,400 ps (derived in tests/mpi/vtime.sh, doc/model.md;
# the network's time alone: --mpi-costs off).
# Rank 0 reads at 10 x 236,400 = 2,364,000 ps: 1182 cycles; rank 1 after its
# last send, at 9 x 236,400 + 118,200 = 2,245,800 ps: floor(1122.9) = 1122;
# rank 0 after the reset and one more round trip: the clock's edges between
# 2,364,000 and 2,600,400 ps, floor(1300.2) - 1182 = 118.
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/k2.map"
run_mpi "vt_cycles, virtual time" "$S" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --virtual-time \
    --cpu-scale 0 --mpi-costs off --quiet -- "$TM/vt_cycles" 10
got=$(grep '^rank' "$TMP/out" | sort | tr '\n' ';')
want="rank 0 after reset 118 at 2600400 ps;rank 0 cycles 1182 at 2364000 ps;rank 1 cycles 1122 at 2245800 ps;"
[ "$got" = "$want" ] && pass || failed "virtual cycles: got '$got', want '$want'"
# without --virtual-time: host time, which a ping-pong through Open MPI
# spends microseconds of (at least one 2 ns cycle)
run_mpi "vt_cycles, host time" "$S" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --quiet -- \
    "$TM/vt_cycles" 10
awk '$1 == "rank" && $2 == 0 && $3 == "cycles" && $4 >= 1 { ok = 1 } END { exit !ok }' \
    "$TMP/out" && pass || failed "host cycles: $(cat "$TMP/out")"

# A process with a session but no rank or node: PAPI_start is refused and
# the reason names the variables (never a silent node 0).
unset OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK TORUSEMU_RANK TORUSEMU_NODE
expect_fail "no identity" \
    "PAPI_start refused: this process's node is not known: none of TORUSEMU_NODE, TORUSEMU_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK is set" \
    env TORUSEMU_SESSION="$S" "$TM/papi_mpi" --papi-first
expect_fail "a rank the session does not place" \
    "PAPI_start refused: rank 7 (from the environment) is not placed by the session, which maps 2 ranks" \
    env TORUSEMU_SESSION="$S" PMI_RANK=7 "$TM/papi_mpi" --papi-first

finish
