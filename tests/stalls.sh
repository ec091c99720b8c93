#!/bin/sh
# stalls.sh - `torusemu stalls` (utils/cmd_stalls.c): per-dimension stall
# counters of one or two stores, as seed 000 Fig. 7 shows them.  Exact
# cases whose sums are worked out here by hand (counters set with
# tests/store_write, tiles named by Pedretti 2013 Fig. 3's map); timed
# replays whose sums are computed here independently, by awk over `dump
# --tiles` (Gemini) or over the replay's series (Blue Gene); the picture
# and its data; errors.
. "${top_srcdir:-.}/tests/lib.sh"
SW="$top_builddir/tests/store_write"

# --- exact: gemini:2x2x1, 4 Geminis.  Tiles (row-major, 8 a row): 2 is
# X+, 4 X-, 34 Y-, 45 Y+, 0 Z+, 19 HH.  INQ_STALL (counter 4): Gemini 1
# X+ 100 + X- 50 = 150, Gemini 0 X+ 70; X total 220, mean 55, max 150 at
# Gemini 1 (c0-0c0s0g1, coordinates 0 1 0).  Gemini 3 Y- 11 + Y+ 4 = 15:
# mean 3.75.  CREDIT_STALL (5): Gemini 0 Z+ 8 (mean 2), Gemini 2's host
# tile 9 (mean 2.25).  A dimension without stalls names no Gemini.
"$TORUSEMU" create "$TMP/e.store" --machine gemini:2x2x1 >/dev/null
"$SW" "$TMP/e.store" <<'EOT'
tile 1 2 4 100
tile 1 4 4 50
tile 0 2 4 70
tile 3 34 4 11
tile 3 45 4 4
tile 0 0 5 8
tile 2 19 5 9
EOT
expect_ok "exact csv" "$TORUSEMU" stalls "$TMP/e.store" --format=csv
S="$TMP/e.store"
cat >"$TMP/want" <<EOT
metric,dim,store,routers,total,mean,max,max_router,max_at
INQ_STALL,X,$S,4,220,55,150,1,c0-0c0s0g1
INQ_STALL,Y,$S,4,15,3.75,15,3,c1-0c0s0g1
INQ_STALL,Z,$S,4,0,0,0,,
INQ_STALL,host,$S,4,0,0,0,,
CREDIT_STALL,X,$S,4,0,0,0,,
CREDIT_STALL,Y,$S,4,0,0,0,,
CREDIT_STALL,Z,$S,4,8,2,8,0,c0-0c0s0g0
CREDIT_STALL,host,$S,4,9,2.25,9,2,c1-0c0s0g0
EOT
expect_eq "exact gemini" "$(cat "$TMP/want")" "$(cat "$TMP/out")"
expect_ok "exact json" "$TORUSEMU" stalls "$TMP/e.store" --format=json
expect_out "json numbers" '"metric": "INQ_STALL", "dim": "Y", .*"total": 15, "mean": 3.75, "max": 15,'
# the table: columns as wide as their widest cell, names left, numbers right
expect_ok "exact table" "$TORUSEMU" stalls "$TMP/e.store"
expect_eq "table: a header and 8 rows" 9 "$(wc -l <"$TMP/out")"
expect_out "table row" "^INQ_STALL    X    $S       4   220   55 150          1 c0-0c0s0g1$"
expect_out "table: nothing to name" "^CREDIT_STALL X    $S       4     0    0   0          - -$"

# --- exact: Blue Gene/Q receive-FIFO occupancy (kind 2), all VCs of both
# directions of a dimension and the I/O link; bgq:2x1x1x1x2, 4 nodes
"$TORUSEMU" create "$TMP/q.store" --machine bgq:2x1x1x1x2 >/dev/null
"$SW" "$TMP/q.store" <<'EOT'
bgq 3 A+ 2 0 5
bgq 3 A- 2 6 7
bgq 1 A+ 2 3 13
bgq 0 E- 2 2 4
bgq 2 IO 2 1 3
bgq 2 A+ 0 0 1000
EOT
expect_ok "exact bgq" "$TORUSEMU" stalls "$TMP/q.store" --format=csv
expect_eq "bgq A: 12 at node 3, 13 at node 1" "RECV_FIFO,A,$TMP/q.store,4,25,6.25,13,1" \
    "$(grep '^RECV_FIFO,A,' "$TMP/out" | cut -d, -f1-8)"
expect_eq "bgq E" "RECV_FIFO,E,$TMP/q.store,4,4,1,4,0" \
    "$(grep '^RECV_FIFO,E,' "$TMP/out" | cut -d, -f1-8)"
