#!/bin/sh
# fortran.sh - Fortran programs are counted exactly as their C twin: the same
# calls through mpif.h, `use mpi` and `use mpi_f08` (Open MPI's Fortran
# bindings bypass a C-only PMPI layer) leave a store identical to the C
# program's, and see the same processor names.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

for p in fortran_mpifh fortran_usempi fortran_f08; do
    if [ ! -x "$TM/$p" ]; then
        echo "$p not built (no Fortran compiler): skipped"
        exit 77
    fi
done
run_mpi "C twin" "$TMP/c.store" gemini-small 4 -- "$TM/ftwin"
sort "$TMP/out" >"$TMP/c.out"
n=$(grep -c "^rank [0-3] name c0-0c0s[01]n[01] node-size 1$" "$TMP/c.out")
[ "$n" -eq 4 ] && pass || failed "C twin output: $(cat "$TMP/c.out")"
for p in fortran_mpifh fortran_usempi fortran_f08; do
    run_mpi "$p" "$TMP/f.store" gemini-small 4 -- "$TM/$p"
    sort "$TMP/out" >"$TMP/f.out"
    cmp -s "$TMP/c.out" "$TMP/f.out" && pass || failed "$p output differs: $(cat "$TMP/f.out")"
    check "$p counts equal the C twin's" "$CHECK" same "$TMP/c.store" "$TMP/f.store"
done
# the check can fail: a C run on another placement differs
run_mpi "C twin, random placement" "$TMP/r.store" gemini-small 4 --map random:5 -- "$TM/ftwin"
check_fails "another placement differs" "$CHECK" same "$TMP/c.store" "$TMP/r.store"

finish
