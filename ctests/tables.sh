#!/bin/sh
# tables.sh - the event tables and derived-event files are valid, and the
# checker refuses the mistakes it exists for (each fixture below must fail
# with its reason).  The same checker runs when the build generates C.
. "${top_srcdir:-.}/tests/lib.sh"
GEN="$top_srcdir/components/common/gen-events.awk"
: "${AWK:=awk}"
: "${PAPI_COMPONENTS:=gemini_tile bgp_torus bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit}"

check_table() { # COMPONENT EVENTS PRESETS
    "$AWK" -v comp="$1" -v check=1 -f "$GEN" "$2" "$3"
}

for c in $PAPI_COMPONENTS; do
    p="$top_srcdir/presets/$c.presets"
    [ -f "$p" ] || p=/dev/null
    expect_ok "$c table" check_table "$c" "$top_srcdir/components/$c/$c.events" "$p"
done
expect_ok "gemini_tile counts" check_table gemini_tile "$top_srcdir/components/gemini_tile/gemini_tile.events" "$top_srcdir/presets/gemini_tile.presets"
expect_out "gemini_tile: 20 base + 9 link events" "^gemini_tile: 29 events \(20 base, 9 derived\), 3 qualifiers"
expect_ok "bgp_torus counts" check_table bgp_torus "$top_srcdir/components/bgp_torus/bgp_torus.events" "$top_srcdir/presets/bgp_torus.presets"
expect_out "bgp_torus: 70 torus events + 2 presets" "^bgp_torus: 72 events \(70 base, 2 derived\)"

expect_ok "bgq_nwunit counts" check_table bgq_nwunit "$top_srcdir/components/bgq_nwunit/bgq_nwunit.events" "$top_srcdir/presets/bgq_nwunit.presets"
expect_out "bgq_nwunit: 31 BGPM events + 4 derived" "^bgq_nwunit: 35 events \(31 base, 4 derived\), 2 qualifiers"
expect_ok "bgq_l2unit counts" check_table bgq_l2unit "$top_srcdir/components/bgq_l2unit/bgq_l2unit.events" "$top_srcdir/presets/bgq_l2unit.presets"
expect_out "bgq_l2unit: 32 BGPM events + 2 derived" "^bgq_l2unit: 34 events \(32 base, 2 derived\), 1 qualifiers"
expect_ok "bgq_iounit counts" check_table bgq_iounit "$top_srcdir/components/bgq_iounit/bgq_iounit.events" "$top_srcdir/presets/bgq_iounit.presets"
expect_out "bgq_iounit: 44 BGPM events + 4 derived" "^bgq_iounit: 48 events \(44 base, 4 derived\)"
expect_ok "bgq_cnkunit counts" check_table bgq_cnkunit "$top_srcdir/components/bgq_cnkunit/bgq_cnkunit.events" /dev/null
expect_out "bgq_cnkunit: 29 events + the reserved id" "^bgq_cnkunit: 30 events \(30 base, 0 derived\)"

# BG/Q tables keep BGPM's id order (the last ARG is the BGPM id): base event
# k is id OFFSET + k, so the event index is the vendor id minus the offset
id_order() { # EVENTS OFFSET
    "$AWK" -F '\t' -v off="$2" '$1 == "event" { n = split($4, a, ",")
        if (a[n] != off + k) { printf "%s: %s has id %s, want %d\n", FILENAME, $2, a[n], off + k; bad = 1 }
        k++ } END { exit bad }' "$1" >&2
}
for c in bgq_l2unit:278 bgq_iounit:310 bgq_nwunit:354 bgq_cnkunit:385; do
    expect_ok "${c%%:*} in BGPM id order" id_order "$top_srcdir/components/${c%%:*}/${c%%:*}.events" "${c##*:}"
done
# every BG/Q event says where its value comes from (doc/components.md)
sourced() { # EVENTS
    "$AWK" -F '\t' '$1 == "event" && $8 !~ /Model|modelled|[Tt]iming model|[Hh]ost|[Rr]eads 0|Reserved/ {
        print FILENAME ": " $2 " does not say where its value comes from"; bad = 1 } END { exit bad }' "$1" >&2
}
for c in bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit; do
    expect_ok "$c: every event names its source" sourced "$top_srcdir/components/$c/$c.events"
done
sed 's/Not modelled (reads 0) - no system collectives are emulated./Nothing here./' \
    "$top_srcdir/components/bgq_nwunit/bgq_nwunit.events" >"$TMP/nosource.events"
expect_fail "an event without a source is found" "PEVT_NW_SYS_COL_SENT does not say" \
    sourced "$TMP/nosource.events"
grep -v PEVT_NW_USER_DYN_PP_SENT "$top_srcdir/components/bgq_nwunit/bgq_nwunit.events" >"$TMP/gap.events"
expect_fail "a gap in the id order is found" "PEVT_NW_USER_ESC_PP_SENT has id 356, want 355" \
    id_order "$TMP/gap.events" 354

