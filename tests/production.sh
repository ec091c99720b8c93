#!/bin/sh
# production.sh - `torusemu production` (utils/cmd_production.c): a short
# production period of a small Gemini torus writes a series that `torusemu
# series` and `torusemu analyze` read back (snapshot times, every d-link
# in every interval), the same seed gives the same file, another seed and
# the other allocator another one, and bad options are refused naming
# the problem.
. "${top_srcdir:-.}/tests/lib.sh"
P() { "$TORUSEMU" production "$@"; }
M=gemini:4x4x4

expect_ok "five minutes" P --machine $M --duration 5min --interval 60s --seed 3 \
    --series "$TMP/a.tser" -q
expect_out "six snapshots" '^period +5 min, 6 snapshots every 60 s$'
expect_out "topo by default" '^allocator +topo$'
expect_out "streams sent" '^streams +[1-9][0-9]* \('
expect_out "series named" "^series +$TMP/a.tser$"
[ ! -s "$TMP/err" ] && pass || failed "quiet: stderr not empty: $(cat "$TMP/err")"

# the series: snapshots at 0, 1, ... 5 min, ended properly
expect_ok "series summary" "$TORUSEMU" series --summary --format=csv "$TMP/a.tser"
expect_out "series header" "^gemini:4x4x4,[0-9]+,60000000000000,virtual,6,1$"

# analyze: 64 Geminis x 2 d-links per dimension x 5 intervals
expect_ok "analyze" "$TORUSEMU" analyze "$TMP/a.tser" --format=csv
for d in X Y Z; do
    expect_out "analyze $d" "^$d,640,"
done
expect_ok "analyze nodes" "$TORUSEMU" analyze "$TMP/a.tser" --report=nodes --format=csv
[ "$(wc -l <"$TMP/out")" -eq 6 ] && pass || failed "nodes: 5 intervals expected: $(cat "$TMP/out")"
expect_out "traffic in the first minute" '^0,0,60000000000000,128,[1-9][0-9]*,[1-9][0-9]*,'

# deterministic: the same seed, the same file; another seed, another one
expect_ok "again" P --machine $M --duration 5min --interval 60s --seed 3 --series "$TMP/b.tser" -q
cmp -s "$TMP/a.tser" "$TMP/b.tser" && pass || failed "the same seed gave another series"
expect_ok "seed 4" P --machine $M --duration 5min --interval 60s --seed 4 --series "$TMP/c.tser" -q
cmp -s "$TMP/a.tser" "$TMP/c.tser" && failed "seed 4 gave seed 3's series" || pass
expect_ok "nid" P --machine $M --duration 5min --interval 60s --seed 3 --allocator nid \
    --series "$TMP/d.tser" -q
expect_out "nid named" '^allocator +nid$'
cmp -s "$TMP/a.tser" "$TMP/d.tser" && failed "nid gave topo's series" || pass

# a period that is not a multiple of the interval ends with its own
# snapshot; progress lines without -q
expect_ok "90 s" P --machine $M --duration 90s --series "$TMP/e.tser"
expect_out "three snapshots" '^period +1.5 min, 3 snapshots every 60 s$'
grep -q '^torusemu: production: 1.5 of 1.5 min' "$TMP/err" && pass ||
    failed "progress line: $(cat "$TMP/err")"
expect_ok "hours" P --machine $M --hours 0.025 --interval 30s --series "$TMP/f.tser" -q
expect_out "hours as minutes" '^period +1.5 min, 4 snapshots every 30 s$'

