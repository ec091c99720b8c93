#!/bin/sh
# nodewide.sh - hardware rules that hold for a whole node, across processes
# (components/common/torus_node.h): BG/Q L2 combined vs sliced, BG/Q network
# link ownership, BG/P UPC mode.  torus_count holds an event set counting
# while it runs a command; the command is a second torus_count on the same
# node, which must be refused (or admitted) as the real machine would.  A
# holder killed with SIGKILL leaves its claim in the node words; the next
# process on the node reclaims it.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
COUNT="$PAPI_COMP_TESTS/gemini_tile/tests/torus_count"
REFUSED="cannot be counted due to hardware resource limits"

# killed_holder DESC PATTERN EVENT INNER_EVENT : a process holding EVENT runs
# a second one asking for INNER_EVENT (refused with PATTERN), then is killed
killed_holder() {
    "$COUNT" "$3" -- sh -c '"$0" "$1"; kill -9 $PPID' "$COUNT" "$4" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ge 128 ] && pass || failed "$1: holder not killed (exit $rc)"
    grep -q -- "$2" "$TMP/err" && pass || failed "$1: second process not refused: $(cat "$TMP/err")"
}

# --------------------------------------------------------- BG/Q L2 mode
Q=$(new_session q midplane)
export TORUSEMU_SESSION="$Q" TORUSEMU_NODE=128
expect_fail "L2: sliced beside combined (other process)" "cannot add PEVT_L2_HITS_SLICE" \
    "$COUNT" PEVT_L2_HITS -- "$COUNT" PEVT_L2_HITS_SLICE
grep -q "$REFUSED" "$TMP/err" && pass || failed "L2 refusal is a resource conflict: $(cat "$TMP/err")"
expect_fail "L2: combined beside sliced" "cannot add L2_REQUESTS" \
    "$COUNT" PEVT_L2_MISSES_SLICE:slice=3 -- "$COUNT" L2_REQUESTS
expect_ok "L2: combined in two processes" "$COUNT" PEVT_L2_HITS -- "$COUNT" PEVT_L2_MISSES \
    -- "$TORUSEMU" inject "$Q" --src 0 --dst 128 --bytes 4096
expect_out "inner process counted (misses are not modelled)" "^PEVT_L2_MISSES 0$"
expect_out "outer process counts the 32 lines" "^PEVT_L2_HITS 32$"
expect_ok "L2: another node has its own mode" "$COUNT" PEVT_L2_HITS -- \
    env TORUSEMU_NODE=256 "$COUNT" PEVT_L2_HITS_SLICE:slice=1
expect_ok "L2: the mode is free when both have exited" "$COUNT" PEVT_L2_HITS_SLICE
killed_holder "L2: killed holder" "cannot add PEVT_L2_HITS_SLICE" PEVT_L2_HITS PEVT_L2_HITS_SLICE
expect_ok "L2: sliced once the combined holder died" "$COUNT" PEVT_L2_HITS_SLICE

# ------------------------------------------------ BG/Q network link owners
# the first process attaches all 11 links of node 128 with send mask 0x70
expect_fail "NW: another send mask in another process" "PAPI_start: Event exists" \
    "$COUNT" PEVT_NW_USER_PP_SENT -- "$COUNT" PEVT_NW_SYS_PP_SENT
expect_fail "NW: another receive mask" "PAPI_start: Event exists" \
    "$COUNT" PEVT_NW_USER_PP_RECV -- "$COUNT" PEVT_NW_RECV:vc=0x20
expect_ok "NW: the same masks in two processes, both count" \
    "$COUNT" PEVT_NW_USER_PP_SENT:link=A+ -- "$COUNT" PEVT_NW_USER_PP_SENT:link=A+ \
    -- "$TORUSEMU" inject "$Q" --src 0 --dst 256 --bytes 4096
n=$(grep -c '^PEVT_NW_USER_PP_SENT:link=A+ 136$' "$TMP/out")
[ "$n" -eq 2 ] && pass || failed "NW: both processes count 136 chunks: $(cat "$TMP/out")"
expect_ok "NW: a reader needing part of the masks" "$COUNT" PEVT_NW_USER_PP_SENT \
    PEVT_NW_SYS_PP_SENT PEVT_NW_USER_PP_RECV -- "$COUNT" NW_USER_PP_SENT_BYTES:link=A+
