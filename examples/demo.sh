#!/bin/sh
# demo.sh BUILD_DIR - the main job of papi-torus (`make demo`).
#
# The first all-to-all of a 3-D FFT with a 2-D processor grid (McCraw 2013
# section 4): 32 ranks, 8 rows of 4, 16 KiB per pair, 4 ranks per node on
# 8 nodes.  The application (examples/rowa2a_papi) reads network counters
# through PAPI and prints them per node; it runs twice on each machine -
# under the default mapping, where the 4 members of a row sit on 4 nodes,
# and under a map that puts each row on one node (McCraw 2013 Table 5) - and
# the two columns are printed side by side, on a Blue Gene/Q node board and
# on a small Cray Gemini torus.  It ends by drawing the Gemini runs' traffic
# on every link, the two mappings side by side (torusemu plot --compare
# --whole-machine), into $DEMO_PNG (default BUILD_DIR/demo-gemini.png), the
# values drawn beside it (the same name ending in .csv).
set -eu
B=${1:-_build}
PNG=${DEMO_PNG:-$(cd "$B" && pwd)/demo-gemini.png}
DATA=${PNG%.png}.csv
T=$(mktemp -d "${TMPDIR:-/tmp}/papi-torus-demo.XXXXXX")
trap 'rm -rf "$T"' EXIT
ROWS=8 COLS=4 BYTES=16384 RPN=4
NP=$((ROWS * COLS))

# run MACHINE TAG [--map FILE]: one job, per-node lines into $T/TAG
run() {
    machine=$1 tag=$2
    shift 2
    "$B/torusemu" run --machine "$machine" --ranks-per-node $RPN --keep "$T/$tag.store" "$@" -np $NP -- \
        "$B/examples/rowa2a_papi" --rows $ROWS --cols $COLS --bytes $BYTES \
        >"$T/$tag" 2>"$T/$tag.err" || {
        cat "$T/$tag.err" >&2
        exit 1
    }
}

# side_by_side TITLE A B: join two runs' "node NAME k=v ..." lines
side_by_side() {
    echo "== $1"
    awk -v left="$T/$2" -v right="$T/$3" '
        function fields(line, arr,    n, i, kv) {
            n = split(line, f, " ")
            for (i = 3; i <= n; i++) { split(f[i], kv, "="); arr[i - 2] = kv[2]; name[i - 2] = kv[1] }
            return n - 2
        }
        BEGIN {
            while ((getline line < left) > 0) {
                split(line, f, " ")
                key = (f[1] == "total") ? "total" : f[2]
                if (f[1] == "total") { line = "x " line }
                order[++nk] = key
                nc = fields(line, v); for (c = 1; c <= nc; c++) L[key, c] = v[c]
            }
            while ((getline line < right) > 0) {
                split(line, f, " ")
                key = (f[1] == "total") ? "total" : f[2]
                if (f[1] == "total") { line = "x " line }
                nc = fields(line, v); for (c = 1; c <= nc; c++) R[key, c] = v[c]
            }
            w = 15; block = nc * (w + 1)
            printf "%-22s | %-*s | %-*s\n", "", block - 1, "default mapping", block - 1, "one row per node"
            printf "%-22s", "node"
            for (s = 0; s < 2; s++) { printf " |"; for (c = 1; c <= nc; c++) printf " %*s", w, name[c] }
            printf "\n"
            for (k = 1; k <= nk; k++) {
                key = order[k]
                printf "%-22s", key
                printf " |"; for (c = 1; c <= nc; c++) printf " %*s", w, L[key, c]
                printf " |"; for (c = 1; c <= nc; c++) printf " %*s", w, R[key, c]
                printf "\n"
            }
        }'
    echo
}

describe() {
    printf '%s ranks, %s rows of %s, %s bytes per pair, %s ranks per node\n' \
        $NP $ROWS $COLS $BYTES $RPN
}

echo "papi-torus main job: a 3-D FFT's row all-to-all read through PAPI (McCraw 2013 section 4)"
describe
echo

for machine in nodeboard gemini-tiny; do
    "$B/examples/rowa2a" --rows $ROWS --cols $COLS --map-out "$T/$machine.map" \
        --machine "$machine" >/dev/null
    run "$machine" "$machine.default"
    run "$machine" "$machine.rows" --map "$T/$machine.map"
done

side_by_side "Blue Gene/Q node board (bgq:2x2x2x2x2, torus in E), bgq_nwunit:
   chunks_sent  = PEVT_NW_USER_PP_SENT, 32-byte chunks sent on all 11 links (pass-through included)
   packets_recv = PEVT_NW_USER_PP_RECV, packets received" nodeboard.default nodeboard.rows
side_by_side "Cray Gemini 2x2x2 (16 nodes), gemini_tile, per Gemini router:
   net_phits_in   = GM_LINK_PHITS over X+ X- Y+ Y- Z+ Z-: phits arriving from the torus
   host_phits_out = GM_LINK_PHITS:link=HH: phits the router's two nodes injected" \
    gemini-tiny.default gemini-tiny.rows
echo "With one row per node the all-to-all never leaves a node and every network count is 0,"
echo "as with the customized mapping of McCraw 2013 Table 5(b)."

# the picture: every link of the Gemini torus under both mappings
"$B/torusemu" plot "$T/gemini-tiny.default.store" --compare "$T/gemini-tiny.rows.store" \
    --whole-machine -o "$PNG" --data "$DATA"
echo
echo "Picture of the Gemini run's per-link traffic, every link, default mapping (left) and"
echo "one row per node (right): $PNG"
echo "The values drawn (CSV, doc/cli.md): $DATA"
