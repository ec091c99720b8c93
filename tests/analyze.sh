#!/bin/sh
# analyze.sh - `torusemu analyze` (utils/cmd_analyze.c): golden CSVs of a
# small LDMS gpcdr file whose figures were worked out by hand
# (tests/fixtures/analyze/README.md), the same figures from a series file
# of tile counters, Table I's correlation computed here independently,
# well-formed PNG and DOT output, and clear errors for bad input.
. "${top_srcdir:-.}/tests/lib.sh"
WRITE="$top_builddir/tests/series_write"
CSV="$top_srcdir/tests/fixtures/ldms/gemini-4x2x2.csv"
GOLD="$top_srcdir/tests/fixtures/analyze"
A() { "$TORUSEMU" analyze "$@"; }

same() { # same DESC WANT GOT
    if diff -u "$2" "$3" >"$TMP/diff"; then pass; else failed "$1: $(cat "$TMP/diff")"; fi
}

# --- golden CSVs from the LDMS file
expect_ok "links" A "$CSV" --machine=gemini:4x2x2 --report=links --format=csv
same "links" "$GOLD/links.csv" "$TMP/out"
expect_ok "summary" A "$CSV" -m gemini:4x2x2 --format=csv
same "summary" "$GOLD/summary.csv" "$TMP/out"
expect_ok "regions" A "$CSV" -m gemini:4x2x2 --report=regions --threshold=20 --format=csv
same "regions at 20" "$GOLD/regions-20.csv" "$TMP/out"
# seed 004's published figures beside the input's (hand-worked: README)
expect_ok "seed004" A "$CSV" -m gemini:4x2x2 --report=seed004 --threshold=20 --format=csv
same "seed004 at 20" "$GOLD/seed004-20.csv" "$TMP/out"
# at the default 40 only the second minute is congested, with no past
expect_ok "regions 40" A "$CSV" -m gemini:4x2x2 --report=regions --format=csv
expect_out "regions 40" '^0,1,61000000000000,X\+,0,c0-0c0s0g0,0 0 0,1,0,50,0,$'
[ "$(wc -l <"$TMP/out")" -eq 2 ] && pass || failed "regions 40: one feature expected"
# P_bu on the Y d-links as the feature: Gemini 2's Y+ at 10
expect_ok "regions pbu" A "$CSV" -m gemini:4x2x2 --report=regions --feature=pbu \
    --feature-link=Y+ --threshold=10 --format=csv
expect_out "regions pbu" '^0,0,1000000000000,Y\+,2,c0-0c0s0g1,0 1 0,1,0,10,2,$'

# all nodes' NIC traffic per interval (seed 004 Fig. 3): nodes 0, 1 and 5
# inject 1e9 + 2e9 + 3e9 bytes in the first minute, nodes 0 and 1 4e9 + 0
# in the second (node 5 has no third sample)
expect_ok "nodes" A "$CSV" -m gemini:4x2x2 --report=nodes --format=csv
same "nodes" "$GOLD/nodes.csv" "$TMP/out"
expect_ok "nodes ccdf" A "$CSV" -m gemini:4x2x2 --report=ccdf --format=csv
grep '^all,' "$TMP/out" >"$TMP/got"
printf '%s\n' 'all,injection_bpm,4000000000,2,2,1' 'all,injection_bpm,6000000000,1,2,0.5' \
    'all,ingestion_bpm,1000000000,2,2,1' 'all,ingestion_bpm,2000000000,1,2,0.5' >"$TMP/want"
same "nodes ccdf" "$TMP/want" "$TMP/got"
# without the nic columns: no node rows
cut -d, -f1-35 "$CSV" >"$TMP/links-only.csv"
expect_ok "no nic columns" A "$TMP/links-only.csv" -m gemini:4x2x2 --report=nodes --format=csv
[ "$(wc -l <"$TMP/out")" -eq 1 ] && pass || failed "no nic columns: header only expected"
cut -d, -f1-36 "$CSV" >"$TMP/half.csv"
expect_fail "one nic column" "only one of totaloutput_optA and totalinput" \
    A "$TMP/half.csv" -m gemini:4x2x2

# CCDF: X P_bu takes 0 (6 of 6), 25 (2 of 6), 50 (1 of 6)
expect_ok "ccdf" A "$CSV" -m gemini:4x2x2 --report=ccdf --format=csv
grep '^X,pbu,' "$TMP/out" >"$TMP/got"
printf '%s\n' 'X,pbu,0,6,6,1' 'X,pbu,25,2,6,0.333333' 'X,pbu,50,1,6,0.166667' >"$TMP/want"
same "ccdf X pbu" "$TMP/want" "$TMP/got"
expect_out "ccdf Y ppm" '^Y,ppm,3000,1,6,0.166667$'

