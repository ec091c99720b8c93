#!/bin/sh
# replay_adaptive.sh - `torusemu replay --timing --routing`: on Blue Gene the
# timing model routes the dynamic VC adaptively by default and the link
# counters follow its routes (per node they move, totals stay the volume
# model's); deterministic routing gives the volume model's counts node by
# node; BG/P's no-token counters fill where traffic competes and stay 0
# where it does not (doc/replay.md, "Virtual time"; doc/model.md).
. "${top_srcdir:-.}/tests/lib.sh"

# per node: packets received on the user dynamic and escape VCs (0 and 1),
# "node packets" lines sorted by node
recv_per_node() {
    "$TORUSEMU" dump "$1" --format csv |
        awk -F, '$6 == "RECV_PACKETS_VC0" || $6 == "RECV_PACKETS_VC1" { n[$1] += $7 }
                 END { for (k in n) print k, n[k] }' | sort -n
}
# total of the counters named like $2 (an awk regular expression)
total() {
    "$TORUSEMU" dump "$1" --format csv | awk -F, -v re="$2" '$6 ~ re { t += $7 } END { print t + 0 }'
}

# random pairs of 256 KiB on a BG/Q node board: VC 0 (bulk across
# dimensions) is the dynamic VC, routed adaptively
run_bgq() {
    name=$1
    shift
    expect_ok "bgq $name" "$TORUSEMU" replay --machine nodeboard --pattern random --bytes 256K \
        --keep "$TMP/$name.store" --quiet "$@"
}
run_bgq none
run_bgq det --timing --routing deterministic
run_bgq ada --timing --routing adaptive
run_bgq def --timing
# flushed at every 20 us of virtual time (series snapshots): the same store
run_bgq ser --timing --series "$TMP/ser.tser" --interval 20us
recv_per_node "$TMP/none.store" >"$TMP/none.n"
recv_per_node "$TMP/det.store" >"$TMP/det.n"
recv_per_node "$TMP/ada.store" >"$TMP/ada.n"
[ "$(wc -l <"$TMP/none.n")" -eq 32 ] && pass || failed "32 nodes receive: $(cat "$TMP/none.n")"
cmp -s "$TMP/none.n" "$TMP/det.n" && pass || failed "deterministic: not the volume model's counts"
"$TORUSEMU" dump "$TMP/def.store" --format csv >"$TMP/def.csv"
"$TORUSEMU" dump "$TMP/ada.store" --format csv >"$TMP/ada.csv"
cmp -s "$TMP/def.csv" "$TMP/ada.csv" && pass || failed "BG/Q default is not adaptive"
"$TORUSEMU" dump "$TMP/ser.store" --format csv >"$TMP/ser.csv"
cmp -s "$TMP/ser.csv" "$TMP/ada.csv" && pass || failed "incremental flushes differ from one flush"
[ "$("$TORUSEMU" series --summary --format csv "$TMP/ser.tser" | awk -F, 'NR == 2 { print $(NF - 1) }')" -gt 2 ] &&
    pass || failed "fewer than 3 snapshots: $("$TORUSEMU" series --summary "$TMP/ser.tser")"
# message-unit pending requests (SRAM 35 reads, 34 writes; dump does not
# list them, the series does): every request pending 64 MU cycles
# (doc/model.md), so the totals are 64 x the volume model's request counts
pend_total() {
    "$TORUSEMU" series "$TMP/ser.tser" --all --format csv |
        awk -F, -v re="MU sram $1\$" '$4 ~ re { last[$3] = $5 } END { for (i in last) t += last[i]; print t + 0 }'
}
reads=$(total "$TMP/none.store" '^PORT0_(32|64|128)B_RD$')
writes=$(total "$TMP/none.store" '^PORT0_16B_WRT$')
[ "$reads" -gt 0 ] && [ "$(pend_total 35)" = "$((64 * reads))" ] && pass ||
    failed "pending reads $(pend_total 35), want 64 x $reads"
[ "$writes" -gt 0 ] && [ "$(pend_total 34)" = "$((64 * writes))" ] && pass ||
    failed "pending writes $(pend_total 34), want 64 x $writes"
# totals (so the mean per node) exactly the volume model's
for c in '^RECV_PACKETS_VC[01]$' '^SENT_CHUNKS_VC[01]$' 'RECV_PACKETS|SENT_CHUNKS'; do
    want=$(total "$TMP/none.store" "$c")
    got=$(total "$TMP/ada.store" "$c")
    [ "$want" -gt 0 ] && [ "$got" = "$want" ] && pass || failed "adaptive total $c: $got, want $want"