expect_eq "bgq IO" "RECV_FIFO,IO,$TMP/q.store,4,3,0.75,3,2" \
    "$(grep '^RECV_FIFO,IO,' "$TMP/out" | cut -d, -f1-8)"
expect_eq "bgq: A-E and IO, one counter" "A B C D E IO" \
    "$(tail -n +2 "$TMP/out" | cut -d, -f2 | tr '\n' ' ' | sed 's/ $//')"
# --- exact: Blue Gene/P NO_TOKENS (counter 8), a row per direction
"$TORUSEMU" create "$TMP/p.store" --machine bgp:2x2x1 >/dev/null
"$SW" "$TMP/p.store" <<'EOT'
bgp 1 Z+ 8 6
bgp 2 Z+ 8 10
bgp 2 X- 8 1
bgp 0 Z+ 0 500
EOT
expect_ok "exact bgp" "$TORUSEMU" stalls "$TMP/p.store" --format=csv
expect_eq "bgp Z+" "NO_TOKENS,Z+,$TMP/p.store,4,16,4,10,2" \
    "$(grep '^NO_TOKENS,Z+,' "$TMP/out" | cut -d, -f1-8)"
expect_eq "bgp: six directions" "X- X+ Y- Y+ Z- Z+" \
    "$(tail -n +2 "$TMP/out" | cut -d, -f2 | tr '\n' ' ' | sed 's/ $//')"

# --- timed replays: tornado on gemini-tiny (8 Geminis), two placements;
# the sums computed here from dump's tile rows
"$TORUSEMU" replay --machine gemini-tiny --pattern tornado --bytes 64K --timing --quiet \
    --keep "$TMP/ta.store" >/dev/null
"$TORUSEMU" replay --machine gemini-tiny --pattern tornado --bytes 64K --timing --quiet \
    --map random:7 --keep "$TMP/tb.store" >/dev/null
# expected STORE INDEX: stalls' CSV rows of STORE, each behind a sort key
# (counter, dimension, store INDEX), from dump --tiles --all --format csv
expected() {
    "$TORUSEMU" dump "$1" --tiles --all --format csv | awk -F, -v store="$1" -v si="$2" '
        function trim(x) { x = sprintf("%.6f", x); sub(/0+$/, "", x); sub(/\.$/, "", x); return x }
        NR == 1 { next }
        !($1 in seen) { seen[$1] = 1; order[n++] = $1; name[$1] = $2 }
        $6 == "INQ_STALL" || $6 == "CREDIT_STALL" {
            d = $4 == "HH" ? "host" : substr($4, 1, 1)
            v[$6, d, $1] += $7
        }
        END {
            split("INQ_STALL CREDIT_STALL", ms, " "); split("X Y Z host", ds, " ")
            for (mi = 1; mi <= 2; mi++) for (di = 1; di <= 4; di++) {
                m = ms[mi]; d = ds[di]; t = 0; max = -1
                for (i = 0; i < n; i++) {
                    r = order[i]; x = v[m, d, r] + 0; t += x
                    if (x > max) { max = x; at = r }
                }
                where = max > 0 ? at "," name[at] : ","
                printf "%d %d %d %s,%s,%s,%d,%d,%s,%d,%s\n", mi, di, si, m, d, store, n, t,
                    trim(t / n), max, where
            }
        }'
}
{
    expected "$TMP/ta.store" 1
    expected "$TMP/tb.store" 2
} | sort -k1,1n -k2,2n -k3,3n | cut -d' ' -f4- >"$TMP/want"
expect_ok "timed pair" "$TORUSEMU" stalls "$TMP/ta.store" "$TMP/tb.store" --format=csv
tail -n +2 "$TMP/out" >"$TMP/got"
if diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then pass; else
    failed "timed pair != dump's tiles summed: $(cat "$TMP/diff")"
fi
expect_eq "timed pair: 2 counters x 4 dimensions x 2 stores" 16 "$(wc -l <"$TMP/got")"
[ "$(awk -F, '$1 == "INQ_STALL" && $5 > 0' "$TMP/got" | wc -l)" -ge 2 ] && pass ||
    failed "the tornado stores hold no inq stall"
[ "$(grep -c ",$TMP/ta.store," "$TMP/got")" = 8 ] && [ "$(sed -n '2p' "$TMP/got" | cut -d, -f3)" = \
    "$TMP/tb.store" ] && pass || failed "the two stores are not side by side within a dimension"
