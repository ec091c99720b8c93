#!/bin/sh
# papi_tools.sh - the PAPI utilities installed with the components, as a
# user runs them: papi_component_avail, papi_native_avail,
# papi_command_line; idle machine, missing, foreign and old stores.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
unset TORUSEMU_SESSION TORUSEMU_NODE TORUSEMU_RANK

# enabled_after NAME : the line after "Name: NAME" in $TMP/out is not a
# "Disabled" line
enabled() {
    if awk -v c="$1" '$1 == "Name:" && $2 == c { found = 1; getline; if ($0 ~ /Disabled/) bad = 1 }
        END { exit !(found && !bad) }' "$TMP/out"; then pass; else failed "$1 not listed enabled"; fi
}
disabled_because() {
    if awk -v c="$1" -v why="$2" '$1 == "Name:" && $2 == c { getline; if ($0 ~ /Disabled/ && index($0, why)) ok = 1 }
        END { exit !ok }' "$TMP/out"; then pass; else failed "$1 not disabled with '$2': $(grep -A1 "$1" "$TMP/out")"; fi
}

# ------------------------------------------------------------ components
expect_ok "papi_component_avail" "$PAPI_BIN/papi_component_avail"
for c in $PAPI_COMPONENTS; do
    enabled "$c"
done
# the library the tools load is ours, not Debian's libpapi7.0
expect_ok "ldd" ldd "$PAPI_BIN/papi_component_avail"
expect_out "our libpapi" "libpapi.so.7.0 => $PAPI_PREFIX/lib/"

# ----------------------------------------------------- every event listed
expect_ok "papi_native_avail" "$PAPI_BIN/papi_native_avail"
cp "$TMP/out" "$TMP/native"
# section of one component: from its header to the next header
section() {
    awk -v c="$1" '/Native Events in Component:/ { on = ($NF == c); next } on' "$TMP/native"
}
for c in $PAPI_COMPONENTS; do
    section "$c" >"$TMP/sec"
    # gemini_tile prints "gemini_tile:::NAME"; names of components whose name
    # contains "bgp" (or "bgq", "pe") are printed bare (papi_internal.c)
    case $c in *bgp* | *bgq* | *pe*) pre="" ;; *) pre="$c:::" ;; esac
    names=$(cat "$top_srcdir/components/$c/$c.events" "$top_srcdir/presets/$c.presets" 2>/dev/null |
        awk -F '\t' '$1 == "event" || $1 == "derived" { print $2 }')
    want=$(echo "$names" | wc -l)
    got=$(grep -Ec '^\| ([a-z_]+:::)?[A-Z][A-Z0-9_]+ +\|$' "$TMP/sec")
    [ "$got" -eq "$want" ] && pass || failed "$c: papi_native_avail lists $got events, the tables $want"
    missing=""
    for n in $names; do
        # the event line is followed by its description (an indented line)
        if ! grep -A1 -E "^\| $pre$n +\|$" "$TMP/sec" | tail -n 1 | grep -Eq '^\|            [^ ]'; then
            missing="$missing $n"
        fi
    done
    [ -z "$missing" ] && pass || failed "$c: not listed with a description:$missing"
done
section gemini_tile >"$TMP/sec"
n=$(grep -Ec '^\|     :[0-5]:[0-7] +\|$' "$TMP/sec")
[ "$n" -eq 288 ] && pass || failed "gemini_tile: $n :n:m qualifier lines, want 6 events x 48"
n=$(grep -Ec '^\|     :link=(X|Y|Z)[+-] +\|$|^\|     :link=HH +\|$' "$TMP/sec")
[ "$n" -eq 35 ] && pass || failed "gemini_tile: $n :link= qualifier lines, want 5 events x 7"
section bgq_nwunit >"$TMP/sec"
n=$(grep -Ec '^\|     :link=([A-E][+-]|IO|[A-E]|TORUS|ALL) +\|$' "$TMP/sec")
[ "$n" -eq 630 ] && pass || failed "bgq_nwunit: $n :link= qualifier lines, want 35 events x 18"
n=$(grep -Ec '^\|     :vc=0x7f +\|$' "$TMP/sec")
[ "$n" -eq 4 ] && pass || failed "bgq_nwunit: $n :vc= lines, want the default of 3 attribute events + NW_SENT_BYTES"
section bgq_l2unit >"$TMP/sec"
n=$(grep -Ec '^\|     :slice=([0-9]|1[0-5]) +\|$' "$TMP/sec")
[ "$n" -eq 272 ] && pass || failed "bgq_l2unit: $n :slice= qualifier lines, want 17 events x 16"
expect_ok "native_avail -e" "$PAPI_BIN/papi_native_avail" -e GM_LINK_BYTES:link=X-
expect_out "event line" "Event name: +gemini_tile:::GM_LINK_BYTES:link=X-"
expect_ok "native_avail -e bgp" "$PAPI_BIN/papi_native_avail" -e PAPI_BGP_TS_32B
expect_out "bgp preset name" "Event name: +PAPI_BGP_TS_32B"
expect_out "bgp preset description" "six directions"
expect_ok "native_avail -e bgq" "$PAPI_BIN/papi_native_avail" -e PEVT_NW_SENT:vc=0x70:link=a
expect_out "bgq attribute event, canonical name" "Event name: +PEVT_NW_SENT:link=A:vc=0x70"
expect_ok "native_avail -e cnk" "$PAPI_BIN/papi_native_avail" -e PEVT_CNKPROC_RSV
expect_out "reserved CNK id described" "Reserved - CNK defines no per-process counters"

