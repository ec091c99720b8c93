#!/bin/sh
# model_level.sh - `--model packet|flow` (doc/model.md, "Model levels"):
# `torusemu replay --timing --model flow` writes the same volume counters
# as the packet model on Gemini, BG/P and BG/Q, its estimated stalls into
# the same counters (above 0 under contention, 0 without), a series at
# LDMS's minute that `torusemu analyze` reads, `torusemu dump` names the
# level, and a wrong --model is refused with the option and the accepted
# values.
. "${top_srcdir:-.}/tests/lib.sh"

# the counters a store holds whatever the level: all but the stall,
# occupancy, no-token and pending-request counters and the network cycles
# (virtual time, which the levels predict differently)
volume() {
    "$TORUSEMU" dump "$1" --format csv --tiles |
        awk -F, '$NF != 0 && $6 !~ /STALL|RECV_FIFO|PEND|NO_.*TOKENS|CYCLES/'
}
# the sum of the Gemini stall counters of a store
stalls() {
    "$TORUSEMU" dump "$1" --format csv --tiles |
        awk -F, '$6 ~ /STALL/ { s += $7 } END { print s + 0 }'
}

# errors: the option, the value and what is accepted
expect_fail "unknown level" "--model 'fluid': expected packet or flow" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --timing --model fluid
expect_fail "empty level" "--model '': expected packet or flow" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --timing --model=
expect_fail "--model without --timing" "--model goes with --timing" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --model flow
expect_fail "trains are the packet model's" "--train: packet trains are the packet model's" \
    "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --timing --model flow --train 8
expect_fail "run: unknown level" "run: --model 'fluid': expected packet or flow" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --virtual-time --model fluid -- true
expect_fail "run: --model without --virtual-time" "run: --model goes with --virtual-time" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --model flow -- true
# BG/P has no online model (its counters are not modelled live): a level
# asked for there is refused, not silently left unused
for level in flow packet; do
    expect_fail "run: --model $level on BG/P" \
        "run: --model $level: bgp has no online timing model" \
        "$TORUSEMU" run --machine bgp:4x4x4 -np 2 --virtual-time --model "$level" -- true
done

# --model packet is the default: the same report and the same store
expect_ok "default level" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado --bytes 64K \
    --timing --keep "$TMP/d.store" --quiet
cp "$TMP/out" "$TMP/d.report"
expect_ok "--model packet" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado \
    --bytes 64K --timing --model packet --keep "$TMP/p.store" --quiet
cmp -s "$TMP/out" "$TMP/d.report" && pass || failed "--model packet reports otherwise than the default"
"$TORUSEMU" dump "$TMP/d.store" --format csv --all --tiles >"$TMP/d.csv"
"$TORUSEMU" dump "$TMP/p.store" --format csv --all --tiles >"$TMP/p.csv"
cmp -s "$TMP/d.csv" "$TMP/p.csv" && pass || failed "--model packet stores otherwise than the default"
expect_ok "dump a packet-level store" "$TORUSEMU" dump "$TMP/p.store"
expect_out "dump names the packet level" "^# stall and occupancy counters: packet model \(measured"
expect_ok "replay without --timing" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado \
    --bytes 64K --keep "$TMP/v.store" --quiet
expect_ok "dump a store without a model" "$TORUSEMU" dump "$TMP/v.store"
grep -q "stall and occupancy counters" "$TMP/out" && failed "a level named without a model" || pass

