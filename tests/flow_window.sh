#!/bin/sh
# flow_window.sh - `torusemu replay --timing --model flow --flow-window T`
# (doc/model.md, "Flow level: solve window"): 0 is the exact default,
# output for output; a window leaves every volume counter as it is (they count
# packets, not rates); bad values and a window without the flow level are
# refused naming the option.  The bound on what a window moves and the
# solves it saves are asserted on the model itself (tests/test_flow.c,
# test_window_*).
. "${top_srcdir:-.}/tests/lib.sh"

# the counters that do not depend on the model's rates: all but the
# stall, occupancy, no-token and pending-request counters and the cycles
volume() {
    "$TORUSEMU" dump "$1" --format csv --tiles |
        awk -F, '$NF != 0 && $6 !~ /STALL|RECV_FIFO|PEND|NO_.*TOKENS|CYCLES/'
}

R="replay --machine gemini-tiny --timing --model flow"
for bad in -5ns 10 abc 5xs ""; do
    # shellcheck disable=SC2086
    expect_fail "--flow-window '$bad'" "--flow-window '$bad': expected 0 or a positive time" \
        "$TORUSEMU" $R --pattern tornado --flow-window="$bad"
done
expect_fail "--flow-window on the packet level" "--flow-window goes with --timing --model flow" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --timing --flow-window 10ns
expect_fail "--flow-window without --timing" "--flow-window goes with --timing --model flow" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --flow-window 10ns

# 0: the exact default, the same output (gpcnet's impacts and summary)
# shellcheck disable=SC2086
expect_ok "gpcnet, no window" "$TORUSEMU" $R --pattern gpcnet --steps 1 --bytes 4K \
    --mpi-costs off
cp "$TMP/out" "$TMP/exact.out"
# shellcheck disable=SC2086
expect_ok "gpcnet, --flow-window 0" "$TORUSEMU" $R --pattern gpcnet --steps 1 --bytes 4K \
    --mpi-costs off --flow-window 0
if cmp -s "$TMP/exact.out" "$TMP/out"; then pass; else
    failed "--flow-window 0 changed the output: $(diff "$TMP/exact.out" "$TMP/out" | head -5)"
fi

# a window: the same volume counters, the report still made
for w in 0 100ns 1us; do
    # shellcheck disable=SC2086
    expect_ok "tornado, window $w" "$TORUSEMU" $R --pattern tornado --bytes 64K --steps 2 \
        --flow-window "$w" --keep "$TMP/w$w.store"
    expect_out "window $w: the report" "^predicted runtime [0-9]+\.[0-9]{6} us"
    volume "$TMP/w$w.store" >"$TMP/w$w.vol"
done
expect_ok "the volume counters are there" test -s "$TMP/w0.vol"
for w in 100ns 1us; do
    if cmp -s "$TMP/w0.vol" "$TMP/w$w.vol"; then pass; else
        failed "window $w changed a volume counter: $(diff "$TMP/w0.vol" "$TMP/w$w.vol" | head -5)"
    fi
done
finish