# ------------------------------------------------- counting, idle machine
expect_ok "command_line gemini" "$PAPI_BIN/papi_command_line" \
    gemini_tile:::GM_LINK_PHITS:link=X+ GM_TILE_PERF_VC0_PHIT_CNT:2:3 \
    GM_3_4_TILE_PERFORMANCE_COUNTERS_5 GM_ORB_PERF_VC0_PKTS
expect_out "link event counted" "^gemini_tile:::GM_LINK_PHITS:link=X\+ :[[:space:]]+0\(u\) phits"
expect_out "tile event counted" "^GM_TILE_PERF_VC0_PHIT_CNT:2:3 :[[:space:]]+0\(u\) phits"
expect_out "alias counted" "^GM_3_4_TILE_PERFORMANCE_COUNTERS_5 :[[:space:]]+0\(u\) cycles"
expect_out "NIC event counted" "^GM_ORB_PERF_VC0_PKTS :[[:space:]]+0\(u\) packets"
if grep -q "Failed adding" "$TMP/out"; then failed "papi_command_line gemini: $(cat "$TMP/out")"; else pass; fi
expect_ok "command_line bgp" "$PAPI_BIN/papi_command_line" PAPI_BGP_TS_DPKT \
    bgp_torus:::BGP_TORUS_XP_PACKETS PAPI_BGP_TS_32B
expect_out "preset counted" "^PAPI_BGP_TS_DPKT :[[:space:]]+0\(u\) packets"
expect_out "prefixed bgp name" "^bgp_torus:::BGP_TORUS_XP_PACKETS :[[:space:]]+0\(u\) packets"
expect_out "32B preset" "^PAPI_BGP_TS_32B :[[:space:]]+0\(u\) chunks"

# the four BG/Q units, idle midplane: zeros, network cycles from the clock
expect_ok "command_line bgq nw" "$PAPI_BIN/papi_command_line" PEVT_NW_USER_PP_SENT \
    PEVT_NW_SENT:vc=0x20:link=A+ bgq_nwunit:::NW_USER_PP_SENT_BYTES:link=TORUS PEVT_NW_CYCLES
expect_out "NW event counted" "^PEVT_NW_USER_PP_SENT :[[:space:]]+0\(u\) chunks"
expect_out "attribute event with a mask" "^PEVT_NW_SENT:vc=0x20:link=A\+ :[[:space:]]+0\(u\) chunks"
expect_out "derived bytes" "^bgq_nwunit:::NW_USER_PP_SENT_BYTES:link=TORUS :[[:space:]]+0\(u\) bytes"
expect_out "cycles run" "^PEVT_NW_CYCLES :[[:space:]]+[1-9][0-9]*\(u\) cycles"
expect_ok "command_line bgq l2" "$PAPI_BIN/papi_command_line" PEVT_L2_HITS L2_REQUESTS
expect_out "L2 event counted" "^PEVT_L2_HITS :[[:space:]]+0\(u\) requests"
expect_ok "command_line bgq io" "$PAPI_BIN/papi_command_line" MU_PKT_INJ_TOTAL PEVT_PCIE_RX_TLP
expect_out "IO derived counted" "^MU_PKT_INJ_TOTAL :[[:space:]]+0\(u\) packets"
expect_out "PCIe reads 0" "^PEVT_PCIE_RX_TLP :[[:space:]]+0\(u\) packets"
expect_ok "command_line bgq cnk" "$PAPI_BIN/papi_command_line" PEVT_CNKPROC_RSV PEVT_CNKHWT_DSI
expect_out "reserved reads 0" "^PEVT_CNKPROC_RSV :[[:space:]]+0\(u\) events"
expect_out "page faults counted" "^PEVT_CNKHWT_DSI :[[:space:]]+[0-9]+\(u\) interrupts"
if grep -q "Failed adding" "$TMP/out"; then failed "papi_command_line cnk: $(cat "$TMP/out")"; else pass; fi

