#!/bin/sh
# replay_trains.sh - `torusemu replay --timing --train=N [--whole-trains]`:
# the timing model moves up to N consecutive packets of a message as one
# unit (doc/model.md, "Packet trains"; doc/replay.md, "Packet trains").
# Times by hand where nothing competes, the same volume counts as single
# packets, the model's counters, and clear errors.
. "${top_srcdir:-.}/tests/lib.sh"

runtime() { sed -n 's/^predicted runtime \([0-9.]*\) us.*/\1/p' "$TMP/out"; }

# the non-zero counters other than the timing model's (vtime.sh)
volume() {
    "$TORUSEMU" dump "$1" --format csv | grep -v -e INQ_STALL -e CREDIT_STALL | awk -F, '$NF != 0'
}

# One message each way on bgq:4x1x1x1x2, ranks at a = 0 and a = 2 (two hops
# A+, each direction on links of its own): 2048 bytes are 4 packets of 544
# bytes (32-byte header + 512), 272 ns each on a 2 GB/s link, 27.2 ns at
# the node's 20 GB/s.  BG/Q timing model (doc/model.md): packet i starts on
# the first link at 35 + 272 i ns (router 35 ns), on the second 40 ns later
# (wire 5 + router 35), its tail reaches the last router 5 + 272 ns after
# that, and ejection (faster) ends with that tail: packet 3 at
# 35 + 816 + 40 + 277 = 1,168 ns, the predicted runtime.  One train of 4
# packets moves exactly as the 4 packets do.  (The network's time alone:
# --mpi-costs off.)
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/k2.map"
lone() {
    "$TORUSEMU" replay --machine bgq:4x1x1x1x2 --np 2 --map "$TMP/k2.map" --pattern bisection \
        --bytes 2048 --timing --routing=deterministic --mpi-costs off --quiet "$@"
}
for t in "" "--train=4" "--train=4 --whole-trains" "--train=64" "--train=2"; do
    # shellcheck disable=SC2086 # the options split on purpose
    expect_ok "lone message $t" lone $t
    expect_eq "lone message $t: runtime by hand" "1.168000" "$(runtime)"
done
# (--train=2: two trains of 2.  With trains the class's two dateline VCs
# share the queue's 2,176 bytes, 1,088 each (doc/model.md), so the second
# train enters the second router's queue only as the first one's packets
# leave it; a train that fits its queue gives its credit back packet by
# packet, as single packets do, so it is still 1,168 ns.  Given back all
# at once at the mean of its packets' times, as before, it was 1,286.8 ns.)

# Gemini, one 4 KiB message alone (gemini-tiny, ranks 0 and 1 on
# different Geminis): its packets take the eight tile slots in turn, a
# train per slot.  Each slot's train of 8 fills the router's injection
# queue (768 bytes); with its credit back packet by packet and the node's
# ejection shared by the trains arriving from the eight tiles the message
# arrives within 0.5 % of single packets (measured +0.22 %; with the
# credit back at the mean and one train at a time on the ejection, +21 %).
gem() {
    "$TORUSEMU" replay --machine gemini-tiny --np 2 --pattern bisection --bytes 4096 --timing \
        --quiet "$@"
}
expect_ok "gemini lone, packets" gem
one=$(runtime)
expect_ok "gemini lone, trains of 8" gem --train=8
eight=$(runtime)
awk -v a="$one" -v b="$eight" 'BEGIN { exit !(a > 0 && b >= a && b / a < 1.005) }' && pass ||
    failed "gemini lone: trains of 8 $eight us, single packets $one us"

# Contention: the same packets on every link as single packets; the
# model's stall counters in the store; the runtime near single packets'
# on Blue Gene (tornado: each rank sends 64 KiB half-way round its ring)
for m in gemini-tiny bgq-64; do
    routing=""
    [ "$m" = bgq-64 ] && routing="--routing=deterministic"
    # shellcheck disable=SC2086
    expect_ok "$m packets" "$TORUSEMU" replay --machine $m --pattern tornado --bytes 64K --timing \
        $routing --keep "$TMP/$m-1.store" --quiet
    one=$(runtime)
    # shellcheck disable=SC2086
    expect_ok "$m trains" "$TORUSEMU" replay --machine $m --pattern tornado --bytes 64K --timing \
        $routing --train=16 --keep "$TMP/$m-16.store" --quiet
    sixteen=$(runtime)
    volume "$TMP/$m-1.store" >"$TMP/a.csv"
    volume "$TMP/$m-16.store" >"$TMP/b.csv"
    [ -s "$TMP/a.csv" ] && cmp -s "$TMP/a.csv" "$TMP/b.csv" && pass ||
        failed "$m: volume counters differ with --train=16"
    if [ "$m" = gemini-tiny ]; then
        "$TORUSEMU" dump "$TMP/$m-16.store" --format csv | grep INQ_STALL |
            awk -F, '$NF > 0' >"$TMP/stall"
        [ -s "$TMP/stall" ] && pass || failed "$m: no inq stall counted with --train=16"
    else
        # 35.296 and 35.504 us, measured: within 2 %
        awk -v a="$one" -v b="$sixteen" 'BEGIN { exit !(a > 0 && b / a < 1.02 && a / b < 1.02) }' &&
            pass || failed "$m: trains of 16 end at $sixteen us, single packets at $one us"
    fi
