#!/bin/sh
# plot.sh - `torusemu plot` (utils/cmd_plot.c) writes well-formed, non-empty
# PNG pictures through gnuplot: the PNG signature, an IHDR chunk first with
# the size the script asks for; and refuses bad input with the reason.
# --metric stall and --compare: the values drawn (--data CSV) equal the
# store's counters summed here from `torusemu dump`, and both panels share
# one colour scale (a stand-in gnuplot keeps the script).
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v "${TORUSEMU_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    echo "gnuplot not found (Debian: gnuplot-nox; build-aux/setup.sh installs it): skipped"
    exit 77
fi

# png_ok DESC FILE WIDTH HEIGHT: signature 89 50 4E 47 0D 0A 1A 0A, then the
# IHDR chunk (length 13) holding the width and height (big-endian)
png_ok() {
    got=$(od -An -tx1 -N24 "$2" 2>/dev/null | tr -d ' \n')
    want=89504e470d0a1a0a0000000d49484452$(printf '%08x%08x' "$3" "$4")
    if [ "$got" = "$want" ] && [ "$(wc -c <"$2")" -gt 1000 ]; then pass; else
        failed "$1: not a ${3}x$4 PNG: $got"
    fi
}

"$TORUSEMU" create "$TMP/g.store" --machine gemini:4x4x2 >/dev/null
"$TORUSEMU" inject "$TMP/g.store" --src 0 --dst 2,3,1 --bytes 64k
expect_ok "plane" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/plane.png"
png_ok "plane" "$TMP/plane.png" 900 760
expect_ok "plane X,Z at 0,2,0" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/xz.png" --dims X,Z --at 0,2,0
png_ok "plane X,Z" "$TMP/xz.png" 900 760
expect_ok "tiles" "$TORUSEMU" plot "$TMP/g.store" --tiles 0,0,0 -o "$TMP/tiles.png"
png_ok "tiles" "$TMP/tiles.png" 900 640
"$TORUSEMU" create "$TMP/q.store" --machine bgq:2x2x1x1x2 >/dev/null
"$TORUSEMU" inject "$TMP/q.store" --src 0 --dst 1,1,0,0,1 --bytes 4096
expect_ok "bgq plane A,E" "$TORUSEMU" plot "$TMP/q.store" --dims a,e -o "$TMP/q.png"
png_ok "bgq plane" "$TMP/q.png" 900 760
# --metric stall on the store of a timed replay where flows compete (tornado
# on gemini-tiny): per router and link of plane X-Y at Z=0, INQ_STALL +
# CREDIT_STALL summed over the link's tiles, summed here from dump's tile rows
"$TORUSEMU" replay --machine gemini-tiny --pattern tornado --bytes 64K --timing --quiet \
    --keep "$TMP/ta.store" >/dev/null
"$TORUSEMU" replay --machine gemini-tiny --pattern tornado --bytes 64K --timing --quiet \
    --map random:7 --keep "$TMP/tb.store" >/dev/null
# stall_sums STORE PANEL: "panel router link value" of the X/Y links at z=0
stall_sums() {
    "$TORUSEMU" dump "$1" --tiles --all --format csv | awk -F, -v p="$2" '
        $6 == "INQ_STALL" || $6 == "CREDIT_STALL" {
            split($3, c, " ")
            if (c[3] == 0 && $4 ~ /^[XY][+-]$/) { s[$1 " " $4] += $7 }
        }
        END { for (k in s) print p, k, s[k] }' | sort
}
# plotted PANEL CSV: the same columns from plot's --data
plotted() { awk -F, -v p="$1" 'NR > 1 && $1 == p { print $1, $2, $4, $6 }' "$2" | sort; }
expect_ok "stall plane" "$TORUSEMU" plot "$TMP/ta.store" --metric stall -o "$TMP/stall.png" \
    --data "$TMP/stall.csv"
