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
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/out")
if [ -n "$line" ]; then
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed}
    npass=$((npass + p))
    nfail=$((nfail + f))
    grep '^FAIL' "$TMP/err" >&2
else
    failed "papi_mpi printed no result: $(tail -n 5 "$TMP/err")"
fi

finish