done

# Whole trains under contention (measured, doc/replay.md "Packet trains"):
# BG/P tornado 332.08 us in packets, 352.42 us in trains (+6.1 %: trains do
# change the result); Gemini transpose 47.16 us, 52.99 us (+12.4 %; 2.38 x
# before the trains' credit came back packet by packet and the ejection
# was shared).  Bands around the measured values.
band() { # machine pattern-options... low high
    m=$1 lo=$2 hi=$3
    shift 3
    expect_ok "$m $1 packets" "$TORUSEMU" replay --machine "$m" "$@" --timing --quiet
    a=$(runtime)
    expect_ok "$m $1 whole trains" "$TORUSEMU" replay --machine "$m" "$@" --timing --train=64 \
        --whole-trains --quiet
    b=$(runtime)
    awk -v a="$a" -v b="$b" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(a > 0 && b / a > lo && b / a < hi) }' &&
        pass || failed "$m $*: whole trains $b us, packets $a us (want a ratio in $lo..$hi)"
}
band bgp:4x4x4 1.01 1.10 --pattern tornado --bytes 64K --routing=deterministic
band gemini-tiny 1.0 1.25 --pattern transpose --bytes 64K

# the node counters (BG/Q message unit and L2, Gemini NIC) of a timed
# replay without a series go into the store as each message is sent; with
# or without --timing the store is the same
expect_ok "bgq-64 untimed" "$TORUSEMU" replay --machine bgq-64 --pattern tornado --bytes 64K \
    --keep "$TMP/u.store" --quiet
volume "$TMP/u.store" >"$TMP/u.csv"
volume "$TMP/bgq-64-1.store" >"$TMP/t1.csv"
grep -q -e "MU_" -e "L2" "$TMP/u.csv" && cmp -s "$TMP/u.csv" "$TMP/t1.csv" && pass ||
    failed "bgq-64: node or link counters differ between timed and untimed replays"

# a series with trains: the last snapshot is the store (vtime.sh)
expect_ok "series with trains" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado \
    --bytes 64K --timing --train=8 --whole-trains --series "$TMP/t.tser" --interval 5us \
    --keep "$TMP/s.store" -q
expect_ok "series values" "$TORUSEMU" series --all --format csv "$TMP/t.tser"
last=$(awk -F, 'NR > 1 { n[$1] += $(NF - 1); if ($1 > l) l = $1 } END { print n[l] + 0 }' "$TMP/out")
store=$("$TORUSEMU" dump --all --format=csv "$TMP/s.store" | awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
[ "$last" -gt 0 ] && [ "$last" = "$store" ] && pass || failed "series: last $last, store $store"

# errors name the problem
expect_fail "train without timing" "go with --timing" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern tornado --train 4
expect_fail "train 0" "--train '0'" "$TORUSEMU" replay --machine gemini-tiny --pattern tornado \
    --timing --train 0
expect_fail "train not a number" "--train 'x4'" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern tornado --timing --train x4
expect_fail "train too long" "from 1 to 65536" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern tornado --timing --train 65537
expect_fail "whole without train" "--whole-trains goes with --train" "$TORUSEMU" replay \
    --machine gemini-tiny --pattern tornado --timing --whole-trains
expect_fail "whole with train 1" "--whole-trains goes with --train" "$TORUSEMU" replay \
    --machine gemini-tiny --pattern tornado --timing --train 1 --whole-trains
expect_fail "Blue Gene's adaptive default" "add --routing=deterministic" "$TORUSEMU" replay \
    --machine bgq-64 --pattern tornado --timing --train 4
expect_fail "adaptive asked for" "not with --routing=adaptive" "$TORUSEMU" replay \
    --machine bgp:4x4x4 --pattern tornado --timing --train 4 --routing=adaptive
finish