# seed 004's figures over half an hour of 8x8x8 (doc/production.md's
# example; doc/model.md, "Seed 004 over a production period"), with both
# allocators.  Reproduced, asserted against the paper's statements (orders,
# so no tolerance on a magnitude): Z carries the most packets per d-link
# (Fig. 4a), and the inq stall exceeds the credit stall (IV.C: X 4.1 %
# against 3.1 % of d-link-minutes above 10 %) - here in every dimension,
# by the mean P_Ts (on the whole of Blue Waters only in Z: doc/model.md).
# Not reproduced, pinned at their measured values
# so that a change shows and the doc is updated: X carries the fewest
# packets (paper: Y), Y stalls most (paper: X), and no X+ credit P_Ts
# reaches Fig. 9's 40 % (no congestion region).
for a in topo nid; do
    expect_ok "seed 004 $a" P --machine gemini:8x8x8 --hours 0.5 --allocator $a --seed 1 \
        --series "$TMP/s4-$a.tser" -q
    expect_ok "seed 004 figures $a" "$TORUSEMU" analyze "$TMP/s4-$a.tser" --report=seed004 \
        --format=csv
    expect_out "$a: Z carries the most packets" '^most_packets,-,Z,Z,'
    expect_out "$a: inq above credit in every dimension" '^inq_over_credit,-,X Y Z,X,'
    expect_out "$a: X carries the fewest (not reproduced)" '^fewest_packets,-,X,Y,'
    expect_out "$a: Y inq-stalls most (not reproduced)" '^most_inq_stalled,-,Y,X,'
    expect_out "$a: Y credit-stalls most (not reproduced)" '^most_credit_stalled,-,Y,X,'
    expect_out "$a: no region (not reproduced)" '^regions,X\+,0,-,'
    # the margins of the two reproduced orders, from the per-dimension
    # means (columns ppm_mean, pts_inq_mean, pts_credit_mean), measured at
    # 4cb9843: Z's packets per d-link-minute 1.66 (topo) and 2.75 (nid)
    # times the next dimension's, asserted >= 1.5; each dimension's mean
    # inq P_Ts 10.7 to 31.6 times its credit P_Ts (X with nid: credit 0),
    # asserted >= 5 (doc/model.md: the paper's X, 4.1 against 3.1 %, is
    # 1.3 times; the flow level's credit stalls are not calibrated yet)
    expect_ok "seed 004 means $a" "$TORUSEMU" analyze "$TMP/s4-$a.tser" --format=csv
    margins=$(awk -F, '$1 ~ /^[XYZ]$/ { p[$1] = $3; i[$1] = $8; c[$1] = $11 }
        END {
            z = (p["Z"] >= 1.5 * p["X"] && p["Z"] >= 1.5 * p["Y"]) ? "z-ok" : "z-low"
            r = "inq-ok"
            for (d in i) { if (i[d] < 5 * c[d] || i[d] <= 0) { r = "inq-low-" d } }
            print z, r
        }' "$TMP/out")
    expect_eq "$a: Z >= 1.5 x the next, inq >= 5 x credit" "z-ok inq-ok" "$margins"
    # P_bu by dimension (IV.B: d-link-minutes above 5 %, Z 11, X 7.5,
    # Y 2.7 %), not reproduced: Y is highest with both allocators (it
    # carries more than X and half its d-links are the slow cables;
    # doc/model.md).  Pinned at the values measured on 2026-12-04 within
    # 15 % of each, and the order.
    case $a in
    topo) want="2.2 5.58 1.54" ;;
    nid) want="0.596 8.45 7.31" ;;
    esac
    expect_ok "seed 004 P_bu $a" "$TORUSEMU" analyze "$TMP/s4-$a.tser" --report=seed004 \
        --format=csv
    pbu=$(awk -F, -v want="$want" '$1 == "pbu_over5_pct" { got[$2] = $3 }
        END {
            split(want, w, " ")
            ok = got["Y"] > got["X"] && got["Y"] > got["Z"] ? "Y-highest" : "Y-not-highest"
            for (i = 1; i <= 3; i++) {
                d = substr("XYZ", i, 1)
                if (got[d] < 0.85 * w[i] || got[d] > 1.15 * w[i]) { ok = ok " " d "=" got[d] }
            }
            print ok
        }' "$TMP/out")
    expect_eq "$a: P_bu by dimension, Y highest (not reproduced)" "Y-highest" "$pbu"
done

# Congestion regions and their persistence (VI, Fig. 9: X+ credit regions
# at >= 40 %, three a day, the longest 2.25 h).  Two hours of 8x8x8 with
# topo (6 s of CPU): none at Fig. 9's threshold; below it, Y+ inq regions
# at >= 10 % exist and persist for minutes, not hours (doc/model.md,
# "Seed 004 over a production period").  Not reproduced, pinned at the
# values measured on 2026-12-04: 41 regions (within 25 %), the longest
# 11 minutes (within 3), peak 25 % (within 5).
expect_ok "two hours" P --machine gemini:8x8x8 --hours 2 --allocator topo --seed 1 \
    --series "$TMP/s4-2h.tser" -q
expect_ok "seed 004 regions" "$TORUSEMU" analyze "$TMP/s4-2h.tser" --report=seed004 --format=csv
expect_out "no X+ credit region at 40 % (not reproduced)" '^regions,X\+,0,-,'
expect_out "so none persists" '^longest_region_intervals,X\+,0,135,'
expect_ok "regions below Fig. 9's threshold" "$TORUSEMU" analyze "$TMP/s4-2h.tser" \
    --report=seed004 --format=csv --threshold=10 --feature=inq --feature-link=Y+
reg=$(awk -F, '$2 == "Y+" { v[$1] = $3 }
    END {
        ok = "ok"
        if (v["regions"] < 41 * 0.75 || v["regions"] > 41 * 1.25) { ok = "regions=" v["regions"] }
        if (v["longest_region_intervals"] < 8 || v["longest_region_intervals"] > 14) {
            ok = ok " longest=" v["longest_region_intervals"]
        }
        if (v["region_peak_pts"] < 20 || v["region_peak_pts"] > 30) { ok = ok " peak=" v["region_peak_pts"] }
        print ok
    }' "$TMP/out")
expect_eq "Y+ inq regions at 10 %: 41, the longest 11 minutes, peak 25" "ok" "$reg"

# SEED004_SCALE=bluewaters asserts the figures that appear only on the
# whole of Blue Waters (doc/model.md, "Seed 004 over a production
# period"): three minutes of gemini:24x24x24 with topo, about 150-250 s of
# CPU and 600 MiB, so not in make check.  Measured on 2026-12-04 (as on
# 2026-12-02): X credit-stalls most, then Y (mean P_Ts 1.05, 0.81, Z
# 0.09 %), Table I's X correlations 0.63 / 0.51 (paper 0.60 / 0.52,
# asserted within 0.1), X's d-link-minutes with credit P_Ts above 10 %
# 4.36 % (paper 3.1 %, asserted within a factor 1.5), 17 X+ credit regions
# at Fig. 9's 40 % (paper: three a day), Z the most packets.  Not
# reproduced, pinned: inq above credit only in Z (paper: X), Y inq-stalls
# most (paper: X), X the fewest packets (paper: Y).
case ${SEED004_SCALE:-} in
"") ;;
bluewaters)
    expect_ok "Blue Waters, 3 minutes" P --machine gemini:24x24x24 --duration 3min \
        --allocator topo --seed 1 --series "$TMP/bw.tser" -q
    expect_ok "Blue Waters figures" "$TORUSEMU" analyze "$TMP/bw.tser" --report=seed004 \
        --format=csv
    expect_out "BW: Z carries the most packets" '^most_packets,-,Z,Z,'
    expect_out "BW: X credit-stalls most" '^most_credit_stalled,-,X,X,'
    expect_out "BW: inq above credit only in Z (not reproduced)" '^inq_over_credit,-,Z,X,'
    expect_out "BW: Y inq-stalls most (not reproduced)" '^most_inq_stalled,-,Y,X,'
    expect_out "BW: X carries the fewest (not reproduced)" '^fewest_packets,-,X,Y,'
    bw=$(awk -F, '{ v[$1 "," $2] = $3 }
        END {
            ok = "ok"
            if ((v["corr_pbu_credit,X"] - 0.60) ^ 2 > 0.01) { ok = ok " credit-corr=" v["corr_pbu_credit,X"] }
            if ((v["corr_pbu_inq,X"] - 0.52) ^ 2 > 0.01) { ok = ok " inq-corr=" v["corr_pbu_inq,X"] }
            c = v["pts_credit_over10_pct,X"]
            if (c < 3.1 / 1.5 || c > 3.1 * 1.5) { ok = ok " credit-over10=" c }
            if (v["regions,X+"] < 1) { ok = ok " regions=" v["regions,X+"] }
            print ok
        }' "$TMP/out")
    expect_eq "BW: Table I's X, X's credit P_Ts above 10 %, regions at 40 %" "ok" "$bw"
    expect_ok "Blue Waters means" "$TORUSEMU" analyze "$TMP/bw.tser" --format=csv
    order=$(awk -F, '$1 ~ /^[XYZ]$/ { c[$1] = $11 }
        END { print (c["X"] > c["Y"] && c["Y"] > c["Z"]) ? "X>Y>Z" : c["X"] " " c["Y"] " " c["Z"] }' \
        "$TMP/out")
    expect_eq "BW: credit P_Ts mean X, then Y, then Z" "X>Y>Z" "$order"
    ;;
*)
    echo "production.sh: SEED004_SCALE '$SEED004_SCALE': expected bluewaters" >&2
    exit 99
    ;;
esac

# bad input
expect_fail "no series" "--series FILE is required" P --machine $M
expect_fail "allocator" "--allocator 'best': expected topo or nid" \
    P --series "$TMP/x.tser" --allocator best
expect_fail "hours 0" "--hours '0': expected a number above 0" P --series "$TMP/x.tser" --hours 0
expect_fail "hours word" "--hours 'two': expected a number above 0" \
    P --series "$TMP/x.tser" --hours two
expect_fail "both" "--hours and --duration both give the period" \
    P --series "$TMP/x.tser" --hours 1 --duration 5min
expect_fail "interval" "--interval '0s': expected a positive time" \
    P --series "$TMP/x.tser" --interval 0s
expect_fail "load" "--load '-1': expected a number above 0" P --series "$TMP/x.tser" --load -1
expect_fail "node-gbs" "--node-gbs 'fast': expected a number above 0" \
    P --series "$TMP/x.tser" --node-gbs fast
expect_fail "seed" "--seed 'x': expected a whole number" P --series "$TMP/x.tser" --seed x
expect_fail "not Gemini" "bgq:2x2x2x2x2: a production period runs on a Gemini machine" \
    P --machine bgq:2x2x2x2x2 --series "$TMP/x.tser"
expect_fail "bad machine" "gemini:0x1x1" P --machine gemini:0x1x1 --series "$TMP/x.tser"
expect_fail "argument" "unexpected argument 'extra'" P --series "$TMP/x.tser" extra
expect_fail "series directory" "$TMP/none/x.tser" \
    P --machine $M --duration 1min --series "$TMP/none/x.tser"
[ ! -e "$TMP/x.tser" ] && pass || failed "a refused run left a series"
finish
