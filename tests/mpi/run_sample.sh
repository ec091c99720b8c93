#!/bin/sh
# run_sample.sh - `torusemu run --sample INTERVAL --series FILE`
# (utils/run_sample.c): a live run writes snapshots of its store in host
# time.  How many depends on the host's speed, so the test asserts what
# does not: the file is complete and of the host clock, the first snapshot
# is the empty store at time 0, and the last one equals the store the run
# kept, counter for counter (compared through their sum and through
# `torusemu analyze`, which reads the series).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/s.store"
run_mpi "sampled run" "$S" gemini-tiny 16 --ranks-per-node 4 --sample 5ms \
    --series "$TMP/r.tser" -- "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024 --iters 20
grep -q "snapshots of host time in $TMP/r.tser" "$TMP/err" && pass ||
    failed "no snapshot line: $(cat "$TMP/err")"
expect_ok "summary" "$TORUSEMU" series --summary --format=csv "$TMP/r.tser"
expect_out "host clock, complete" '^gemini:2x2x2,2560,5000000000,host,[0-9]+,1$'
n=$(sed -n '2s/.*,host,\([0-9]*\),1$/\1/p' "$TMP/out")
[ "${n:-0}" -ge 2 ] && pass || failed "at least the first and the last snapshot: $n"
expect_ok "table" "$TORUSEMU" series "$TMP/r.tser"
expect_out "first snapshot empty" '^snapshot 0 at 0 ps: 0 counters changed$'
# the last snapshot is the kept store
expect_ok "all" "$TORUSEMU" series --all --format=csv "$TMP/r.tser"
last=$(awk -F, -v k=$((n - 1)) 'NR > 1 && $1 == k { s += $(NF - 1) } END { print s + 0 }' "$TMP/out")
expect_ok "dump" "$TORUSEMU" dump --all --format=csv "$S"
store=$(awk -F, 'NR > 1 { s += $NF } END { print s + 0 }' "$TMP/out")
[ "$last" = "$store" ] && [ "$store" -gt 0 ] && pass ||
    failed "last snapshot sums to $last, the store to $store"
expect_ok "analyze the live series" "$TORUSEMU" analyze "$TMP/r.tser" --report=correlation

expect_fail "series alone" "--sample INTERVAL and --series FILE go together" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --series "$TMP/x.tser" -- "$EX/rowa2a"
expect_fail "bad interval" "--sample '5 parsecs': expected a time" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample "5 parsecs" --series "$TMP/x.tser" \
    -- "$EX/rowa2a"
expect_fail "zero interval" "--sample '0ms'" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample 0ms --series "$TMP/x.tser" -- "$EX/rowa2a"
expect_fail "interval without a unit" "--sample '5': expected a time with a unit" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample 5 --series "$TMP/x.tser" -- "$EX/rowa2a"
expect_fail "interval above a day" "--sample '1441min'" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample 1441min --series "$TMP/x.tser" \
    -- "$EX/rowa2a"
expect_fail "interval under 1 ns" "--sample '500ps'" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample 500ps --series "$TMP/x.tser" -- "$EX/rowa2a"
expect_fail "unwritable series" "cannot create" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --sample 1s --series "$TMP/no/x.tser" -- "$EX/rowa2a"
finish