# Table I: Pearson's r of P_bu against P_Ts per dimension, computed here
# from the hand-chosen values of the six d-link-minutes of each dimension
pearson() { # x values, "|", y values: r to 6 decimals, or "" when undefined
    echo "$@" | awk '{ n = 0; for (i = 1; $i != "|"; i++) x[++n] = $i
        for (j = 1; j <= n; j++) y[j] = $(i + j)
        for (j = 1; j <= n; j++) { sx += x[j]; sy += y[j]; sxx += x[j]^2; syy += y[j]^2; sxy += x[j]*y[j] }
        vx = n*sxx - sx*sx; vy = n*syy - sy*sy
        if (vx <= 0 || vy <= 0) { print ""; exit }
        r = sprintf("%.6f", (n*sxy - sx*sy) / sqrt(vx*vy)); sub(/0+$/, "", r); sub(/\.$/, "", r); print r }'
}
xc=$(pearson 0 25 0 0 0 50 "|" 0 25 0 0 0 50)
xi=$(pearson 0 25 0 0 0 50 "|" 0 50 0 0 0 10)
yc=$(pearson 0 0 0 10 0 0 "|" 0 0 0 25 0 0)
yi=$(pearson 0 0 0 10 0 0 "|" 0 0 0 0 0 0)
zc=$(pearson 0 0 0 0 10 0 "|" 0 0 0 0 0 0)
printf '%s\n' 'dim,samples,credit,inq' "X,6,$xc,$xi" "Y,6,$yc,$yi" "Z,6,$zc,$zc" >"$TMP/want"
expect_ok "correlation" A "$CSV" -m gemini:4x2x2 --report=correlation --format=csv
same "correlation" "$TMP/want" "$TMP/out"
[ "$xi" = 0.478091 ] && pass || failed "hand value of X inq r: $xi"
expect_ok "correlation json" A "$CSV" -m gemini:4x2x2 --report=correlation --format=json
expect_out "json null when undefined" '"dim": "Z", "samples": 6, "credit": null, "inq": null'

# --- the same figures from a series of tile counters (800 MHz cycles):
# Gemini 0's X+ tiles are 2 3 10 11 24 25 32 33; half of them stalled the
# whole minute (48e9 cycles) is inq P_Ts 50 (eq. 1 averages over tiles);
# credit 12e9 cycles on each is 25; 5859375000 phits on each x 3 bytes x 8
# tiles = 140625e6 bytes is P_bu 25
"$WRITE" "$TMP/a.tser" gemini:4x2x2 60000000000000 <<'EOT'
at 0
at 60000000000000
link 0 X+ 0 5859375000
link 0 X+ 3 1000
tile 0 2 4 48000000000
tile 0 3 4 48000000000
tile 0 10 4 48000000000
tile 0 32 4 48000000000
link 0 X+ 5 12000000000
# node 3's NIC (counters 4608 + 3 x 16 + c): ORB_VC0 100 packets, 1000
# flits; ORB_VC1 10, 30; RAT data 200 flits; NPT 10 packets, 50 flits
set 4656 100
set 4657 1000
set 4658 10
set 4659 30
set 4661 200
set 4662 10
set 4663 50
EOT
expect_ok "series links" A "$TMP/a.tser" --report=links --format=csv
expect_out "series X+" '^0,0,60000000000000,0,c0-0c0s0g0,0 0 0,X\+,8,9.375,140625000000,8000,8000,25,50,25$'
[ "$(grep -c '^0,' "$TMP/out")" -eq 96 ] && pass || failed "series: 16 Geminis x 6 d-links expected"
[ "$(awk -F, 'NR > 1 && $10 != 0' "$TMP/out" | wc -l)" -eq 1 ] && pass ||
    failed "series: one d-link with traffic"
# out 16 x (1000 + 50 - 100 - 10) = 15040, in 16 x (200 + 30 - 10) = 3520
expect_ok "series nodes" A "$TMP/a.tser" --report=nodes --format=csv
expect_out "series nodes" '^0,0,60000000000000,32,15040,3520,15040,3520$'
expect_ok "series table" A "$TMP/a.tser"
expect_out "series summary table" '^  X +32 +250 +8000 +0\.78125 +25 +0\.03125 '

