#!/bin/sh
# series_crossing.sh - `torusemu replay --timing --series`: counters change
# as the packets cross (doc/series.md, "When traffic is counted"), so no
# d-link of a series is ever above its bandwidth but by the one phit per
# tile a snapshot can catch under way, and the store at the end is the
# volume model's, counter for counter, on Gemini, BG/P and BG/Q.
. "${top_srcdir:-.}/tests/lib.sh"

# the non-zero volume counters of a store, per tile, link or node (the
# timing model's stall counters left out)
volume() {
    "$TORUSEMU" dump "$1" --tiles --format csv | grep -v -e INQ_STALL -e CREDIT_STALL |
        awk -F, '$NF != 0'
}

# untimed and timed replays of the same job: the same volume counters
# ($TIMED: more options of the timed run)
same_volume() {
    name=$1
    shift
    expect_ok "$name untimed" "$TORUSEMU" replay "$@" --keep "$TMP/$name-a.store" --quiet
    # shellcheck disable=SC2086
    expect_ok "$name timed" "$TORUSEMU" replay "$@" --timing $TIMED --series "$TMP/$name.tser" \
        --interval "$INTERVAL" --keep "$TMP/$name-b.store" --quiet
    volume "$TMP/$name-a.store" >"$TMP/$name-a.csv"
    volume "$TMP/$name-b.store" >"$TMP/$name-b.csv"
    [ -s "$TMP/$name-a.csv" ] && cmp -s "$TMP/$name-a.csv" "$TMP/$name-b.csv" && pass ||
        failed "$name: volume counters differ with --timing --series: $(diff "$TMP/$name-a.csv" \
            "$TMP/$name-b.csv" | head -5)"
}

# A loaded Gemini torus: tornado, 16 KiB per rank and step, four steps.
# Counted when the ranks sent the messages (before this test's change,
# main at f23d848) the same series showed X d-links at up to 477 % of
# their bandwidth in a 2 us interval.
INTERVAL=2us TIMED=
same_volume tornado --machine gemini:4x2x2 --pattern tornado --bytes 16K --steps 4
expect_ok "links" "$TORUSEMU" analyze "$TMP/tornado.tser" --report=links --format=csv
cp "$TMP/out" "$TMP/links.csv"
# columns: 2 start_ps, 3 end_ps, 8 tiles, 9 bandwidth_gbps, 10 bytes, 13 pbu.
# A tile sends one phit (3 bytes) at a time at its rate, and a phit counts
# when it has been sent: in T ps a d-link counts at most its bandwidth x T
# and the phit each tile had under way when the interval began.
awk -F, 'NR > 1 {
        cap = $9 * ($3 - $2) / 1000
        if ($10 > cap + 3 * $8) { print "over:", $0; bad = 1 }
        if ($13 >= 90) busy++
        if ($13 > max) max = $13
        rows++
    }
    END { printf "%d d-link-intervals, %d at 90 %% or more, P_bu max %s\n", rows, busy, max
          exit bad || rows < 500 || busy < 50 }' "$TMP/links.csv" >"$TMP/pbu" && pass ||
    failed "tornado: a d-link above its bandwidth, or not loaded: $(cat "$TMP/pbu")"
cat "$TMP/pbu"
# so the highest P_bu is 100 % but for a phit per tile: X tiles run at
# 1.171875 GB/s, 2343.75 bytes in 2 us
expect_ok "summary" "$TORUSEMU" analyze "$TMP/tornado.tser" --report=summary --format=csv
awk -F, 'NR > 1 && $6 > 100 * (1 + 3 / 2343.75) { bad = 1 } END { exit bad }' "$TMP/out" && pass ||
    failed "tornado: P_bu max above 100 % + one phit: $(cat "$TMP/out")"
# the last snapshot is the store the run kept
expect_ok "series values" "$TORUSEMU" series --all --format csv "$TMP/tornado.tser"
last=$(awk -F, 'NR > 1 { v[$1] += $(NF - 1); if ($1 > n) n = $1 } END { print v[n] + 0 }' "$TMP/out")
store=$("$TORUSEMU" dump --all --tiles --format=csv "$TMP/tornado-b.store" |
    awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
[ "$last" -gt 0 ] && [ "$last" = "$store" ] && pass ||
    failed "tornado: last snapshot sums to $last, the store to $store"

# Blue Gene, deterministic routes (adaptive ones move link counts between
# links by design: tests/replay_adaptive.sh): BG/P rendezvous on the
# dynamic VC, BG/Q bulk data with its message-unit and L2 counters.
TIMED="--routing deterministic"
INTERVAL=3us
same_volume bgp --machine bgp-16 --pattern random --bytes 8K --steps 2
INTERVAL=5us
same_volume bgq --machine nodeboard --pattern random --bytes 100K

# Blue Gene/Q routed adaptively (the default): bulk data on the dynamic
# VC 0 counts chunk by chunk as it crosses too, on the links the model sent
# it over.  A link (2 GB/s, one lane) sends 200 bytes = 6.25 chunks in a
# 100 ns interval, plus the one chunk under way when it began: at most 7
# chunks per link, VC and snapshot.  (Counted whole when they started onto
# a link, as before this test, the same series showed 17: a 544-byte
# packet at once.)
expect_ok "bgq adaptive" "$TORUSEMU" replay --machine nodeboard --pattern random --bytes 100K \
    --timing --series "$TMP/adaptive.tser" --interval 100ns --quiet
expect_ok "bgq adaptive series" "$TORUSEMU" series --format csv "$TMP/adaptive.tser"
awk -F, '$4 ~ / SENT_CHUNKS VC[01]$/ {
        if ($4 ~ /VC0$/) dyn++
        if ($6 > 7) { print "over:", $0; bad = 1 }
        if ($6 > max) max = $6
    }
    END { printf "%d changes on VC 0, most chunks per link and 100 ns %d\n", dyn, max
          exit bad || dyn < 1000 }' "$TMP/out" >"$TMP/adaptive" && pass ||
    failed "bgq adaptive: a link above its bandwidth, or no VC 0 traffic: $(cat "$TMP/adaptive")"
cat "$TMP/adaptive"
finish