done
# the same mean, nodes above and below it
paste "$TMP/det.n" "$TMP/ada.n" >"$TMP/both"
awk '{ s += $2; if ($4 != $2) d++ } END { m = s / NR; print d + 0, m }' "$TMP/both" >"$TMP/stat"
read -r ndiff mean <"$TMP/stat"
[ "$ndiff" -gt 0 ] && pass || failed "adaptive routes moved no node's count"
above=$(awk -v m="$mean" '$4 > m' "$TMP/both" | wc -l)
below=$(awk -v m="$mean" '$4 < m' "$TMP/both" | wc -l)
[ "$above" -gt 0 ] && [ "$below" -gt 0 ] && pass ||
    failed "adaptive: $above nodes above the mean $mean, $below below"

# BG/P no-token counters: non-zero where random pairs compete, 0 where
# every message has its links to itself (bisection pairs)
run_bgp() {
    expect_ok "bgp $1" "$TORUSEMU" replay --machine bgp-16 -np "$2" --pattern "$1" --bytes 256K \
        --timing --series "$TMP/$1.tser" --interval 1s --quiet
}
notokens() {
    "$TORUSEMU" series "$TMP/$1.tser" --all --format csv |
        awk -F, '$4 ~ / NO_(VCD0_|VCBN_|VCBP_)?TOKENS$/ { t += $5 } END { print t + 0 }'
}
run_bgp random 16
run_bgp bisection 2
busy=$(notokens random)
[ "$busy" -gt 0 ] && pass || failed "bgp random: no no-token cycles"
lone=$(notokens bisection)
[ "$lone" -eq 0 ] && pass || failed "bgp lone messages: $lone no-token cycles, want 0"
"$TORUSEMU" series "$TMP/bisection.tser" --all --format csv | grep -q ' PACKETS,' && pass ||
    failed "bgp bisection: no packets counted"

expect_fail "routing without timing" "go with --timing" "$TORUSEMU" replay --machine nodeboard \
    --pattern random --routing adaptive
expect_fail "unknown routing" "expected deterministic or adaptive" "$TORUSEMU" replay \
    --machine nodeboard --pattern random --timing --routing sideways
expect_fail "adaptive Gemini" "adaptive routing is modelled for Blue Gene only" "$TORUSEMU" replay \
    --machine gemini-tiny --pattern random --timing --routing adaptive
# BG/Q all-to-all blocks (PAMI's many-to-many protocol, doc/model.md "All-to-all
# on BG/Q"): the fft pattern's first all-to-all on the node board, 32 ranks
# in rows of 4, 64^3 points of 16 bytes: 131,072 bytes per rank, a 32 KiB
# block to each of 3 row members = 64 memory-FIFO packets each, 32 x 3 x 64 =
# 6,144 packets received, no put or remote-get packet; all on VC 0, or all on
# VC 1 with m2m-routing=deterministic (the same chunks)
run_fft() {
    name=$1 spec=$2
    shift 2
    expect_ok "fft $name" "$TORUSEMU" replay --machine "$spec" --pattern fft --grid 4x8 --size 64 \
        --phase 1 --keep "$TMP/fft_$name.store" --quiet "$@"
}
run_fft dyn nodeboard
run_fft det nodeboard,m2m-routing=deterministic
run_fft tdyn nodeboard --timing
run_fft tdet nodeboard,m2m-routing=deterministic --timing
expect_eq "m2m: FIFO packets" 6144 "$(total "$TMP/fft_dyn.store" '^FIFO_PKT_RCV$')"
expect_eq "m2m: no put packets" 0 "$(total "$TMP/fft_dyn.store" '^(PUT|RGET)_PKT_RCV$')"
vc0=$(total "$TMP/fft_dyn.store" '^SENT_CHUNKS_VC0$')
[ "$vc0" -gt 0 ] && pass || failed "m2m: nothing on VC 0"
expect_eq "m2m: nothing on VC 1" 0 "$(total "$TMP/fft_dyn.store" '^SENT_CHUNKS_VC1$')"
expect_eq "deterministic m2m: nothing on VC 0" 0 "$(total "$TMP/fft_det.store" '^SENT_CHUNKS_VC0$')"
expect_eq "deterministic m2m: the same chunks on VC 1" "$vc0" \
    "$(total "$TMP/fft_det.store" '^SENT_CHUNKS_VC1$')"
# timed: the adaptive routes are minimal, so VC 0 and the escape VC 1
# together carry the counted chunks; deterministic M2M gives the counted
# chunks link by link
expect_eq "timed m2m: the counted total" "$vc0" \
    "$(total "$TMP/fft_tdyn.store" '^SENT_CHUNKS_VC[01]$')"
links() { "$TORUSEMU" dump "$1" --format csv | awk -F, '$6 ~ /^SENT_CHUNKS_VC/' | sort; }
links "$TMP/fft_det.store" >"$TMP/fft_det.l"
links "$TMP/fft_tdet.store" >"$TMP/fft_tdet.l"
[ -s "$TMP/fft_det.l" ] && cmp -s "$TMP/fft_det.l" "$TMP/fft_tdet.l" && pass ||
    failed "timed deterministic m2m: not the counted link counters"
finish
