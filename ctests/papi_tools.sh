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
    got=$(grep -Ec '^\| [A-Za-z_]+(:::)?[A-Z][A-Z0-9_]+ +\|$' "$TMP/sec")
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
expect_ok "native_avail -e" "$PAPI_BIN/papi_native_avail" -e GM_LINK_BYTES:link=X-
expect_out "event line" "Event name: +gemini_tile:::GM_LINK_BYTES:link=X-"
expect_ok "native_avail -e bgp" "$PAPI_BIN/papi_native_avail" -e PAPI_BGP_TS_32B
expect_out "bgp preset name" "Event name: +PAPI_BGP_TS_32B"
expect_out "bgp preset description" "six directions"

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

# ------------------------------------------------- refusals a user sees
expect_ok "UPC mode conflict" "$PAPI_BIN/papi_command_line" BGP_TORUS_XP_PACKETS BGP_TORUS_XP_ACKS
expect_out "mode conflict reported" "Failed adding: BGP_TORUS_XP_ACKS"
expect_out "as a resource conflict" "cannot be counted due to hardware resource limits"
"$PAPI_BIN/papi_command_line" gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:9:9 >"$TMP/out" 2>&1
[ $? -lt 128 ] && pass || failed "papi_command_line crashed on a bad qualifier"
expect_out "bad qualifier refused" "Failed adding: gemini_tile:::GM_TILE_PERF_VC0_PHIT_CNT:9:9"

# ------------------------------------------------- stores it cannot use
TORUSEMU_SESSION="$TMP/none.store" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
for c in $PAPI_COMPONENTS; do
    disabled_because "$c" "cannot open session store '$TMP/none.store'"
done
B=$(new_session p bgp-16)
TORUSEMU_SESSION="$B" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because gemini_tile "is a bgp machine"
enabled bgp_torus
G=$(new_session g gemini-tiny)
printf '\001\000\000\000' | dd of="$G" bs=1 seek=8 conv=notrunc 2>/dev/null
TORUSEMU_SESSION="$G" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because gemini_tile "has ABI version 1"
printf 'TORUSEMU' >"$TMP/short.store"
TORUSEMU_SESSION="$TMP/short.store" "$PAPI_BIN/papi_component_avail" >"$TMP/out" 2>&1
disabled_because bgp_torus "too short"
# a disabled component's events cannot be added, and nothing crashes
TORUSEMU_SESSION="$B" "$PAPI_BIN/papi_command_line" gemini_tile:::GM_ORB_PERF_VC0_PKTS >"$TMP/out" 2>&1
[ $? -lt 128 ] && pass || failed "papi_command_line crashed with a disabled component"
expect_out "disabled event refused" "Failed adding: gemini_tile:::GM_ORB_PERF_VC0_PKTS"
finish
