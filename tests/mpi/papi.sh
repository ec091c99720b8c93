#!/bin/sh
# papi.sh - PAPI components inside MPI ranks read their own emulated node:
# tests/mpi/papi_mpi with the event set started after MPI_Init (the
# identity the layer sets) and before it, as TAU does (the rank from the
# launcher's environment); a process that cannot know its node is refused
# with the reason.  Skipped when PAPI with the components was not built
# (the ctests report why).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

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
