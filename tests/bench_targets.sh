#!/bin/sh
# bench_targets.sh - a benchmark that misses a wall-time target reports it
# (MISSED) and exits 0, since a loaded host misses such targets; it fails
# only when it cannot run (bench/bench_replay.c, `make bench-replay`; one
# small case, with its target replaced).
. "${top_srcdir:-.}/tests/lib.sh"
BR="$top_builddir/bench/bench_replay"

# a target of 0 s cannot be met
expect_ok "a missed target is not an error" "$BR" midplane 0
expect_out "the 2-thread row says MISSED" '^seed 003 .* 2 +[0-9.]+ .*  MISSED$'
expect_out "the summary counts it" '^targets \(wall time on 2 threads\): 0 met, 1 MISSED'
# one of 10^6 s always is
expect_ok "a target met" "$BR" midplane 1000000
expect_out "the 2-thread row says met" '^seed 003 .* 2 +[0-9.]+ .*  met$'
expect_out "the summary counts it" '^targets \(wall time on 2 threads\): 1 met, 0 MISSED$'
# real failures: the store cannot be created; an unknown case
expect_fail "a replay that cannot run" "cannot create session store" \
    env TMPDIR="$TMP/no-such-dir" "$BR" midplane
expect_fail "an unknown case" "usage: bench_replay" "$BR" no-such-case
expect_fail "a target that is not a number" "bench_replay: target '1s': expected seconds, a number >= 0" \
    "$BR" midplane 1s
# the same convention in bench/bench_gpcnet_flow.sh (`make bench-gpcnet-flow`),
# its target row set to gemini-tiny (0.3 s of CPU)
BG="$top_srcdir/bench/bench_gpcnet_flow.sh"
expect_ok "gpcnet flow: a missed target is not an error" env GPCNET_FLOW_TARGET_SHAPE=gemini-tiny \
    GPCNET_FLOW_TARGET=0 GPCNET_FLOW_COMPARE= sh "$BG" "$top_builddir" 120 4K gemini-tiny
expect_out "gpcnet flow: the row says MISSED" '^gemini-tiny +16 .* finished; target 0 s  MISSED$'
# every column filled: three impacts, the last congested run's messages,
# the flow level's work and CPU microseconds per unit of it, CPU seconds,
# peak MiB (the messages went blank once when the replay's line about them
# was reworded)
expect_out "gpcnet flow: the row's columns" \
    '^gemini-tiny +16 +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]+ +[0-9]+  finished'
# the work is the replay's own figure (flows started and rate solutions
# over the pattern's four runs), not a blank or a copy of another column
work=$("$top_builddir/torusemu" replay --machine gemini-tiny --pattern gpcnet --timing \
    --model flow --mpi-costs off --steps 1 --bytes 4K 2>&1 >/dev/null |
    sed -n "s/.*flow level's work over the 4 timing runs: \([0-9]*\) flows.*/\1/p")
expect_out "gpcnet flow: the work column is the replay's" "^gemini-tiny +16 .* $work +[0-9.]+ +[0-9.]+ +[0-9]+  finished"
expect_out "gpcnet flow: the summary counts it" '^targets \(CPU time\): 0 met, 1 MISSED$'
expect_ok "gpcnet flow: a target met" env GPCNET_FLOW_TARGET_SHAPE=gemini-tiny \
    GPCNET_FLOW_TARGET=1000000 GPCNET_FLOW_COMPARE= sh "$BG" "$top_builddir" 120 4K gemini-tiny
expect_out "gpcnet flow: the row says met" '^gemini-tiny +16 .* finished; target 1000000 s  met$'
expect_out "gpcnet flow: the summary counts it" '^targets \(CPU time\): 1 met, 0 MISSED$'
expect_fail "gpcnet flow: a replay that cannot run" "machine spec 'no-such-machine'" \
    env GPCNET_FLOW_COMPARE= sh "$BG" "$top_builddir" 120 4K no-such-machine
# the bytes comparison: 128 KiB messages make the congestors run more
# rounds, so more flows start (more work), each row with its work and CPU
# per unit (gemini-tiny: about 1.5 s of CPU in all)
expect_ok "gpcnet flow: 4 KiB against 128 KiB" env GPCNET_FLOW_COMPARE=gemini-tiny \
    sh "$BG" "$top_builddir" 120 4K gemini-tiny
for b in 4K 128K; do
    expect_out "gpcnet flow: the $b row's columns" \
        "^gemini-tiny +$b +[1-9][0-9]* +[1-9][0-9]* +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]+ +[0-9]+\\.[0-9]{3}  finished\$"
done
w4=$(awk '$1 == "gemini-tiny" && $2 == "4K" { print $4 }' "$TMP/out")
w128=$(awk '$1 == "gemini-tiny" && $2 == "128K" { print $4 }' "$TMP/out")
[ -n "$w4" ] && [ -n "$w128" ] && [ "$w128" -gt "$w4" ] && pass ||
    failed "gpcnet flow: 128 KiB messages should start more flows than 4 KiB ($w128 against $w4)"
finish
