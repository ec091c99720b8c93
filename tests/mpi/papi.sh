#!/bin/sh
# papi.sh - PAPI components inside MPI ranks read their own emulated node
# (the identity the layer sets at MPI_Init): tests/mpi/papi_mpi.  Skipped
# when PAPI with the components was not built (the ctests report why).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

if [ ! -x "$TM/papi_mpi" ]; then
    echo "PAPI with the components is not built: skipped"
    exit 77
fi
printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$TMP/two.map"
run_mpi "papi_mpi" "$TMP/p.store" midplane 2 --map "$TMP/two.map" -- "$TM/papi_mpi"
take_result papi_mpi

finish