# host links stall on input (seed 000 Fig. 7a): the injection queues wait
[ "$(awk -F, '$1 == "INQ_STALL" && $2 == "host" && $5 > 0' "$TMP/got" | wc -l)" = 2 ] && pass ||
    failed "the tornado stores hold no host-link inq stall"

# --- seed 000 Fig. 7 in miniature (doc/cli.md's example: 1,024 ranks of a
# MiniGhost-like halo on gemini:4x4x2, MiniGhost's order against 2x2x4
# bricks).  The paper (section VI): Remap cuts the maximum congestion of
# every dimension by "about a factor of two", asserted as a ratio of the
# largest Gemini's inq stall within 0.5 x (1 -+ 0.3); X links the most
# (largest inq stall X > Y > Z, both placements); host links a high input
# stall and a low output stall (host inq > 0, host credit < host inq).
# Measured: maxima 0.55 (X), 0.51 (Y), 0.54 (Z), 0.45 (host).
# SEED000_SCALE=eighth asserts the paper's findings on Cielo halved in every
# dimension (examples/minighost_stalls.sh eighth: 16,384 ranks on
# gemini:8x6x12, about 80 s of CPU, so not in make check): the ratio for X,
# Y and Z (the paper's "all dimensions"; host 0.34 is left out), X the
# largest under both placements (Remap's Z passes Y there: the strict order
# is the miniature's), host input above output.  Measured: maxima 0.56 (X),
# 0.39 (Y), 0.55 (Z), 0.34 (host).  Credit stall is highest on Y (both
# placements of the miniature, No-Remap of the eighth) or Z (Remap of the
# eighth) where the paper has X: asserted as a known gap, its measured
# cause in doc/model.md "Seed 000 Fig. 7".
# SEED000_SCALE=full (or cielo) runs the paper's own job
# (examples/minighost_stalls.sh full: 131,072 ranks on the first 8,192 of
# cielo's 9,216 nodes, a 64x64x32 grid; about 20 minutes of CPU and 850 MiB
# here, so not in make check).  Measured there: maxima 0.64 (X), 0.30 (Y),
# 0.74 (Z), 0.28 (host), so only X is asserted about a half; Y and the host
# links fall below the band and Z above it, asserted as a known gap
# (doc/model.md "Seed 000 Fig. 7" gives the causes).  X holds the largest
# inq stall under both placements and host input is above output, as in the
# paper; the largest credit stall is on X under Remap, as in the paper, but
# on Y under No-Remap (a known gap).  At every scale Remap's largest inq
# stall is below No-Remap's in every dimension, host links included.
outside=""
case ${SEED000_SCALE:-small} in
full | cielo)
    set -- --machine cielo -np 131072 --grid 64x64x32
    halved="X" order="X?? X?? " credit="Y X" outside="Y:below Z:above host:below"
    ;;
eighth)
    set -- --machine gemini:8x6x12 -np 16384 --grid 32x32x16
    halved="X Y Z" order="X?? X?? " credit="Y Z"
    ;;
small)
    set -- --machine gemini:4x4x2 -np 1024 --grid 16x8x8
    halved="X Y Z host" order="XYZ XYZ " credit="Y Y"
    ;;
*)
    echo "stalls.sh: SEED000_SCALE '$SEED000_SCALE': expected small, eighth, full or cielo" >&2
    exit 99
    ;;
esac
fig7() { # STORE [ARGS]: a timed replay of the halo at the chosen scale
    st=$1; shift
    "$TORUSEMU" replay "$@" --ranks-per-node 16 --pattern halo --size 10 --vars 2 --timing \
        --quiet --keep "$st" >/dev/null
}
fig7 "$TMP/noremap.store" "$@"
fig7 "$TMP/remap.store" "$@" --block 2x2x4
expect_ok "fig. 7 pair" "$TORUSEMU" stalls "$TMP/noremap.store" "$TMP/remap.store" --format=csv
ratio() { # DIM: Remap's largest inq stall over No-Remap's, or "none"
    awk -F, -v d="$1" '$1 == "INQ_STALL" && $2 == d { m[++n] = $7 }
        END { if (m[1] > 0) printf "%.3f", m[2] / m[1]; else print "none" }' "$TMP/out"
}
for d in X Y Z host; do
    r=$(ratio "$d")
    awk -v r="$r" 'BEGIN { exit !(r != "none" && r < 1) }' && pass ||
        failed "fig. 7: Remap's largest $d inq stall is $r of No-Remap's, not below it"
