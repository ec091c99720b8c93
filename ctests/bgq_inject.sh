#!/bin/sh
# The BG/Q components count traffic that `torusemu inject` puts into a
# session (torus_count starts an event set, runs the command, stops), on a
# BG/Q midplane, messages from node 0 (0,0,0,0,0) to node 256 (2,0,0,0,0):
# two hops on the A+ links of nodes 0 and 128 (doc/model.md; the numbers are
# derived in tests/test_plan.c and tests/test_inject.c).
#   4096 B, eager: 8 packets, 136 chunks on VC 1 (escape); 34 16-byte
#     writes per packet at the receiver, 4 x 128-byte reads per packet at the
#     sender, 32 lines = 2 L2 hits on each of the 16 slices at both ends.
#   16 KiB, rendezvous: request-to-send (2 chunks) + 32 put packets (544):
#     546 chunks, 33 packets; the remote get (3 chunks) goes 256 -> 384 -> 0.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
COUNT="$PAPI_COMP_TESTS/gemini_tile/tests/torus_count"
export TORUSEMU_SESSION="$S"

# the pass-through node 128: network unit only
export TORUSEMU_NODE=128
expect_ok "NW at the middle node" "$COUNT" PEVT_NW_USER_PP_SENT PEVT_NW_USER_ESC_PP_SENT:link=A+ \
    PEVT_NW_USER_PP_RECV:link=A- PEVT_NW_USER_PP_RECV_FIFO NW_USER_PP_SENT_BYTES:link=A \
    PEVT_NW_SENT:link=IO PEVT_NW_USER_DYN_PP_SENT \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 4096 --count 2
expect_out "chunks of 2 x 4096 B" "^PEVT_NW_USER_PP_SENT 272$"
expect_out "on A+, escape channel" "^PEVT_NW_USER_ESC_PP_SENT:link=A\+ 272$"
expect_out "packets in on A-" "^PEVT_NW_USER_PP_RECV:link=A- 16$"
expect_out "no FIFO occupancy without the timing model" "^PEVT_NW_USER_PP_RECV_FIFO 0$"
expect_out "bytes on dimension A" "^NW_USER_PP_SENT_BYTES:link=A 8704$"
expect_out "I/O link idle" "^PEVT_NW_SENT:link=IO 0$"
expect_out "nothing dynamic below 64 KiB" "^PEVT_NW_USER_DYN_PP_SENT 0$"
expect_ok "NW rendezvous" "$COUNT" PEVT_NW_USER_PP_SENT:link=A+ PEVT_NW_RECV:vc=0x20 \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 16K
expect_out "546 chunks" "^PEVT_NW_USER_PP_SENT:link=A\+ 546$"
expect_out "33 packets" "^PEVT_NW_RECV:vc=0x20 33$"
expect_ok "collectives" "$COUNT" PEVT_NW_USER_WORLD_COL_SENT NW_COL_SENT_BYTES \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 100 --kind coll-world
expect_out "one packet of 1 + 4 chunks" "^PEVT_NW_USER_WORLD_COL_SENT 5$"
expect_out "160 collective bytes" "^NW_COL_SENT_BYTES 160$"

# the receiving node 256: message unit, L2 slices, CNK node counters
export TORUSEMU_NODE=256
expect_ok "IO at the receiver" "$COUNT" PEVT_MU_FIFO_PKT_RCV PEVT_MU_PORT0_16B_WRT \
    MU_PKT_RCV_TOTAL PEVT_MU_PKT_INJ PEVT_PCIE_INB_RD_BYTES PEVT_DB_MSG_SIG_INTS \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 4096
expect_out "8 FIFO packets" "^PEVT_MU_FIFO_PKT_RCV 8$"
expect_out "272 writes" "^PEVT_MU_PORT0_16B_WRT 272$"
expect_out "all received packets" "^MU_PKT_RCV_TOTAL 8$"
expect_out "the receiver injects nothing" "^PEVT_MU_PKT_INJ 0$"
expect_out "PCIe off on compute nodes" "^PEVT_PCIE_INB_RD_BYTES 0$"
expect_out "no MSIs" "^PEVT_DB_MSG_SIG_INTS 0$"
expect_ok "pending requests" "$COUNT" PEVT_MU_PORT0_PEND_WRT PEVT_MU_PORT0_PEND_RD \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 4096
expect_out "no pending writes without the timing model" "^PEVT_MU_PORT0_PEND_WRT 0$"
expect_out "no pending reads without the timing model" "^PEVT_MU_PORT0_PEND_RD 0$"
expect_ok "L2 slices at the receiver" "$COUNT" PEVT_L2_HITS_SLICE:slice=0 \
    PEVT_L2_HITS_SLICE:slice=15 PEVT_L2_HITS_SLICE L2_REQUESTS_SLICE \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 4096
expect_out "2 hits on slice 0" "^PEVT_L2_HITS_SLICE:slice=0 2$"
expect_out "2 hits on slice 15" "^PEVT_L2_HITS_SLICE:slice=15 2$"
expect_out "32 over all slices" "^PEVT_L2_HITS_SLICE 32$"
expect_out "requests = hits + misses" "^L2_REQUESTS_SLICE 32$"
expect_ok "CNK node counters" "$COUNT" PEVT_CNKNODE_MUINT PEVT_CNKNODE_NDINT PEVT_CNKPROC_RSV \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 16K
expect_out "no MU interrupts (polled)" "^PEVT_CNKNODE_MUINT 0$"
expect_out "no network interrupts (error-free links)" "^PEVT_CNKNODE_NDINT 0$"
expect_out "reserved id" "^PEVT_CNKPROC_RSV 0$"

# the sender, node 0
export TORUSEMU_NODE=0
expect_ok "IO and L2 at the sender" "$COUNT" PEVT_MU_PKT_INJ PEVT_MU_MSG_INJ MU_PKT_INJ_TOTAL \
    PEVT_MU_PORT0_128B_RD MU_PORT0_RD_BYTES \
    -- "$TORUSEMU" inject "$S" --src 0 --dst 256 --bytes 4096
expect_out "first packet of the message not counted" "^PEVT_MU_PKT_INJ 7$"
expect_out "one message" "^PEVT_MU_MSG_INJ 1$"
expect_out "all 8 packets" "^MU_PKT_INJ_TOTAL 8$"
expect_out "32 reads of 128 B" "^PEVT_MU_PORT0_128B_RD 32$"
expect_out "4096 bytes read" "^MU_PORT0_RD_BYTES 4096$"

# bad names are refused with PAPI's reason, not a crash
expect_fail "bad link" "cannot add PEVT_NW_USER_PP_SENT:link=F-" "$COUNT" PEVT_NW_USER_PP_SENT:link=F-
expect_fail "bad slice" "cannot add PEVT_L2_HITS_SLICE:slice=16" "$COUNT" PEVT_L2_HITS_SLICE:slice=16
expect_fail "vc on a fixed-mask event" "cannot add PEVT_NW_SYS_PP_SENT:vc=0x08" "$COUNT" PEVT_NW_SYS_PP_SENT:vc=0x08
finish
