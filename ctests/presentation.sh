#!/bin/sh
# presentation.sh - how PAPI and its utilities present the components'
# events (doc/components.md, "How events are presented"):
#   - every event has a short description of its own (1..63 characters, not
#     the long one cut short) and units;
#   - no description holds a ':' before the " masks:" tag, so papi_avail -e
#     (which splits at the first ':') shows each qualifier's own text;
#   - a qualifier value's text says what that value selects;
#   - papi_native_avail prints "Units:" once per event, not once per value,
#     while a qualified event looked up by name keeps its units.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
unset TORUSEMU_SESSION TORUSEMU_NODE TORUSEMU_RANK

# ------------------------------------------ every event, through the API
cat >"$TMP/info.c" <<'PROG'
#include <papi.h>
#include <stdio.h>
#include <string.h>

static int bad;
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL "); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

int main(int argc, char **argv)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        printf("FAIL PAPI_library_init\n");
        return 1;
    }
    for (int a = 1; a < argc; a++) {
        int cidx = PAPI_get_component_index(argv[a]), code = PAPI_NATIVE_MASK, events = 0, values = 0;
        CHECK(cidx >= 0, "%s: no such component", argv[a]);
        if (cidx < 0 || PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK) {
            continue;
        }
        do {
            PAPI_event_info_t ev, q, named;
            if (PAPI_get_event_info(code, &ev) != PAPI_OK) {
                CHECK(0, "%s: no info for code %#x", argv[a], code);
                continue;
            }
            events++;
            size_t n = strlen(ev.short_descr);
            CHECK(n >= 8 && n <= 63, "%s: short description of %zu characters", ev.symbol, n);
            CHECK(strncmp(ev.long_descr, ev.short_descr, n) != 0,
                  "%s: short description '%s' is the long one cut short", ev.symbol, ev.short_descr);
            CHECK(strchr(ev.long_descr, ':') == NULL, "%s: ':' in its description", ev.symbol);
            CHECK(ev.units[0] != '\0', "%s: no units", ev.symbol);
            int u = code;
            if (PAPI_enum_cmp_event(&u, PAPI_NTV_ENUM_UMASKS, cidx) != PAPI_OK) {
                continue;
            }
            do {
                if (PAPI_get_event_info(u, &q) != PAPI_OK) {
                    CHECK(0, "%s: no info for qualifier code %#x", ev.symbol, u);
                    continue;
                }
                values++;
                const char *tag = strstr(q.long_descr, " masks:");
                CHECK(tag != NULL && strchr(q.long_descr, ':') == tag + 6 && tag[7] != '\0',
                      "%s: the first ':' is not the masks: tag", q.symbol);
                CHECK(q.units[0] == '\0', "%s: units repeated on a listed qualifier value", q.symbol);
                int by_name;
                CHECK(PAPI_event_name_to_code(q.symbol, &by_name) == PAPI_OK &&
                          PAPI_get_event_info(by_name, &named) == PAPI_OK &&
                          strcmp(named.units, ev.units) == 0,
                      "%s: looked up by name, units are not %s", q.symbol, ev.units);
            } while (PAPI_enum_cmp_event(&u, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
        } while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
        printf("%s: %d events, %d listed qualifier values\n", argv[a], events, values);
    }
    return bad != 0;
}
PROG
expect_ok "compile the info checker" cc -o "$TMP/info" "$TMP/info.c" -I"$PAPI_PREFIX/include" \
    -L"$PAPI_PREFIX/lib" -lpapi -Wl,-rpath,"$PAPI_PREFIX/lib"
# shellcheck disable=SC2086
expect_ok "every event's info" "$TMP/info" $PAPI_COMPONENTS
# the event counts of the tables (ctests/tables.sh), and the listed values:
# gemini 6 x 48 tiles + 5 x 7 links; bgq_nwunit 35 x 18 links + 4 vc
# defaults; bgq_l2unit 17 x 16 slices
expect_out "gemini_tile listed" "^gemini_tile: 25 events, 323 listed qualifier values$"
expect_out "bgp_torus listed" "^bgp_torus: 72 events, 0 listed qualifier values$"
expect_out "bgq_nwunit listed" "^bgq_nwunit: 35 events, 634 listed qualifier values$"
expect_out "bgq_l2unit listed" "^bgq_l2unit: 34 events, 272 listed qualifier values$"
expect_out "bgq_iounit listed" "^bgq_iounit: 48 events, 0 listed qualifier values$"
expect_out "bgq_cnkunit listed" "^bgq_cnkunit: 30 events, 0 listed qualifier values$"

# ------------------------------------------------ "Units:" once per event
expect_ok "papi_native_avail" "$PAPI_BIN/papi_native_avail"
awk '/Native Events in Component: (gemini_tile|bgp_torus|bgq_)/ { on = 1; next }
     /Native Events in Component:/ { on = 0 }
     on && /^\| [^ ]/ { ev = $2; units[ev] = 0 }
     on && /Units:/ { units[ev]++ }
     END { for (e in units) if (units[e] != 1) { print e, units[e]; bad = 1 }; exit bad }' \
    "$TMP/out" >"$TMP/units" && pass || failed "events without exactly one Units: line: $(head -n 5 "$TMP/units")"
n=$(grep -c "Units:" "$TMP/out")
[ "$n" -ge 239 ] && pass || failed "only $n Units: lines for 239 component events"

# ---------------------------------- papi_avail -e: each value's own text
expect_ok "papi_avail -e GM_LINK_BYTES" "$PAPI_BIN/papi_avail" -e GM_LINK_BYTES
expect_out "X- value" "Mask Info: +\|:::GM_LINK_BYTES:link=X-\|the X- link, 8 tiles, traffic arriving from the X- neighbour\|$"
expect_out "Y+ value" "Mask Info: +\|:::GM_LINK_BYTES:link=Y\+\|the Y\+ link, 4 tiles, traffic arriving from the Y\+ neighbour\|$"
expect_out "HH value" "Mask Info: +\|:::GM_LINK_BYTES:link=HH\|the 8 host tiles, traffic from this Gemini's two nodes\|$"
expect_ok "papi_avail -e tile event" "$PAPI_BIN/papi_avail" -e GM_TILE_PERF_VC1_PKT_CNT
expect_out "tile value" "Mask Info: +\|:::GM_TILE_PERF_VC1_PKT_CNT:5:7\|tile in row 5; column 7 of the 6 x 8 tile grid\|$"

# -------------------------- papi_native_avail -e: masks named by channel
expect_ok "native_avail -e vc mask" "$PAPI_BIN/papi_native_avail" -e PEVT_NW_SENT:vc=0x70
# 0x70 = 0x40 + 0x20 + 0x10 = VCs 0, 1, 2 (bit 0x40 >> VC)
expect_out "0x70 spelled out" "masks:virtual-channel mask 0x70 = user dynamic \(VC 0\) \+ user escape \(VC 1\) \+ user high priority \(VC 2\)$"
expect_ok "native_avail -e vc 0x05" "$PAPI_BIN/papi_native_avail" -e PEVT_NW_RECV:vc=0x05:link=C
expect_out "link and mask" "masks:both C links, C- and C\+; virtual-channel mask 0x5 = world collective \(VC 4\) \+ system collective \(VC 6\)$"
expect_ok "native_avail -e slices" "$PAPI_BIN/papi_native_avail" -e PEVT_L2_HITS_SLICE
expect_out "slice 5" "Info: +:slice=5 -- L2 slice 5 alone, the lines whose \(address / 128\) mod 16 is 5 "
expect_ok "native_avail -e links" "$PAPI_BIN/papi_native_avail" -e PEVT_NW_USER_PP_SENT
expect_out "TORUS value" "Info: +:link=TORUS -- the 10 torus links, not the I/O link$"
finish