# fixtures: a good base, then one mistake each
T=$(printf '\t')
base() {
    printf 'qualifier%sn%spos%s0..5%s-%stile row {}\n' "$T" "$T" "$T" "$T" "$T"
    printf 'class%stile\n' "$T"
    printf 'event%sEV_A%stile%s0%sphits%sn%sPhits of event A%sA good description of event A.\n' "$T" "$T" "$T" "$T" "$T" "$T" "$T"
    printf 'event%sEV_B%stile%s1%sphits%s-%sPhits of event B%sA good description of event B.\n' "$T" "$T" "$T" "$T" "$T" "$T" "$T"
}
bad_case() { # DESCRIPTION PATTERN LINE (appended to the base table)
    base >"$TMP/t.events"
    printf '%s\n' "$3" >>"$TMP/t.events"
    expect_fail "$1" "$2" check_table t "$TMP/t.events" /dev/null
}
base >"$TMP/t.events"
expect_ok "fixture base is valid" check_table t "$TMP/t.events" /dev/null
bad_case "duplicate name" "defined twice" "event${T}EV_A${T}tile${T}2${T}phits${T}-${T}A short text${T}The same name a second time."
bad_case "bad name" "upper case" "event${T}EV-C${T}tile${T}2${T}phits${T}-${T}A short text${T}A name with a minus sign."
bad_case "unknown class" "unknown class" "event${T}EV_C${T}wire${T}2${T}phits${T}-${T}A short text${T}Class nobody declared."
bad_case "unknown qualifier" "unknown qualifier 'q'" "event${T}EV_C${T}tile${T}2${T}phits${T}q${T}A short text${T}A qualifier nobody declared."
bad_case "empty description" "description of EV_C is empty" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}A short text${T}-"
bad_case "short description" "too short" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}A short text${T}short"
bad_case "no units" "units of EV_C are empty" "event${T}EV_C${T}tile${T}2${T}-${T}-${T}A short text${T}Units are missing here."
bad_case "bad args" "not a list of integers" "event${T}EV_C${T}tile${T}x${T}phits${T}-${T}A short text${T}Arguments are not numbers."
bad_case "missing field" "needs NAME" "event${T}EV_C${T}tile${T}2${T}phits${T}Only five fields."
bad_case "bad range" "bad range" "qualifier${T}m${T}pos${T}7..0${T}-${T}a backwards range {}"
# what PAPI's utilities show (doc/components.md, "How events are presented")
bad_case "short description too long" "at most 63" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}$(printf '%070d' 0)${T}A good long description."
bad_case "short description cut from the long one" "the long one cut short" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}A good long desc${T}A good long description."
bad_case "colon in a description" "contains ':'" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}Phits of event C${T}Mode 2: a colon papi_avail would split at."
bad_case "colon in a short description" "contains ':'" "event${T}EV_C${T}tile${T}2${T}phits${T}-${T}Mode 2: phits${T}A good long description."
bad_case "qualifier text without {}" "lacks {}" "qualifier${T}m${T}pos${T}0..7${T}-${T}a column of the grid"
bad_case "symbolic value not described" "value Y has no value line" "qualifier${T}d${T}named${T}X|Y${T}-${T}direction {}
value${T}d${T}X${T}the X direction of the machine"
bad_case "value of an unknown value" "'Z' is not a value" "qualifier${T}d${T}named${T}X|Y${T}-${T}direction {}
value${T}d${T}Z${T}the Z direction of the machine"
bad_case "mask bit not described" "bit 2 has no bit line" "qualifier${T}vc${T}named${T}0x01..0x03${T}-${T}channel mask {}
bit${T}vc${T}0x01${T}the first channel"
bad_case "bit outside the mask" "not one bit of its range" "qualifier${T}vc${T}named${T}0x01..0x03${T}-${T}channel mask {}
bit${T}vc${T}0x04${T}the third channel"
bad_case "unknown line" "unknown line kind" "evnt${T}EV_C"
bad_case "derived: unknown event" "names unknown event 'EV_Z'" "derived${T}EV_D${T}phits${T}-${T}EV_A + EV_Z${T}A short text${T}Refers to a missing event."
bad_case "derived: bad coefficient" "not an integer" "derived${T}EV_D${T}phits${T}-${T}x*EV_A${T}A short text${T}Coefficient is not a number."
bad_case "derived: bad divisor" "divisor" "derived${T}EV_D${T}phits${T}-${T}EV_A / 0${T}A short text${T}Divides by zero."
{
    base
    printf 'derived%sEV_D%sphits%s-%sEV_A + EV_B%sSum of A and B%sA good derived event.\n' "$T" "$T" "$T" "$T" "$T" "$T"
    printf 'derived%sEV_E%sphits%s-%sEV_D - EV_A%sD less A here%sUses a derived event.\n' "$T" "$T" "$T" "$T" "$T" "$T"
} >"$TMP/t.events"
expect_fail "derived of derived (no cycles possible)" "only base events" check_table t "$TMP/t.events" /dev/null
# generating C from a valid table
mkdir -p "$TMP/gen"
expect_ok "generate C" "$AWK" -v comp=gemini_tile -v out="$TMP/gen" -f "$GEN" \
    "$top_srcdir/components/gemini_tile/gemini_tile.events" "$top_srcdir/presets/gemini_tile.presets"
expect_ok "generated header" cat "$TMP/gen/gemini_tile_table.h"
expect_out "qualifier enum" "GEMINI_TILE_Q_LINK = 2"
expect_ok "generated table" cat "$TMP/gen/gemini_tile_table.c"
expect_out "derived term" "\{0, 3LL\}, /\* GM_TILE_PERF_VC0_PHIT_CNT \*/"
finish