png_ok "stall plane" "$TMP/stall.png" 900 760
stall1=$(stall_sums "$TMP/ta.store" 1)
expect_eq "stall plane values = dump's stall counters" "$stall1" "$(plotted 1 "$TMP/stall.csv")"
expect_eq "stall plane: 16 link ends" 16 "$(echo "$stall1" | wc -l)"
[ "$(echo "$stall1" | awk '{ t += $4 } END { print (t > 0) }')" = 1 ] && pass ||
    failed "the tornado store holds no stall counts"
# the tile map: per tile of router 1,0,0 (id 4), INQ_STALL + CREDIT_STALL
expect_ok "stall tiles" "$TORUSEMU" plot "$TMP/ta.store" --metric stall --tiles 1,0,0 \
    -o "$TMP/stiles.png" --data "$TMP/stiles.csv"
png_ok "stall tiles" "$TMP/stiles.png" 900 640
expect_eq "stall tile values = dump's" \
    "$("$TORUSEMU" dump "$TMP/ta.store" --tiles --all --format csv | awk -F, '
        $1 == 4 && ($6 == "INQ_STALL" || $6 == "CREDIT_STALL") { s[$5] += $7 }
        END { for (t in s) print t, s[t] }' | sort -n)" \
    "$(awk -F, 'NR > 1 { print $5, $6 }' "$TMP/stiles.csv" | sort -n)"
# --compare: two mappings side by side, each panel its store's values
expect_ok "compare" "$TORUSEMU" plot "$TMP/ta.store" --compare "$TMP/tb.store" --metric stall \
    -o "$TMP/cmp.png" --data "$TMP/cmp.csv"
png_ok "compare" "$TMP/cmp.png" 1800 760
expect_eq "compare panel 1" "$stall1" "$(plotted 1 "$TMP/cmp.csv")"
stall2=$(stall_sums "$TMP/tb.store" 2)
expect_eq "compare panel 2" "$stall2" "$(plotted 2 "$TMP/cmp.csv")"
[ "$stall1" != "$(echo "$stall2" | sed 's/^2/1/')" ] && pass ||
    failed "the two mappings gave the same stalls: the comparison shows nothing"
# one colour scale: 0 to the largest value of both panels
cat >"$TMP/fakegp" <<EOF
#!/bin/sh
cp "\$1" "$TMP/kept.gp"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo picture >"\$out"
EOF
chmod +x "$TMP/fakegp"
TORUSEMU_GNUPLOT="$TMP/fakegp" "$TORUSEMU" plot "$TMP/ta.store" --compare "$TMP/tb.store" \
    --metric stall -o "$TMP/fake.png" >/dev/null
max=$(printf '%s\n%s\n' "$stall1" "$stall2" | awk '$4 > m { m = $4 } END { print m }')
expect_eq "one colour range" "set cbrange [0:$max]" "$(grep -o 'set cbrange.*]' "$TMP/kept.gp")"
expect_eq "two panels" "2" "$(grep -c '^plot ' "$TMP/kept.gp")"
expect_eq "small values: no multiplier" "cbscale = 1" "$(grep '^cbscale' "$TMP/kept.gp")"
# large values: the colour bar's ticks are the values over a power of 1000
# named in its label (long tick labels ran into the label in --compare):
# 64 MiB from router 0 to 2,3,1 put millions of phits on a link
"$TORUSEMU" create "$TMP/big1.store" --machine gemini:4x4x2 >/dev/null
"$TORUSEMU" create "$TMP/big2.store" --machine gemini:4x4x2 >/dev/null
"$TORUSEMU" inject "$TMP/big1.store" --src 0 --dst 2,3,1 --bytes 64M
"$TORUSEMU" inject "$TMP/big2.store" --src 0 --dst 3,1,1 --bytes 32M
TORUSEMU_GNUPLOT="$TMP/fakegp" "$TORUSEMU" plot "$TMP/big1.store" --compare "$TMP/big2.store" \
    -o "$TMP/fake.png" --data "$TMP/big.csv" >/dev/null