# ------------------------------------------------- refusals a user sees
expect_ok "UPC mode conflict" "$PAPI_BIN/papi_command_line" BGP_TORUS_XP_PACKETS BGP_TORUS_XP_ACKS
expect_out "mode conflict reported" "Failed adding: BGP_TORUS_XP_ACKS"
expect_out "as a resource conflict" "cannot be counted due to hardware resource limits"
"$PAPI_BIN/papi_command_line" gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:9:9 >"$TMP/out" 2>&1
[ $? -lt 128 ] && pass || failed "papi_command_line crashed on a bad qualifier"
expect_out "bad qualifier refused" "Failed adding: gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:9:9"
expect_ok "NW: 5th send mask" "$PAPI_BIN/papi_command_line" PEVT_NW_USER_PP_SENT PEVT_NW_SYS_PP_SENT \
    PEVT_NW_COMMWORLD_COL_SENT PEVT_NW_USER_SUBC_COL_SENT PEVT_NW_USER_DYN_PP_SENT
expect_out "5th send mask refused" "Failed adding: PEVT_NW_USER_DYN_PP_SENT"
expect_out "as a resource conflict" "cannot be counted due to hardware resource limits"
expect_out "the four others counted" "^PEVT_NW_USER_SUBC_COL_SENT :[[:space:]]+0\(u\) chunks"
expect_ok "NW: two receive masks" "$PAPI_BIN/papi_command_line" PEVT_NW_USER_PP_RECV PEVT_NW_SYS_PP_RECV_FIFO
expect_out "second receive mask refused" "Failed adding: PEVT_NW_SYS_PP_RECV_FIFO"
expect_ok "L2: combined and sliced" "$PAPI_BIN/papi_command_line" PEVT_L2_HITS PEVT_L2_HITS_SLICE:slice=3
expect_out "sliced refused beside combined" "Failed adding: PEVT_L2_HITS_SLICE:slice=3"
for bad in PEVT_L2_HITS_SLICE:slice=16 PEVT_NW_SENT:vc=0x80 PEVT_NW_USER_PP_SENT:link=F+ \
    PEVT_NW_USER_PP_SENT:vc=0x70 PEVT_CNKHWT_SYSCALL:1 PEVT_MU_PKT_INJ:link=A-; do
    "$PAPI_BIN/papi_command_line" "$bad" >"$TMP/out" 2>&1
    [ $? -lt 128 ] && pass || failed "papi_command_line crashed on $bad"
    expect_out "$bad refused" "Failed adding: $bad"
done

# ------------------------------------------------- stores it cannot use
TORUSEMU_SESSION="$TMP/none.store" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
for c in $PAPI_COMPONENTS; do
    disabled_because "$c" "cannot open session store '$TMP/none.store'"
done
B=$(new_session p bgp-16)
TORUSEMU_SESSION="$B" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because gemini_tile "is a bgp machine"
enabled bgp_torus
for c in bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit; do
    disabled_because "$c" "is a bgp machine"
done
Q=$(new_session q nodeboard)
TORUSEMU_SESSION="$Q" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
for c in bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit; do
    enabled "$c"
done
disabled_because gemini_tile "is a bgq machine"
disabled_because bgp_torus "is a bgq machine"
G=$(new_session g gemini-tiny)
printf '\001\000\000\000' | dd of="$G" bs=1 seek=8 conv=notrunc 2>/dev/null
TORUSEMU_SESSION="$G" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because gemini_tile "has ABI version 1"
printf 'TORUSEMU' >"$TMP/short.store"
TORUSEMU_SESSION="$TMP/short.store" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because bgp_torus "too short"
# a crafted store (machine.nodes_per_router = 0 at byte 140, which the old
# attach let through and the components divided by: SIGFPE) disables the
# components with the reason instead of crashing them
C=$(new_session crafted nodeboard)
printf '\000\000\000\000' | dd of="$C" bs=1 seek=140 conv=notrunc 2>/dev/null
TORUSEMU_SESSION="$C" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
for c in bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit; do
    disabled_because "$c" "describes a machine its stored name does not give"
done
TORUSEMU_SESSION="$C" TORUSEMU_NODE=1 "$PAPI_BIN/papi_command_line" PEVT_NW_USER_PP_SENT \
    >"$TMP/out" 2>&1
[ $? -lt 128 ] && pass || failed "papi_command_line crashed on a crafted store"
# a disabled component's events cannot be added, and nothing crashes
TORUSEMU_SESSION="$B" "$PAPI_BIN/papi_command_line" gemini_tile:::GM_ORB_PERF_VC0_PKTS >"$TMP/out" 2>&1
[ $? -lt 128 ] && pass || failed "papi_command_line crashed with a disabled component"
expect_out "disabled event refused" "Failed adding: gemini_tile:::GM_ORB_PERF_VC0_PKTS"
finish