# the flow level on the three families: the volume counters equal the
# packet model's (Blue Gene routed deterministically on both levels: the
# link counters follow the routes the model takes)
for m in "gemini-tiny" "bgp:4x4x2" "bgq-64"; do
    r=""
    case $m in bgp* | bgq*) r="--routing deterministic" ;; esac
    f=$(echo "$m" | tr ':' '_')
    # shellcheck disable=SC2086
    expect_ok "$m: packet" "$TORUSEMU" replay --machine "$m" --pattern tornado --bytes 64K \
        --timing $r --model packet --keep "$TMP/$f.p.store" --quiet
    # shellcheck disable=SC2086
    expect_ok "$m: flow" "$TORUSEMU" replay --machine "$m" --pattern tornado --bytes 64K \
        --timing $r --model flow --keep "$TMP/$f.f.store" --quiet
    expect_out "$m: flow report" "^predicted runtime [0-9]+\.[0-9]{6} us"
    volume "$TMP/$f.p.store" >"$TMP/$f.p.csv"
    volume "$TMP/$f.f.store" >"$TMP/$f.f.csv"
    [ -s "$TMP/$f.p.csv" ] && cmp -s "$TMP/$f.p.csv" "$TMP/$f.f.csv" && pass ||
        failed "$m: volume counters of the flow level differ: $(diff "$TMP/$f.p.csv" "$TMP/$f.f.csv" | head -5)"
done
expect_ok "dump a flow-level store" "$TORUSEMU" dump "$TMP/gemini-tiny.f.store"
expect_out "dump names the flow level" "^# stall and occupancy counters: flow model \(estimated"

# stalls: the tornado's flows share links (above 0); one message alone
# stalls nothing
s=$(stalls "$TMP/gemini-tiny.f.store")
expect_ok "flow: stalls under contention ($s)" test "$s" -gt 0
expect_ok "flow: one message alone" "$TORUSEMU" replay --machine gemini-tiny --np 2 \
    --pattern tornado --bytes 64K --timing --model flow --keep "$TMP/alone.store" --quiet
expect_eq "flow: no stalls without contention" 0 "$(stalls "$TMP/alone.store")"

# BG/Q: the flow level's receive-FIFO occupancy (each packet's
# serialization and the input-queue stalls, emu/flow_ops.c) in the store
expect_ok "bgq: stalls of the flow level" "$TORUSEMU" stalls "$TMP/bgq-64.f.store"
awk '$1 == "RECV_FIFO" && $2 != "IO" && $5 > 0 { n++ } END { exit n != 5 }' "$TMP/out" && pass ||
    failed "bgq: receive-FIFO occupancy of the flow level not above 0 on A-E: $(cat "$TMP/out")"

# a series at LDMS's minute of a long replay: 200 tornado steps of 1 GiB
# messages, minutes of virtual time (3200 messages of 16 M packets each: one
# flow each, one arrival call each), a snapshot at every minute and at the
# end, read by analyze as it reads LDMS's gpcdr samples, the flow level's
# estimated stalls in its figures
expect_ok "flow series at 60s" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado \
    --bytes 1G --steps 200 --timing --model flow --series "$TMP/f.tser" --interval 60s --quiet
# snapshots: one per whole minute and the end (not on a minute: ps digits)
n=$(awk '/^predicted runtime/ { split($3, t, "."); print int(t[1] / 60000000) + 1 }' "$TMP/out")
expect_ok "at least two minutes of virtual time ($n snapshots)" test "${n:-0}" -ge 3
expect_ok "series of the flow level" "$TORUSEMU" series "$TMP/f.tser"
expect_out "sampled every minute" "every 60000000000000 ps of virtual time"
expect_eq "a snapshot per minute and the end" "$n" "$(grep -c '^snapshot' "$TMP/out")"
expect_ok "analyze reads it" "$TORUSEMU" analyze "$TMP/f.tser"
# 16 X d-links (8 Geminis, X+ and X-) per interval between snapshots
expect_eq "analyze: every X d-link in every interval" "$((16 * (n - 1)))" \
    "$(awk '$1 == "X" { print $2 }' "$TMP/out")"
awk '$1 == "X" && $7 > 0 { ok = 1 } END { exit !ok }' "$TMP/out" && pass ||
    failed "no inq stall in the flow level's figures: $(cat "$TMP/out")"
finish