bigmax=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { printf "%.6g", m / 1e6 }' "$TMP/big.csv")
[ "$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print (m >= 1e6 && m < 1e9) }' "$TMP/big.csv")" = 1 ] &&
    pass || failed "64 MiB: the largest value is not in the millions"
expect_eq "large values: x10^6" "cbscale = 1e6" "$(grep '^cbscale' "$TMP/kept.gp")"
expect_eq "large values: range in millions" "set cbrange [0:$bigmax]" \
    "$(grep -o 'set cbrange.*]' "$TMP/kept.gp")"
expect_eq "large values: the label names the multiplier" \
    "set cblabel 'phits arrived (VC0+VC1) (x10^{6})'" "$(grep '^set cblabel' "$TMP/kept.gp")"
expect_eq "large values: both panels divided" 2 "$(grep -c 'using 1:2:3:4:(\$5/cbscale)' "$TMP/kept.gp")"
# the real picture of the same
expect_ok "large compare" "$TORUSEMU" plot "$TMP/big1.store" --compare "$TMP/big2.store" \
    -o "$TMP/big.png"
png_ok "large compare" "$TMP/big.png" 1800 760
# BG/P: NO_TOKENS of the sending links; both X-Y planes of bgp-16 (Z = 0
# and 1) hold every X and Y link, their sum is the series' total of them
"$TORUSEMU" replay --machine bgp-16 -np 16 --pattern random --bytes 256K --timing --quiet \
    --series "$TMP/p.tser" --interval 1s --keep "$TMP/pt.store" >/dev/null
for z in 0 1; do
    expect_ok "bgp stall z=$z" "$TORUSEMU" plot "$TMP/pt.store" --metric stall --at 0,0,$z \
        -o "$TMP/pz$z.png" --data "$TMP/pz$z.csv"