# a series whose writer did not finish is read as far as it goes, and said so
"$WRITE" "$TMP/cut.tser" gemini:4x2x2 60000000000000 incomplete <<'EOT'
at 0
at 60000000000000
link 0 X+ 2 1000
EOT
expect_ok "incomplete series" A "$TMP/cut.tser" --report=links --format=csv
expect_out "incomplete series" '^0,0,60000000000000,0,c0-0c0s0g0,0 0 0,X\+,8,9.375,0,8000,8000,0,0,0$'
grep -qx "torusemu: analyze: $TMP/cut.tser is incomplete (no end record: its writer did not finish): read 2 snapshots, up to the last whole one" \
    "$TMP/err" && pass || failed "incomplete: no warning: $(cat "$TMP/err")"
# ... also when it ends inside a record (a writer killed while writing):
# the third snapshot lost its last byte
"$WRITE" "$TMP/cut3.tser" gemini:4x2x2 60000000000000 incomplete <<'EOT'
at 0
at 60000000000000
link 0 X+ 2 1000
at 120000000000000
link 0 X+ 2 3000
EOT
head -c $(($(wc -c <"$TMP/cut3.tser") - 1)) "$TMP/cut3.tser" >"$TMP/cut.tser"
expect_ok "series cut in a record" A "$TMP/cut.tser" --report=links --format=json
expect_eq "series cut in a record: one interval" "[|96|]" \
    "$(head -n 1 "$TMP/out")|$(grep -c '"interval": 0' "$TMP/out")|$(tail -n 1 "$TMP/out")"
grep -q "cut.tser is incomplete .*: read 2 snapshots, up to the last whole one" "$TMP/err" &&
    pass || failed "series cut in a record: no warning: $(cat "$TMP/err")"

