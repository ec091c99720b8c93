#!/bin/sh
# papi_units.sh - every PAPI component read inside MPI ranks with exact
# counts (tests/mpi/papi_units.c has the derivations): Gemini tiles and NIC,
# BG/P torus (modes 0 and 2 on two nodes), BG/Q message unit, L2 and CNK.
# The BG/Q network unit has its own test (papi.sh).  Skipped when PAPI with
# the components was not built (the ctests report why).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

if [ ! -x "$TM/papi_units" ]; then
    echo "PAPI with the components is not built: skipped"
    exit 77
fi

printf '0 0 0 0 0\n1 0 0 0 0\n' >"$TMP/gemini.map"
run_mpi "gemini" "$TMP/g.store" gemini-tiny 2 --map "$TMP/gemini.map" -- "$TM/papi_units" gemini
take_result gemini

printf '0 0 0 0\n1 0 0 0\n' >"$TMP/bgp.map"
run_mpi "bgp" "$TMP/p.store" bgp-16 2 --map "$TMP/bgp.map" -- "$TM/papi_units" bgp
take_result bgp

printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$TMP/bgq.map"
run_mpi "bgq" "$TMP/q.store" midplane 2 --map "$TMP/bgq.map" -- "$TM/papi_units" bgq
take_result bgq

finish
