#!/bin/sh
# rma.sh - one-sided traffic: MPI_Put / MPI_Get as Gemini PUT / GET
# transactions (requests on VC0 along the request route, responses on VC1
# back, Pedretti 2013 V.A) and Blue Gene put / remote-get packets, exactly; every
# other operation as its documented PUT/GET composition (doc/mpi.md).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/r.store"
# Gemini: origin rank 0 on Gemini (0,0,0), target rank 1 on Gemini (2,1,3)
printf '0 0 0 0 0\n2 1 3 1 0\n' >"$TMP/gem.map"
for op in put get; do
    run_mpi "gemini $op" "$S" gemini-small 2 --map "$TMP/gem.map" -- "$TM/rma_ops" --bytes 1000 "$op"
    check "gemini $op: VC0 requests, VC1 responses" "$CHECK" rma "$S" 0 1 1000 "$op"
done
check_fails "a get is not a put" "$CHECK" rma "$S" 0 1 1000 put
# 1000 bytes = 16 transactions (15 of 64 bytes, one of 40): by hand, a PUT
# request is 8 + ceil(3p/8) phits (32 or 23), its response 3 phits; a GET
# request 8 phits, its response 3 + ceil(3p/8) (27 or 18).  The requests
# reach the target's Gemini (2,1,3) last over Z (0 -> 3 is one hop down,
# entering by its Z+ tiles); the responses come home over Z too (3 -> 0 one
# hop up, entering (0,0,0) by its Z- tiles).
"$TORUSEMU" dump "$S" --node 2,1,3 --link Z+ >"$TMP/out"
expect_out "get: 16 requests x 8 phits arrive on VC0" "^  Z\+ +128 +0 +16 +0 "
"$TORUSEMU" dump "$S" --node 0,0,0 --link Z- >"$TMP/out"
expect_out "get: 15 x 27 + 18 response phits on VC1" "^  Z- +0 +423 +0 +16 "

# Blue Gene/Q and /P
printf '0 0 0 0 0 0\n1 2 0 3 1 0\n' >"$TMP/bgq.map"
for op in put get; do
    run_mpi "bgq $op" "$S" midplane 2 --map "$TMP/bgq.map" -- "$TM/rma_ops" --bytes 100000 "$op"
    check "bgq $op counts" "$CHECK" rma "$S" 0 1 100000 "$op"
    run_mpi "bgp $op" "$S" bgp-16 2 -- "$TM/rma_ops" --bytes 4096 "$op"
    check "bgp $op counts" "$CHECK" rma "$S" 0 1 4096 "$op"
done

# every operation, request-based ones too: accumulate = PUT; get_accumulate
# and fetch_and_op = PUT of the operands + GET of the result (only the GET
# with MPI_NO_OP, whose origin arguments may be null); compare_and_swap
# = PUT of operand and comparand + GET of the old value
ops="put get acc getacc getnoop fop cas rput rget racc rgetacc"
{
    echo "0 2 512 put"
    echo "0 2 512 get"
    echo "0 2 512 put"
    printf '0 2 512 put\n0 2 512 get\n'
    echo "0 2 512 get"
    printf '0 2 4 put\n0 2 4 get\n'
    printf '0 2 8 put\n0 2 4 get\n'
    echo "0 2 512 put"
    echo "0 2 512 get"
    echo "0 2 512 put"
    printf '0 2 512 put\n0 2 512 get\n'
} >"$TMP/ops.txt"
for m in gemini-tiny nodeboard; do
    # shellcheck disable=SC2086
    run_mpi "all operations on $m" "$S" "$m" 4 -- "$TM/rma_ops" --bytes 512 --target 2 $ops
    check "all operations on $m: counts" "$CHECK" expect "$S" "$TMP/ops.txt"
done

finish