done
for d in $halved; do
    r=$(ratio "$d")
    awk -v r="$r" 'BEGIN { exit !(r != "none" && r >= 0.35 && r <= 0.65) }' && pass ||
        failed "fig. 7: Remap's largest $d inq stall is $r of No-Remap's, not about a half"
done
if [ -n "$outside" ]; then
    got=""
    for d in X Y Z host; do
        case " $halved " in *" $d "*) continue ;; esac
        got="$got $d:$(awk -v r="$(ratio "$d")" 'BEGIN { if (r == "none") print "none"
            else if (r < 0.35) print "below"; else if (r > 0.65) print "above"; else print "half" }')"
    done
    expect_eq "fig. 7: largest inq stall outside about a half (known gap)" "$outside" "${got# }"
fi
# each placement's dimensions by their largest Gemini's inq stall, most first
got=$(awk -F, '$1 == "INQ_STALL" && $2 != "host" { k = ($3 ~ /\/remap\.store$/); m[k, $2] = $7 }
    END { for (k = 0; k < 2; k++) { s = ""; left = "XYZ"
        while (left != "") { b = ""; for (i = 1; i <= length(left); i++) { d = substr(left, i, 1)
                if (b == "" || m[k, d] > m[k, b]) { b = d } }
            s = s b; sub(b, "", left) }
        printf "%s ", s } }' "$TMP/out")
case $got in
$order) pass ;;
*) failed "fig. 7: largest inq stall by dimension, No-Remap and Remap: $got, want $order" ;;
esac
expect_eq "fig. 7: host links: input stall high, output stall low" "yes yes" \
    "$(awk -F, '$2 == "host" { v[$1, ++n[$1]] = $5 }
        END { printf "%s %s", (v["INQ_STALL", 1] > v["CREDIT_STALL", 1]) ? "yes" : "no",
                                (v["INQ_STALL", 2] > v["CREDIT_STALL", 2]) ? "yes" : "no" }' "$TMP/out")"
expect_eq "fig. 7: the largest credit stall's dimension, No-Remap and Remap (the paper's: X)" "$credit" \
    "$(awk -F, '$1 == "CREDIT_STALL" && $2 != "host" { k = ($3 ~ /\/remap\.store$/)
            if ($7 > m[k]) { m[k] = $7; d[k] = $2 } }
        END { printf "%s %s", d[0], d[1] }' "$TMP/out")"

# Blue Gene from timed replays: the per-dimension totals and maxima equal
# the series' final counter values summed here by node and dimension
series_sums() { # SERIES COUNTER: "dim total max" from the last value of each counter
    "$TORUSEMU" series "$1" --all --format csv | awk -F, -v c="$2" '
        NR > 1 && $4 ~ (" " c) {
            split($4, w, " "); d = w[2] == "IO" ? "IO" : w[2]
            if (c == "RECV_FIFO") { d = w[2] == "IO" ? "IO" : substr(w[2], 1, 1) }
            last[w[1] SUBSEP d SUBSEP w[2] SUBSEP w[4]] = $5
        }
        END {
            for (k in last) { split(k, p, SUBSEP); node[p[1] SUBSEP p[2]] += last[k] }
            for (k in node) { split(k, p, SUBSEP); tot[p[2]] += node[k]
                if (node[k] > max[p[2]]) max[p[2]] = node[k] }
            for (d in tot) print d, tot[d], max[d]
        }' | sort
}
"$TORUSEMU" replay --machine bgq:2x2x2x2x2 -np 32 --pattern tornado --bytes 64K --timing --quiet \
    --series "$TMP/q.tser" --interval 1s --keep "$TMP/qt.store" >/dev/null
want=$(series_sums "$TMP/q.tser" RECV_FIFO)
[ -n "$want" ] && pass || failed "the bgq replay holds no receive-FIFO occupancy"
expect_ok "bgq timed" "$TORUSEMU" stalls "$TMP/qt.store" --format=csv
expect_eq "bgq timed = series" "$want" "$(awk -F, 'NR > 1 && $5 > 0 { print $2, $5, $7 }' "$TMP/out" | sort)"
"$TORUSEMU" replay --machine bgp-16 -np 16 --pattern random --bytes 256K --timing --quiet \
    --series "$TMP/p.tser" --interval 1s --keep "$TMP/pt.store" >/dev/null