expect_ok "NW: disjoint links" "$COUNT" PEVT_NW_USER_PP_SENT:link=A -- "$COUNT" PEVT_NW_SYS_PP_SENT:link=B
expect_fail "NW: overlapping links" "PAPI_start: Event exists" \
    "$COUNT" PEVT_NW_USER_PP_SENT:link=A -- "$COUNT" PEVT_NW_SYS_PP_SENT:link=TORUS
# 8 processes attach the same links at the same moment: all succeed, and
# the links are free again afterwards
pids=""
for i in 1 2 3 4 5 6 7 8; do
    "$COUNT" PEVT_NW_USER_PP_SENT -- sleep 0.2 >"$TMP/conc$i" 2>&1 &
    pids="$pids $!"
done
ok=0
for p in $pids; do
    wait "$p" && ok=$((ok + 1))
done
[ "$ok" -eq 8 ] && pass || failed "NW: $ok of 8 concurrent readers started: $(cat "$TMP"/conc*)"
expect_ok "NW: links free after the concurrent sets" "$COUNT" PEVT_NW_SYS_PP_SENT

# 64 processes of a node (BG/Q ran up to 64 ranks per node) may hold
# node-wide claims at once; the 65th is refused with a resource conflict
# (not an error or a crash).  Each holder waits on its own FIFO.
mkdir "$TMP/hold"
pids=""
for i in $(seq 64); do
    mkfifo "$TMP/hold/go.$i"
    "$COUNT" PEVT_L2_HITS -- sh -c 'touch "$0.ready"; read x <"$0"' "$TMP/hold/go.$i" \
        >/dev/null 2>&1 &
    pids="$pids $!"
done
n=0
while [ "$(ls "$TMP/hold" | grep -c ready)" -lt 64 ] && [ "$n" -lt 1200 ]; do
    sleep 0.05
    n=$((n + 1))
done
expect_fail "65th process on the node" "cannot add PEVT_L2_HITS: Event exists, but cannot be counted" \
    "$COUNT" PEVT_L2_HITS
for i in $(seq 64); do
    echo go >"$TMP/hold/go.$i"
done
ok=0
for p in $pids; do
    wait "$p" && ok=$((ok + 1))
done
[ "$ok" -eq 64 ] && pass || failed "L2: $ok of 64 holders ran"
expect_ok "L2: a process again once they are gone" "$COUNT" PEVT_L2_HITS_SLICE

killed_holder "NW: killed controller" "PAPI_start: Event exists" PEVT_NW_USER_PP_SENT PEVT_NW_SYS_PP_SENT
expect_ok "NW: links free once the controller died" "$COUNT" PEVT_NW_SYS_PP_SENT
unset TORUSEMU_SESSION TORUSEMU_NODE

# ------------------------------------------------------------ BG/P mode
P=$(new_session p bgp-16)
export TORUSEMU_SESSION="$P" TORUSEMU_NODE=0
expect_fail "BG/P: mode 2 beside mode 0 (other process)" "cannot add BGP_TORUS_XP_ACKS" \
    "$COUNT" BGP_TORUS_XP_PACKETS -- "$COUNT" BGP_TORUS_XP_ACKS
grep -q "$REFUSED" "$TMP/err" && pass || failed "BG/P refusal is a resource conflict"
expect_fail "BG/P: mode 0 preset beside mode 2" "cannot add PAPI_BGP_TS_DPKT" \
    "$COUNT" BGP_TORUS_XP_ACKS -- "$COUNT" PAPI_BGP_TS_DPKT
expect_ok "BG/P: mode 0 in two processes" "$COUNT" BGP_TORUS_XP_PACKETS -- \
    "$COUNT" PAPI_BGP_TS_32B -- "$TORUSEMU" inject "$P" --src 0 --dst 1 --bytes 960
expect_out "inner process counts the chunks" "^PAPI_BGP_TS_32B 32$"
expect_ok "BG/P: another node has its own mode" "$COUNT" BGP_TORUS_XP_PACKETS -- \
    env TORUSEMU_NODE=1 "$COUNT" BGP_TORUS_XP_ACKS
killed_holder "BG/P: killed holder" "cannot add BGP_TORUS_XP_ACKS" BGP_TORUS_XP_PACKETS BGP_TORUS_XP_ACKS
expect_ok "BG/P: mode 2 once the mode 0 holder died" "$COUNT" BGP_TORUS_XP_ACKS
finish