# --- counters that restart (a node reboot) or rise more than a d-link can
# do: left out, said, and counted (tests/fixtures/analyze/README.md)
RB="$top_srcdir/tests/fixtures/ldms/gemini-4x2x2-reboot.csv"
expect_ok "reboot summary" A "$RB" -m gemini:4x2x2 --format=csv
same "reboot summary" "$GOLD/reboot-summary.csv" "$TMP/out"
sed "s|$RB|RB|" "$TMP/err" >"$TMP/got"
cat >"$TMP/want" <<'EOT'
torusemu: analyze: RB:9: node 1 (Gemini c0-0c0s0g0): X+_traffic went down from 140625001000 B to 5000 B: the counter restarted (a reboot resets gpcdr's counters); that interval is left out for it
torusemu: analyze: RB:9: node 1 (Gemini c0-0c0s0g0): X+_packets went down from 8010 to 20: the counter restarted (a reboot resets gpcdr's counters); that interval is left out for it
torusemu: analyze: RB:9: node 1 (Gemini c0-0c0s0g0): X+_inq_stall went down from 240000000000 ns to 0 ns: the counter restarted (a reboot resets gpcdr's counters); that interval is left out for it
torusemu: analyze: RB:9: node 1 (Gemini c0-0c0s0g0): X+_credit_stall went down from 120000000000 ns to 0 ns: the counter restarted (a reboot resets gpcdr's counters); that interval is left out for it
torusemu: analyze: RB:10: node 5 (Gemini c0-0c0s0g1): Y+_traffic rose by 562500000000 B in 60 s: P_bu 200 %, more than the d-link can carry; that interval is left out for it
torusemu: analyze: RB:10: node 5 (Gemini c0-0c0s0g1): Y+_inq_stall rose by 480000000000000 ns in 60 s: P_Ts 200000 %, more than the d-link can stall; that interval is left out for it
torusemu: analyze: RB:9: node 1 (Gemini c0-0c0s0g0): totaloutput_optA went down from 2000000000 B to 10 B: the counter restarted (a reboot resets gpcdr's counters); that interval is left out for it
torusemu: analyze: RB: in all 5 counter resets and 2 values above 100 % left out of the figures
EOT
same "reboot warnings" "$TMP/want" "$TMP/got"
expect_ok "reboot nodes" A "$RB" -m gemini:4x2x2 --report=nodes --format=csv
same "reboot nodes" "$GOLD/reboot-nodes.csv" "$TMP/out"
expect_ok "reboot links" A "$RB" -m gemini:4x2x2 --report=links --format=csv
expect_out "reboot links: X+ left out" '^1,61000100000000,121000100000000,0,c0-0c0s0g0,0 0 0,X\+,8,9.375,,,,,,$'
expect_out "reboot links: Y+ partly" '^1,60999900000000,120999900000000,2,c0-0c0s0g1,0 1 0,Y\+,4,4.6875,,1000,1000,,,25$'
expect_out "reboot links: node 1 again" '^2,121000100000000,181000100000000,0,c0-0c0s0g0,0 0 0,X\+,8,9.375,140625000000,4000,4000,25,10,25$'
expect_ok "reboot ccdf" A "$RB" -m gemini:4x2x2 --report=ccdf --format=csv
printf '%s\n' 'X,pbu,0,11,11,1' 'X,pbu,25,2,11,0.181818' >"$TMP/want"
grep '^X,pbu,' "$TMP/out" >"$TMP/got"
same "reboot ccdf X pbu" "$TMP/want" "$TMP/got"
expect_ok "reboot correlation" A "$RB" -m gemini:4x2x2 --report=correlation --format=csv
expect_out "reboot correlation: Y inq undefined" '^Y,12,[^,]*,$'
# in a series: a store zeroed between two snapshots (torusemu reset);
# Gemini 0's X+ tiles held 1000 phits each (8 x 3 x 1000 bytes), then 10
"$WRITE" "$TMP/reset.tser" gemini:4x2x2 60000000000000 <<'EOT'
at 0
at 60000000000000
link 0 X+ 0 1000
at 120000000000000
link 0 X+ 0 10
EOT
expect_ok "series reset" A "$TMP/reset.tser" --format=csv
expect_eq "series reset: warning" "torusemu: analyze: $TMP/reset.tser, snapshot 2: Gemini c0-0c0s0g0: X+_traffic went down from 24000 B to 240 B: the counter restarted (the store was zeroed, as torusemu reset does); that interval is left out for it" \
    "$(head -n 1 "$TMP/err")"
expect_out "series reset: counted" '^X,64,0,0,0,0\.000004,0,0,0,0,0,0,0,1,0$'
# stall counters of a long uptime: their ns x 1000 pass 2^64 ps between
# the two samples, which is no restart (P_Ts 50: 240e9 ns of 8 x 60 s)
{
    head -1 "$CSV"
    for k in 0 1; do
        v=$((18446744073709000 + k * 240000000000))
        echo "$((1483228800 + 60 * k)).000100, 100, nid00001, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, $v, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 48, 48, 24, 24, 48, 48, 0, 0"
    done
} >"$TMP/uptime.csv"
expect_ok "long uptime" A "$TMP/uptime.csv" -m gemini:4x2x2 --report=links --format=csv
expect_out "long uptime" '^0,1000100000000,61000100000000,0,c0-0c0s0g0,0 0 0,X\+,8,9.375,0,0,0,0,50,0$'
expect_eq "long uptime: no warning" "" "$(cat "$TMP/err")"
# more than 20 warnings: the rest are counted.  Gemini 0's X+ counters
# fall from 100 to 0 in every other of 12 minutes: 4 counters x 6 restarts
k=0
{
    head -1 "$CSV"
    while [ $k -le 12 ]; do
        v=$((k % 2 * 100))
        echo "$((1483228800 + 60 * k)).000100, 100, nid00001, 1, 0, $v, 0, 0, 0, 0, 0, $v, 0, 0, 0, 0, 0, $v, 0, 0, 0, 0, 0, $v, 0, 0, 0, 0, 0, 48, 48, 24, 24, 48, 48, 0, 0"
        k=$((k + 1))
    done
} >"$TMP/flap.csv"
expect_ok "many resets" A "$TMP/flap.csv" -m gemini:4x2x2 --format=csv
expect_eq "many resets: 20 shown" 20 "$(grep -c 'went down' "$TMP/err")"
grep -qx "torusemu: analyze: $TMP/flap.csv: in all 24 counter resets and 0 values above 100 % left out of the figures (4 warnings not shown)" \
    "$TMP/err" && pass || failed "many resets: total: $(tail -n 1 "$TMP/err")"
expect_out "many resets: X" '^X,24,.*,24,0$'

# stalls from the timing model: a hot spot (every node of a 4x2x2 Gemini
# torus puts 64 KiB to node 0 at once), run until the network is empty.
# Inq stalls happen where packets arrive: a d-link no packet reached has
# P_Ts inq exactly 0; the hot spot stalls some; no percentage passes 100.
TIMED="$top_builddir/tests/series_timed"
if "$TIMED" "$TMP/t.tser" gemini:4x2x2 65536 >"$TMP/end" 2>"$TMP/err"; then pass; else
    failed "series_timed: $(cat "$TMP/err")"
fi
expect_ok "timed links" A "$TMP/t.tser" --report=links --format=csv
awk -F, 'NR > 1 && $11 == 0 && $14 != 0 { bad++ } END { exit bad > 0 }' "$TMP/out" && pass ||
    failed "timed: inq stall on a d-link no packet reached"
awk -F, 'NR > 1 && $14 > 0 { i++ } NR > 1 && $15 > 0 { c++ } END { exit !(i > 0 && c > 0) }' \
    "$TMP/out" && pass || failed "timed: the hot spot stalls no d-link"
awk -F, 'NR > 1 && ($13 > 100 || $14 > 100 || $15 > 100) { bad++ } END { exit bad > 0 }' \
    "$TMP/out" && pass || failed "timed: a percentage above 100"
awk -F, -v end="$(cat "$TMP/end")" 'NR > 1 && ($2 != 0 || $3 != end) { bad++ } END { exit bad > 0 }' \
    "$TMP/out" && pass || failed "timed: one interval from 0 to the model's end"

# --- everything into a directory: CSVs, DOT and PNGs
expect_ok "output dir" A "$CSV" -m gemini:4x2x2 --threshold=20 -o "$TMP/fig"
for f in links.csv summary.csv ccdf.csv correlation.csv regions.csv nodes.csv seed004.csv \
    features.dot ccdf-ppm.png ccdf-pbu.png ccdf-pts_inq.png ccdf-pts_credit.png ccdf-nodes.png features.png; do
    grep -qx "$TMP/fig/$f" "$TMP/out" && [ -s "$TMP/fig/$f" ] && pass || failed "output dir: $f"
done
same "dir links.csv" "$GOLD/links.csv" "$TMP/fig/links.csv"
same "dir regions.csv" "$GOLD/regions-20.csv" "$TMP/fig/regions.csv"
same "dir nodes.csv" "$GOLD/nodes.csv" "$TMP/fig/nodes.csv"
for f in "$TMP"/fig/*.png; do
    sig=$(od -An -tx1 -N16 "$f" | tr -d ' \n')
    [ "$sig" = 89504e470d0a1a0a0000000d49484452 ] && pass || failed "$f: not a PNG ($sig)"
done
grep -q '^  f0 -> f1;$' "$TMP/fig/features.dot" && pass || failed "features.dot lacks f0 -> f1"
if command -v dot >/dev/null 2>&1; then
    dot -Tpng "$TMP/fig/features.dot" -o "$TMP/again.png" && [ -s "$TMP/again.png" ] && pass ||
        failed "dot -Tpng features.dot"
fi
expect_ok "no png" A "$CSV" -m gemini:4x2x2 -o "$TMP/nopng" --no-png
[ ! -e "$TMP/nopng/features.png" ] && [ -s "$TMP/nopng/features.dot" ] && pass ||
    failed "--no-png wrote pictures"

# --- one interval on every Gemini (--slice, seed 004 Fig. 10): X+ credit
# stalls of 800 MHz cycles on every tile of a d-link; 48e9 cycles is the
# whole minute, so 12e9 is P_Ts 25, 24e9 is 50, 36e9 is 75, and one tile of
# 8 stalled the whole minute is 12.5; the third minute (Gemini 0 at 25)
# is not the peak
"$WRITE" "$TMP/s.tser" gemini:4x2x2 60000000000000 <<'EOT'
at 0
at 60000000000000
link 3 X+ 5 12000000000
at 120000000000000
link 3 X+ 5 12000000000
link 0 X+ 5 24000000000
link 5 X+ 5 36000000000
tile 9 2 5 48000000000
at 180000000000000
link 0 X+ 5 36000000000
EOT
expect_ok "slice 1" A "$TMP/s.tser" --slice 1 --format csv
printf '%s\n' 'interval,start_ps,end_ps,router,gemini,x,y,z,dir,metric,value' \
    '1,60000000000000,120000000000000,0,c0-0c0s0g0,0,0,0,X+,pts_credit,50' \
    '1,60000000000000,120000000000000,5,c1-0c0s1g0,1,0,1,X+,pts_credit,75' \
    '1,60000000000000,120000000000000,9,c2-0c0s1g0,2,0,1,X+,pts_credit,12.5' >"$TMP/want"
{ head -1 "$TMP/out"; grep -v ',0$' "$TMP/out" | tail -n +2; } >"$TMP/got"
same "slice 1: the stalled d-links" "$TMP/want" "$TMP/got"
expect_eq "slice 1: a row per Gemini" 16 "$(grep -c ',X+,pts_credit,' "$TMP/out")"
cp "$TMP/out" "$TMP/slice1"
expect_ok "slice peak" A "$TMP/s.tser" --slice=peak --format csv
same "peak is interval 1" "$TMP/slice1" "$TMP/out"
expect_ok "slice 0" A "$TMP/s.tser" --slice 0 --format csv
expect_eq "slice 0: Gemini 3 at 25" "3,0,1,1,25" \
    "$(awk -F, '$11 != 0 { print $4 "," $6 "," $7 "," $8 "," $11 }' "$TMP/out" | tail -n +2)"
expect_ok "slice inq" A "$TMP/s.tser" --slice 1 --feature=inq --report=slice --format csv
expect_eq "slice inq: no inq stall" 0 "$(awk -F, 'NR > 1 && $11 != 0' "$TMP/out" | wc -l)"
# the picture: slice.csv beside it; a stand-in gnuplot keeps the points
# drawn ("x y z value"), which are slice.csv's
cat >"$TMP/keepslice" <<EOF
#!/bin/sh
d=\$(dirname "\$1")
[ -f "\$d/slice.dat" ] && cp "\$d/slice.dat" "$TMP/drawn"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo picture >"\$out"
EOF
chmod +x "$TMP/keepslice"
expect_ok "slice dir" A "$TMP/s.tser" --slice=peak -o "$TMP/sl"
for f in slice.csv slice.png; do
    grep -qx "$TMP/sl/$f" "$TMP/out" && [ -s "$TMP/sl/$f" ] && pass || failed "slice dir: $f"
done
same "slice.csv" "$TMP/slice1" "$TMP/sl/slice.csv"
sig=$(od -An -tx1 -N24 "$TMP/sl/slice.png" | tr -d ' \n')
expect_eq "slice.png: a 1000 x 800 PNG" 89504e470d0a1a0a0000000d49484452000003e800000320 "$sig"
TORUSEMU_GNUPLOT="$TMP/keepslice" "$TORUSEMU" analyze "$TMP/s.tser" --slice=1 -o "$TMP/sl2" \
    >/dev/null
expect_eq "slice: points drawn = slice.csv" \
    "$(awk -F, 'NR > 1 { print $6, $7, $8, $11 }' "$TMP/slice1")" "$(cat "$TMP/drawn")"
# LDMS samples: only Geminis 0 and 2 are sampled; Gemini 0's X+ credit
# stall is 120e9 ns of 8 tiles x 60 s (25) in the first minute and 240e9
# ns (50) in the second (tests/fixtures/analyze/README.md); the other 14
# Geminis have no figure (empty, JSON null)
expect_ok "ldms slice" A "$CSV" -m gemini:4x2x2 --slice 0 --format csv
expect_eq "ldms slice: Gemini 0" 25 "$(awk -F, '$4 == 0 { print $11 }' "$TMP/out")"
expect_eq "ldms slice: 14 without figure" 14 "$(grep -c ',$' "$TMP/out")"
expect_ok "ldms slice json" A "$CSV" -m gemini:4x2x2 --slice 1 --format json
expect_out "ldms slice json" '"router": 0, .*"value": 50}'
expect_out "ldms slice json null" '"router": 1, .*"value": null}'
expect_fail "slice beyond" "--slice 3: the input has 3 intervals (0..2)" A "$TMP/s.tser" --slice 3
expect_fail "bad slice" "--slice 'last' is neither an interval number" A "$TMP/s.tser" --slice last
expect_fail "slice report alone" "--report=slice needs --slice=K" A "$TMP/s.tser" --report=slice

# --- pictures that read well at any size (issue 22)
# a stand-in gnuplot keeps every script it is given
mkdir -p "$TMP/kept"
cat >"$TMP/keepgp" <<EOF
#!/bin/sh
cp "\$1" "$TMP/kept/\$(basename "\$1")"
out=\$(sed -n "s/^set output '\\(.*\\)'\$/\\1/p" "\$1")
echo picture >"\$out"
EOF
chmod +x "$TMP/keepgp"
# CCDF axes: router 0's X+ carries 8 tiles x 1.25e9 packets in a minute,
# 1e10 packets per minute, drawn as 10 on an axis "x10^9"; the y axis is
# logarithmic with ticks 10^k; Y's d-links carry nothing, all 0 over
# 8 routers x 2 directions x 1 interval; gemini:4x2x1's Z (one router a
# ring) has no d-link, no sample at all
"$WRITE" "$TMP/ppm.tser" gemini:4x2x1 60000000000000 <<'EOT'
at 0
at 60000000000000
link 0 X+ 2 1250000000
EOT
TORUSEMU_GNUPLOT="$TMP/keepgp" "$TORUSEMU" analyze "$TMP/ppm.tser" -o "$TMP/ppmfig" >/dev/null
gp="$TMP/kept/ccdf-ppm.gp"
expect_eq "ccdf x axis: 1e10 as 10 x10^9" "set xlabel 'packets per minute (x10^{9})'" \
    "$(grep '^set xlabel' "$gp")"
grep -q "index 0 using (\$1/1e9):2 with fsteps lc 1 lw 2 title 'X'" "$gp" && pass ||
    failed "ccdf: X's values not divided by 1e9: $(grep '^plot' "$gp")"
expect_eq "ccdf y ticks 10^k" "set format y '10^{%L}'" "$(grep '^set format y' "$gp")"
grep -q "index 1 using (\$1/1e9):2 with points lc 2 pt 7 ps 1.5 title 'Y: all zero (16 samples)'" \
    "$gp" && pass || failed "ccdf: Y all zero not noted: $(grep '^plot' "$gp")"
grep -q "keyentry with lines lc 3 dt 3 title 'Z: no samples'" "$gp" && pass ||
    failed "ccdf: Z without samples not noted: $(grep '^plot' "$gp")"
grep -q "^set xlabel 'percent time stalled, credit (P\\\\_Ts)'$" "$TMP/kept/ccdf-pts_credit.gp" &&
    pass || failed "ccdf: the underscore of P_Ts is not escaped for enhanced text"
# the real pictures of the same input
A "$TMP/ppm.tser" -o "$TMP/ppmpng" >/dev/null
for f in ccdf-ppm ccdf-pts_credit; do
    sig=$(od -An -tx1 -N24 "$TMP/ppmpng/$f.png" | tr -d ' \n')
    expect_eq "$f.png: a 900 x 640 PNG" 89504e470d0a1a0a0000000d494844520000038400000280 "$sig"
done

# summary columns as wide as their widest cell: 1e19 packets per minute
# (20 digits) on one d-link; every row's columns end where the header's do
"$WRITE" "$TMP/wide.tser" gemini:4x2x2 60000000000000 <<'EOT'
at 0
at 60000000000000
link 0 X+ 2 1250000000000000000
EOT
expect_ok "wide summary" A "$TMP/wide.tser"
expect_out "wide summary: the 20-digit maximum" ' 10000000000000000000 '
ends() { # the column each field of each line ends at, one line per line
    awk '{ e = ""; for (i = 1; i <= length($0); i++)
        if (substr($0, i, 1) != " " && (i == length($0) || substr($0, i + 1, 1) == " ")) e = e " " i
        print e }' "$1"
}
expect_eq "wide summary: columns aligned" 1 "$(ends "$TMP/out" | sort -u | wc -l)"
expect_eq "wide summary: 4 lines" 4 "$(wc -l <"$TMP/out")"

# the feature graph stays at most about 2000 pixels wide: on gemini:4x8x8
# every Gemini's X+ credit stall is 50 % (24e9 of 48e9 cycles a minute per
# tile) for two minutes, 64 whole rings a minute - 64 features side by
# side, which Graphviz drew 5,000 pixels wide, are cells of 4 lines
every_xplus() { # T CYCLES: a snapshot at T ps, every Gemini's X+ tiles at CYCLES
    echo "at $1"
    r=0
    while [ $r -lt 256 ]; do
        echo "link $r X+ 5 $2"
        r=$((r + 1))
    done
}
{
    echo "at 0"
    every_xplus 60000000000000 24000000000
    every_xplus 120000000000000 48000000000
} | "$WRITE" "$TMP/rings.tser" gemini:4x8x8 60000000000000
expect_ok "many features" A "$TMP/rings.tser" -o "$TMP/rings"
expect_eq "many features: 128 of them" 129 "$(wc -l <"$TMP/rings/regions.csv")"
png_size() { # WIDTH HEIGHT of a PNG, from its IHDR chunk
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
        $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}
size=$(png_size "$TMP/rings/features.png")
[ "${size% *}" -le 2000 ] && [ "${size% *}" -ge 600 ] && pass ||
    failed "features.png is $size pixels: not 600 to 2000 wide"
grep -q 'a cell per 4 lines and 1 interval' "$TMP/rings/features.dot" && pass ||
    failed "features.dot: no cells of 4 lines"
grep -q 'label="1: 1.00 min"' "$TMP/rings/features.dot" && pass ||
    failed "features.dot: the time of interval 1 is not in minutes"
grep -q ' ps' "$TMP/rings/features.dot" && failed "features.dot: raw picoseconds" || pass
# without features the picture says why: the highest X+ credit P_Ts of
# s.tser is Gemini 5's 75 in the second minute, under a threshold of 80
expect_ok "no feature" A "$TMP/s.tser" --threshold=80 -o "$TMP/nofeat"
grep -qF 'no X+ d-link reached pts_credit >= 80.\nThe highest was 75 (c1-0c0s1g0, interval 1 at 1.00 min)' \
    "$TMP/nofeat/features.dot" && pass || failed "empty graph: no reason: $(cat "$TMP/nofeat/features.dot")"
[ "$(png_size "$TMP/nofeat/features.png" | cut -d' ' -f2)" -ge 60 ] && pass ||
    failed "empty features.png is too small to hold the reason"

# --- bad input
expect_fail "csv without machine" "needs --machine" A "$CSV"
expect_fail "series with machine" "--machine applies to LDMS CSV input" \
    A "$TMP/a.tser" --machine gemini:4x2x2
"$WRITE" "$TMP/q.tser" bgq:2x2x2x2x2 1000 </dev/null
expect_fail "not gemini" "is a bgq machine: link-level analysis reads Gemini d-links" A "$TMP/q.tser"
"$WRITE" "$TMP/one.tser" gemini:2x2x2 1000 <<'EOT'
at 0
EOT
expect_fail "one sample" "fewer than two samples" A "$TMP/one.tser"
sed 's/X-_packets (1)/X-_packets (B)/' "$CSV" >"$TMP/unit.csv"
expect_fail "wrong unit" "column 'X-_packets (B)': the unit should be (1)" \
    A "$TMP/unit.csv" -m gemini:4x2x2
sed 's/, Z-_credit_stall (ns)//' "$CSV" >"$TMP/col.csv"
expect_fail "missing column" "lacks the column Z-_credit_stall (ns)" A "$TMP/col.csv" -m gemini:4x2x2
{ head -1 "$CSV"; sed -n 5p "$CSV"; sed -n 2p "$CSV"; } >"$TMP/order.csv"
expect_fail "out of order" "order.csv:3: rows are not in time order" \
    A "$TMP/order.csv" -m gemini:4x2x2
{ head -1 "$CSV"; sed -n '2s/, nid00000, 0, /, nid00099, 99, /p' "$CSV"; } >"$TMP/nid.csv"
expect_fail "node out of range" "component_id '99' is not a node of gemini:4x2x2 (0..31)" \
    A "$TMP/nid.csv" -m gemini:4x2x2
{ head -1 "$CSV"; sed -n '2s/, 1000, /, 1x0, /p' "$CSV"; } >"$TMP/num.csv"
expect_fail "bad number" "X+_traffic '1x0' is not a whole number" A "$TMP/num.csv" -m gemini:4x2x2
{ head -1 "$CSV"; sed -n '2s/^[^,]*,/1483228800.5x,/p' "$CSV"; } >"$TMP/time.csv"
expect_fail "bad time" "Time '1483228800.5x' is not seconds" A "$TMP/time.csv" -m gemini:4x2x2
{ head -1 "$CSV"; sed -n '2s/, [0-9]*$//p' "$CSV"; } >"$TMP/short.csv"
expect_fail "short row" ":2: 36 fields, the header has 37" A "$TMP/short.csv" -m gemini:4x2x2
# a NUL byte would end its line there: a NUL for the newline after line
# 5 silently dropped line 6 (node 1's second sample)
{ head -4 "$CSV"; sed -n 5p "$CSV" | tr -d '\n'; printf '\000'; tail -n +6 "$CSV"; } >"$TMP/nul.csv"
expect_eq "NUL byte: one line less" 8 "$(wc -l <"$TMP/nul.csv" | tr -d ' ')"
expect_fail "NUL byte" "nul.csv:5: a NUL byte (column 194): not a text file" \
    A "$TMP/nul.csv" -m gemini:4x2x2
printf '#Time, component\000_id\n' >"$TMP/nulhead.csv"
expect_fail "NUL byte in the header" "nulhead.csv:1: a NUL byte (column 17): not a text file" \
    A "$TMP/nulhead.csv" -m gemini:4x2x2
printf 'hello\n' >"$TMP/x.csv"
expect_fail "no header" "not an LDMS CSV file" A "$TMP/x.csv" -m gemini:4x2x2
expect_fail "bad report" "--report 'all' is not one of" A "$CSV" -m gemini:4x2x2 --report=all
expect_fail "bad threshold" "--threshold '120' is not a percentage" A "$CSV" -m gemini:4x2x2 \
    --threshold=120
expect_fail "bad feature link" "--feature-link 'HH' is not a torus direction" \
    A "$CSV" -m gemini:4x2x2 --feature-link=HH
expect_fail "bad feature" "--feature 'stall' is not one of credit, inq, pbu" \
    A "$CSV" -m gemini:4x2x2 --feature=stall
expect_fail "quote in dir" "holds a quote" A "$CSV" -m gemini:4x2x2 -o "$TMP/it's"
expect_fail "missing file" "cannot open '$TMP/none'" A "$TMP/none"
expect_fail "gnuplot missing" "cannot run $TMP/nogp" env TORUSEMU_GNUPLOT="$TMP/nogp" \
    "$TORUSEMU" analyze "$CSV" -m gemini:4x2x2 -o "$TMP/fig2"
expect_fail "dot missing" "(Debian: apt-get install graphviz)" env TORUSEMU_DOT="$TMP/nodot" \
    "$TORUSEMU" analyze "$CSV" -m gemini:4x2x2 -o "$TMP/fig3"
finish
