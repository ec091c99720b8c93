#!/bin/sh
# gemini_tile counts traffic that `torusemu inject` puts into a session
# (torus_count starts an event set, runs the command, stops).  A random
# 1 MiB PUT from node 0 to node 24, three X hops: 16384 transactions of 32
# request phits, 2048 on each of the 8 X- tiles of Gemini (3,0,0)
# (doc/model.md; tests/test_inject.c).
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session g gemini:8x2x2)
COUNT="$PAPI_COMP_TESTS/gemini_tile/tests/torus_count"
export TORUSEMU_SESSION="$S" TORUSEMU_NODE=24

expect_ok "count around torusemu inject" "$COUNT" GM_TILE_PERF_VC0_PHIT_CNT:0:4 \
    GM_0_4_TILE_PERFORMANCE_COUNTERS_2 gemini_tile:::GM_LINK_PHITS:link=X- \
    GM_LINK_BYTES:link=X- GM_RAT_PERF_DATA_FLITS_VC0 GM_TILE_PERF_VC1_PHIT_CNT:0:4 \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 24 --bytes 1M --kind put --payload random
expect_out "VC0 phits on tile 0:4" "^GM_TILE_PERF_VC0_PHIT_CNT:0:4 65536$"
expect_out "GPCD alias, VC0 packets" "^GM_0_4_TILE_PERFORMANCE_COUNTERS_2 2048$"
expect_out "X- link phits" "^gemini_tile:::GM_LINK_PHITS:link=X- 524288$"
expect_out "X- link bytes" "^GM_LINK_BYTES:link=X- 1572864$"
expect_out "NIC data flits" "^GM_RAT_PERF_DATA_FLITS_VC0 65536$"
expect_out "no responses arrive on X-" "^GM_TILE_PERF_VC1_PHIT_CNT:0:4 0$"

# zeroed payload: compressed to header phits (8 per request) - a third
expect_ok "zero payload" "$COUNT" GM_TILE_PERF_VC0_PHIT_CNT:0:4 GM_LINK_PACKETS:link=X- \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 24 --bytes 1M --kind put --payload zero --count 2
expect_out "compressed phits, 2 messages" "^GM_TILE_PERF_VC0_PHIT_CNT:0:4 32768$"
expect_out "packets, 2 messages" "^GM_LINK_PACKETS:link=X- 32768$"

# the responses come back on the X+ tiles of the sender's Gemini
export TORUSEMU_NODE=0
expect_ok "sender side" "$COUNT" GM_LINK_PHITS:link=X+ GM_LINK_PHITS:link=HH \
    GM_ORB_PERF_VC0_PKTS GM_TARB_PERF_BTE_PKTS \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 24 --bytes 1M --kind put --payload random
expect_out "X+ response phits at Gemini 0" "^GM_LINK_PHITS:link=X\+ 49152$"
expect_out "host tiles of Gemini 0" "^GM_LINK_PHITS:link=HH 524288$"
expect_out "requests issued" "^GM_ORB_PERF_VC0_PKTS 16384$"
expect_out "by the BTE (1 MiB >= 512 KiB)" "^GM_TARB_PERF_BTE_PKTS 16384$"

# bad names are refused with PAPI's reason, not a crash
expect_fail "bad tile" "cannot add GM_TILE_PERF_VC0_PHIT_CNT:6:0" "$COUNT" GM_TILE_PERF_VC0_PHIT_CNT:6:0
expect_fail "bad link" "cannot add GM_LINK_PHITS:link=W+" "$COUNT" GM_LINK_PHITS:link=W+
finish