want=$(series_sums "$TMP/p.tser" NO_TOKENS)
[ -n "$want" ] && pass || failed "the bgp replay holds no NO_TOKENS cycles"
expect_ok "bgp timed" "$TORUSEMU" stalls "$TMP/pt.store" --format=csv
expect_eq "bgp timed = series" "$want" "$(awk -F, 'NR > 1 && $5 > 0 { print $2, $5, $7 }' "$TMP/out" | sort)"

# --- the picture: two panels (inq, credit) of 720 pixels; a stand-in
# gnuplot keeps its data, a line per dimension with each store's mean and
# maximum, which are the table's
expect_ok "png" "$TORUSEMU" stalls "$TMP/ta.store" "$TMP/tb.store" -o "$TMP/fig7.png"
sig=$(od -An -tx1 -N24 "$TMP/fig7.png" | tr -d ' \n')
expect_eq "png: 1440 x 600" 89504e470d0a1a0a0000000d49484452000005a000000258 "$sig"
[ "$(wc -c <"$TMP/fig7.png")" -gt 10000 ] && pass || failed "png: too small to hold bars"
cat >"$TMP/keepgp" <<EOF
#!/bin/sh
d=\$(dirname "\$1")
cp "\$d/stalls.dat" "$TMP/drawn"
cp "\$1" "$TMP/drawn.gp"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo picture >"\$out"
EOF
chmod +x "$TMP/keepgp"
mkdir "$TMP/t"
TMPDIR="$TMP/t" TORUSEMU_GNUPLOT="$TMP/keepgp" "$TORUSEMU" stalls "$TMP/ta.store" "$TMP/tb.store" \
    -o "$TMP/fake.png" --format=csv >"$TMP/pair.csv"
awk -F, 'NR > 1 { k = $1 " " $2; if (!(k in row)) { row[k] = $2; keys[n++] = k }
        row[k] = row[k] " " $6 " " $7 }
    END { for (i = 0; i < n; i++) { print row[keys[i]]; if (i % 4 == 3) { print ""; print "" } } }' \
    "$TMP/pair.csv" >"$TMP/want"
if diff -u "$TMP/want" "$TMP/drawn" >"$TMP/diff"; then pass; else
    failed "figure data != the table: $(cat "$TMP/diff")"
fi
expect_eq "figure: two panels" 2 "$(grep -c '^plot ' "$TMP/drawn.gp")"
grep -q "title 'ta.store'" "$TMP/drawn.gp" && grep -q "title 'tb.store'" "$TMP/drawn.gp" && pass ||
    failed "figure: the stores are not in the key"
grep -q "^set title '(a) input stall: INQ\\\\_STALL'$" "$TMP/drawn.gp" && pass ||
    failed "figure: panel (a) title"
[ -z "$(ls -A "$TMP/t")" ] && pass || failed "stalls left $(ls "$TMP/t") in TMPDIR"

# --- errors
expect_fail "no store" "missing STORE" "$TORUSEMU" stalls
expect_fail "three stores" "at most two stores side by side, got 3" \
    "$TORUSEMU" stalls "$TMP/ta.store" "$TMP/tb.store" "$TMP/e.store"
expect_fail "two machines" \
    "two stores compare only on one machine: $TMP/ta.store is gemini:2x2x2, $TMP/e.store is gemini:2x2x1" \
    "$TORUSEMU" stalls "$TMP/ta.store" "$TMP/e.store"
printf 'not a store\n' >"$TMP/bad.store"
expect_fail "not a store" "session store" "$TORUSEMU" stalls "$TMP/bad.store"
expect_fail "missing store" "cannot open session store '$TMP/none'" "$TORUSEMU" stalls "$TMP/none"
expect_fail "bad format" "format" "$TORUSEMU" stalls "$TMP/ta.store" --format=xml
expect_fail "quote in output" "holds a quote" "$TORUSEMU" stalls "$TMP/ta.store" -o "$TMP/it's.png"
expect_fail "gnuplot missing" "cannot run $TMP/nogp" \
    env TORUSEMU_GNUPLOT="$TMP/nogp" "$TORUSEMU" stalls "$TMP/ta.store" -o "$TMP/x.png"
# a store without stall counts: zeros, and a warning naming the remedy
"$TORUSEMU" create "$TMP/idle.store" --machine gemini:2x2x1 >/dev/null
expect_ok "idle store" "$TORUSEMU" stalls "$TMP/idle.store" --format=csv
grep -q "holds no stall count: the timing model fills them" "$TMP/err" && pass ||
    failed "idle store: no warning"
expect_eq "idle store: zeros" 0 "$(awk -F, 'NR > 1 { t += $5 } END { print t + 0 }' "$TMP/out")"
finish