done
ntok=$("$TORUSEMU" series "$TMP/p.tser" --all --format csv | awk -F, '
    $4 ~ / [XY][+-] NO_TOKENS$/ { if ($5 > v[$4]) v[$4] = $5 } END { for (k in v) t += v[k]; print t + 0 }')
[ "$ntok" -gt 0 ] && pass || failed "bgp random: no NO_TOKENS cycles"
expect_eq "bgp stall = series' NO_TOKENS" "$ntok" \
    "$(awk -F, 'NR > 1 { t += $6 } END { print t + 0 }' "$TMP/pz0.csv" "$TMP/pz1.csv")"
# no temporary files are left behind
mkdir "$TMP/t"
TMPDIR="$TMP/t" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/again.png" >/dev/null 2>&1
[ -z "$(ls -A "$TMP/t")" ] && pass || failed "plot left $(ls "$TMP/t") in TMPDIR"

# --whole-machine: every torus link of a BG/Q midplane (4x4x4x4x2, 512
# nodes x 10 links) once; the values are dump's SENT_CHUNKS summed over the
# VCs per node and link (the IO link is no torus link)
"$TORUSEMU" replay --machine midplane --pattern tornado --bytes 4K --quiet \
    --keep "$TMP/m.store" >/dev/null
expect_ok "whole midplane" "$TORUSEMU" plot "$TMP/m.store" --whole-machine -o "$TMP/m.png" \
    --data "$TMP/m.csv"
# size by hand from doc/cli.md's geometry: 95 x 98 units at 16 pixels,
# plus the margins (300 and 200)
png_ok "whole midplane" "$TMP/m.png" 1820 1768
chunks=$("$TORUSEMU" dump "$TMP/m.store" --all --format csv | awk -F, '
    $6 ~ /^SENT_CHUNKS_VC/ && $4 != "IO" { s[$1 " " $4] += $7 } END { for (k in s) print 1, k, s[k] }' |
    sort)
expect_eq "whole midplane: dump's chunks" "$chunks" "$(plotted 1 "$TMP/m.csv")"
expect_eq "whole midplane: 512 x 10 links" $((4 * 4 * 4 * 4 * 2 * 10)) "$(echo "$chunks" | wc -l)"
[ "$(echo "$chunks" | awk '$4 > 0 { n++ } END { print (n > 100) }')" = 1 ] && pass ||
    failed "the tornado leaves few links with traffic"
# the picture's cells: a stand-in gnuplot keeps the data drawn ("x y value"
# per cell, in --data's order); each cell's value is --data's, no two cells
# share a place, and the layout is C, E, A, sign across and D, B,
# dimension down (C groups, E's panels side by side, routers, - then +)
cat >"$TMP/keepdata" <<EOF
#!/bin/sh
cp "\$(dirname "\$1")/data1" "$TMP/drawn"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo picture >"\$out"
EOF
chmod +x "$TMP/keepdata"
TORUSEMU_GNUPLOT="$TMP/keepdata" "$TORUSEMU" plot "$TMP/m.store" --whole-machine \
    -o "$TMP/fake.png" >/dev/null
expect_eq "whole: values drawn = --data" "$(awk -F, 'NR > 1 { print $6 }' "$TMP/m.csv")" \
    "$(awk '{ print $3 }' "$TMP/drawn")"
expect_eq "whole: one cell per link" 5120 "$(awk '{ print $1, $2 }' "$TMP/drawn" | sort -u | wc -l)"
# monotone COLUMN: the keys in $TMP/cells (one per cell) sorted by the
# picture's column COLUMN (1: x, 2: y) must rise strictly with it, one key
# per position; prints the number of violations
monotone() {
    paste -d' ' "$TMP/drawn" "$TMP/cells" | awk -v col="$1" '{ print $col, $4 }' | sort -u |
        sort -g -k1,1 | awk 'NR > 1 && ($2 <= k || $1 == x) { bad++ } { x = $1; k = $2 }
            END { print bad + 0 }'
}
# across: C groups, E's panels, A, then - before +; down: D, B, dimension
awk -F, 'NR > 1 { split($3, c, " "); print ((c[3] * 2 + c[5]) * 4 + c[1]) * 2 + (substr($4, 2) == "+") }' \
    "$TMP/m.csv" >"$TMP/cells"
expect_eq "whole: across = C, E, A, - +" 0 "$(monotone 1)"
awk -F, 'NR > 1 { split($3, c, " "); print (c[4] * 4 + c[2]) * 5 + index("ABCDE", substr($4, 1, 1)) - 1 }' \
    "$TMP/m.csv" >"$TMP/cells"
expect_eq "whole: down = D, B, dimension" 0 "$(monotone 2)"
# a mesh: the node board (2x2x2x2x2, only E wraps) has 1 link per node in
# each of A-D and 2 in E: 32 x 6
"$TORUSEMU" create "$TMP/nb.store" --machine nodeboard >/dev/null
"$TORUSEMU" inject "$TMP/nb.store" --src 0 --dst 1,1,1,1,1 --bytes 4096
expect_ok "whole node board" "$TORUSEMU" plot "$TMP/nb.store" --whole-machine -o "$TMP/nb.png" \
    --data "$TMP/nb.csv"
expect_eq "whole node board: 32 x 6 links" 192 "$(($(wc -l <"$TMP/nb.csv") - 1))"
# Gemini with --metric stall and --compare: the tornado stores above, per
# router and link INQ_STALL + CREDIT_STALL over its tiles, in both panels
expect_ok "whole gemini compare" "$TORUSEMU" plot "$TMP/ta.store" --compare "$TMP/tb.store" \
    --metric stall --whole-machine -o "$TMP/wg.png" --data "$TMP/wg.csv"
png_ok "whole gemini compare" "$TMP/wg.png" 1600 600
all_stalls() {
    "$TORUSEMU" dump "$1" --tiles --all --format csv | awk -F, -v p="$2" '
        ($6 == "INQ_STALL" || $6 == "CREDIT_STALL") && $4 != "HH" { s[$1 " " $4] += $7 }
        END { for (k in s) print p, k, s[k] }' | sort
}
expect_eq "whole gemini panel 1" "$(all_stalls "$TMP/ta.store" 1)" "$(plotted 1 "$TMP/wg.csv")"
expect_eq "whole gemini panel 2" "$(all_stalls "$TMP/tb.store" 2)" "$(plotted 2 "$TMP/wg.csv")"
expect_eq "whole gemini: 2 panels x 8 x 6 links" 96 "$(($(wc -l <"$TMP/wg.csv") - 1))"
# a picture wider than a PNG can be is refused before anything is written:
# gemini:1024x1x10 has Z panels 4 to a row (ceil(sqrt(10))), each 1024
# routers x 2.5 units + 1.5 apart: 4 x 2561.5 - 1.5 = 10244.5 units at the
# least 2 pixels + 300 = 20789 pixels, two panels (--compare) 41578 > 32767;
# 3 rows of 1 x 3.5 + 2.5 units: 36 + 200 pixels, raised to 600
"$TORUSEMU" create "$TMP/wide.store" --machine gemini:1024x1x10 >/dev/null
expect_fail "whole too wide" "gemini:1024x1x10 takes 41578 x 600 pixels" "$TORUSEMU" plot \
    "$TMP/wide.store" --compare "$TMP/wide.store" --whole-machine -o "$TMP/wide.png" \
    --data "$TMP/wide.csv"
[ ! -e "$TMP/wide.png" ] && [ ! -e "$TMP/wide.csv" ] && pass || failed "too wide: files left"
expect_fail "whole with dims" "--whole-machine draws every link: it takes no --tiles, --dims" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --whole-machine --dims X,Z

expect_fail "no output" "missing -o FILE.png" "$TORUSEMU" plot "$TMP/g.store"
expect_fail "no store" "missing STORE" "$TORUSEMU" plot -o "$TMP/x.png"
expect_fail "bad dims" "--dims 'X,X' is not two different dimensions" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --dims X,X
expect_fail "bgq dims" "--dims 'X,Y' is not two different dimensions of bgq" \
    "$TORUSEMU" plot "$TMP/q.store" -o "$TMP/x.png" --dims X,Y
expect_fail "tiles on bgq" "--tiles applies to Gemini machines only" \
    "$TORUSEMU" plot "$TMP/q.store" -o "$TMP/x.png" --tiles 0
expect_fail "router out of range" "no router 32 on gemini:4x4x2 (0..31 or coordinates)" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --tiles 32
expect_fail "not a store" "session store" "$TORUSEMU" plot "$TMP/plane.png" -o "$TMP/x.png"
expect_fail "gnuplot missing" "cannot run $TMP/none" \
    env TORUSEMU_GNUPLOT="$TMP/none" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png"
expect_fail "gnuplot fails" "false failed (status 1)" \
    env TORUSEMU_GNUPLOT=false "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png"
expect_fail "bad metric" "--metric 'load' is neither traffic nor stall" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --metric load
expect_fail "compare machines" \
    "--compare needs two stores of one machine: $TMP/g.store is gemini:4x4x2, $TMP/q.store is bgq:2x2x1x1x2" \
    "$TORUSEMU" plot "$TMP/g.store" --compare "$TMP/q.store" -o "$TMP/x.png"
expect_fail "stall without timing" "no stall counts in $TMP/g.store: plot the store of" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --metric stall
"$TORUSEMU" create "$TMP/p.store" --machine bgp:2x2x1 >/dev/null
"$TORUSEMU" inject "$TMP/p.store" --src 0 --dst 1,1,0 --bytes 4096
expect_ok "bgp traffic" "$TORUSEMU" plot "$TMP/p.store" -o "$TMP/p.png"
expect_fail "bgp stall without timing" "no stall counts in $TMP/p.store" \
    "$TORUSEMU" plot "$TMP/p.store" -o "$TMP/x.png" --metric stall
finish
