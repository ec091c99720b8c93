#!/bin/sh
# mix.sh - `torusemu replay --mix FILE`: several jobs at once on disjoint
# nodes of one machine (doc/replay.md, "Job mixes").  Checked:
#   - the volume counters of a mix are, counter for counter, the sums of
#     its jobs replayed alone on the same nodes (summed here by awk);
#   - a job alone in a mix gives the store and timed report of its plain
#     replay;
#   - with --timing the jobs run in one model run: their traffic competes
#     (the mix ends later than either job alone, sooner than one after the
#     other) and the volume counters are those without --timing;
#   - --figures writes seed 004's figures from the mix's series;
#   - every malformed mix file is refused naming the line and the problem.
. "${top_srcdir:-.}/tests/lib.sh"

M=gemini:4x2x2 # 16 Geminis, 32 nodes: node n on Gemini n/2 = z + 2 (y + 2 x)

# every counter of a store, tile by tile, as "unit,name,link,tile,counter value"
counters() {
    "$TORUSEMU" dump "$1" --tiles --all --format csv |
        awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 "," $6, $7 }' | sort
}
# the same without the timing model's stall counters
volume() { counters "$1" | grep -v -e INQ_STALL -e CREDIT_STALL; }
# replay mix file $1 into store $2 (more options after)
mix() {
    f=$1 s=$2
    shift 2
    expect_ok "replay $(basename "$f")" "$TORUSEMU" replay --machine "$M" --mix "$f" \
        --keep "$s" --replace --quiet --threads 2 "$@"
}

# job C's map file: its 8 ranks on nodes 31, 30, ..., 24 (X Y Z N T)
awk 'BEGIN { for (r = 0; r < 8; r++) { n = 31 - r; g = int(n / 2)
    print int(g / 4), int(g / 2) % 2, g % 2, n % 2, 0 } }' >"$TMP/c.map"

# five jobs: contiguous from node 0, a node list with 3 ranks per node, a
# map file, contiguous after the previous job's last node (12, 13), and
# GPCNeT on its least, 10 nodes
A="halo ranks=8 grid=2x2x2 size=4 vars=2 steps=2"
B="random ranks=12 ranks-per-node=3 nodes=8-11 bytes=1K seed=3 steps=3"
C="fft ranks=8 map=c.map grid=4x2 size=8"
D="neighbor ranks=2 bytes=2K"
E="gpcnet ranks=10 nodes=14-23"
{
    echo "# a mix of four jobs"
    echo "$A"
    echo ""
    echo "$B   # two per node"
    echo "$D"
    echo "$C"
    echo "$E"
} >"$TMP/all.mix"
echo "$A" >"$TMP/a.mix"
echo "$B" >"$TMP/b.mix"
echo "$C" >"$TMP/c.mix"
echo "$D at=12" >"$TMP/d.mix"
echo "$E" >"$TMP/e.mix"

mix "$TMP/all.mix" "$TMP/all.store"
volume "$TMP/all.store" >"$TMP/all.txt"
for j in a b c d e; do
    mix "$TMP/$j.mix" "$TMP/$j.store"
    volume "$TMP/$j.store" >"$TMP/$j.txt"
done
# the sums, counter for counter
awk '{ sum[$1] += $2 } END { for (k in sum) print k, sum[k] }' "$TMP/a.txt" "$TMP/b.txt" \
    "$TMP/c.txt" "$TMP/d.txt" "$TMP/e.txt" | sort >"$TMP/sum.txt"
[ "$(wc -l <"$TMP/all.txt")" -gt 1000 ] && pass || failed "too few counters: $(wc -l <"$TMP/all.txt")"
awk '$2 > 0' "$TMP/all.txt" | grep -q ',NIC,' && pass || failed "no NIC traffic in the mix"
cmp -s "$TMP/all.txt" "$TMP/sum.txt" && pass ||
    failed "mix volume is not the sum of its jobs: $(diff "$TMP/all.txt" "$TMP/sum.txt" | head -5)"
# each job touched its own nodes' NICs only: job B's 4 nodes
awk '$1 ~ /,NIC,/ && $1 ~ /ORB_VC0_PKTS/ && $2 > 0' "$TMP/b.txt" | wc -l | tr -d ' ' >"$TMP/nb"
expect_eq "job B sends from its 4 nodes" 4 "$(cat "$TMP/nb")"
# the summary counts the mix's ranks and operations
expect_ok "mix summary" "$TORUSEMU" replay --machine "$M" --mix "$TMP/all.mix" --threads 1
# sends: halo 2x2x2 has 24 faces x 2 steps = 48; random 12 x 3 = 36;
# neighbor on a ring of 2: 2 ranks x 2 directions = 4; gpcnet on 10 nodes:
# 2 canaries (10 - floor(0.8 x 10)) send 1 + 8 messages to each of 2
# neighbours = 36, the 8 congestor nodes, 2 per congestor, one all-to-all
# exchange (2 sends), one incast send, one PUT and one GET; collectives:
# fft's 2 all-to-alls x 8 ranks, the canaries' barrier and allreduce x 2
grep -q "40 ranks on gemini:4x2x2, 3 per node; mix" "$TMP/err" && pass ||
    failed "mix summary line: $(cat "$TMP/err")"
grep -q "replayed 127 sends, 2 one-sided operations, 20 collective calls" "$TMP/err" && pass ||
    failed "mix sends: $(cat "$TMP/err")"

# a job alone in a mix is its plain replay: store and timed report
expect_ok "plain halo" "$TORUSEMU" replay --machine "$M" --pattern halo --grid 2x2x2 --size 4 \
    --vars 2 --steps 2 -np 8 --keep "$TMP/plain.store" --quiet
counters "$TMP/plain.store" >"$TMP/plain.txt"
counters "$TMP/a.store" >"$TMP/a-all.txt"
cmp -s "$TMP/plain.txt" "$TMP/a-all.txt" && pass || failed "a job alone differs from its replay"
expect_ok "plain halo timed" "$TORUSEMU" replay --machine "$M" --pattern halo --grid 2x2x2 \
    --size 4 --vars 2 --steps 2 -np 8 --timing --quiet --format csv
mv "$TMP/out" "$TMP/plain.csv"
expect_ok "mixed halo timed" "$TORUSEMU" replay --machine "$M" --mix "$TMP/a.mix" --timing \
    --quiet --format csv
cmp -s "$TMP/out" "$TMP/plain.csv" && pass || failed "a timed job alone differs from its replay"

# timed: the jobs compete.  Two bisections of 16 ranks, one on the nodes
# of x = 0 and 2, one on x = 1 and 3 (8 nodes per x): every message
# crosses 2 X hops, through an x the other job sits on, so the jobs
# share X links and end later together.
# runtime ps of the timed report on stdin
runtime() { sed -n 's/^predicted runtime \([0-9]*\)\.\([0-9]*\) us.*/\1\2/p' "$TMP/out"; }
echo "bisection ranks=16 nodes=0-7,16-23 bytes=16K" >"$TMP/t1.mix"
echo "bisection ranks=16 nodes=8-15,24-31 bytes=16K" >"$TMP/t2.mix"
cat "$TMP/t1.mix" "$TMP/t2.mix" >"$TMP/t12.mix"
for j in t1 t2 t12; do
    mix "$TMP/$j.mix" "$TMP/$j.store" --timing
    eval "rt_$j=\$(runtime)"
    expect_ok "$j per rank" "$TORUSEMU" replay --machine "$M" --mix "$TMP/$j.mix" --timing \
        --quiet --format csv
    mv "$TMP/out" "$TMP/$j.csv"
done
# every rank of both jobs ends later in the mix than alone (job 2's ranks
# are ranks 16..31 of the mix, 0..15 alone)
awk -F, 'FNR == 1 { f++; next }
    f < 3 { alone[(f - 1) * 16 + $1] = $3; next }
    !($3 > alone[$1]) { bad++; print "rank", $1, $3, "alone", alone[$1] }
    END { exit bad > 0 }' "$TMP/t1.csv" "$TMP/t2.csv" "$TMP/t12.csv" >"$TMP/slower" && pass ||
    failed "ranks not slowed by the other job: $(head -3 "$TMP/slower")"
echo "runtime ps: t1 $rt_t1, t2 $rt_t2, together $rt_t12"
[ "$rt_t12" -gt "$rt_t1" ] && [ "$rt_t12" -gt "$rt_t2" ] && pass ||
    failed "the mix does not end later than its jobs alone: $rt_t1 $rt_t2 $rt_t12"
[ "$rt_t12" -lt $((rt_t1 + rt_t2)) ] && pass ||
    failed "the jobs ran one after the other: $rt_t1 + $rt_t2 <= $rt_t12"
# jobs that share no link time exactly as alone: two neighbour exchanges,
# one on the Geminis of y = 0, one on y = 1 (dimension order keeps each
# job's packets in its plane), 2 steps after 1 us of computing each
echo "neighbor ranks=16 nodes=0-3,8-11,16-19,24-27 grid=4x2x2 bytes=4K steps=2 compute=1us" \
    >"$TMP/p1.mix"
echo "neighbor ranks=16 nodes=4-7,12-15,20-23,28-31 grid=4x2x2 bytes=4K steps=2 compute=1us" \
    >"$TMP/p2.mix"
cat "$TMP/p1.mix" "$TMP/p2.mix" >"$TMP/p12.mix"
for j in p1 p2 p12; do
    expect_ok "$j per rank" "$TORUSEMU" replay --machine "$M" --mix "$TMP/$j.mix" --timing \
        --quiet --format csv
    mv "$TMP/out" "$TMP/$j.csv"
done
# the mix's rows, ranks 16.. renumbered from 0, are p1's rows then p2's
{ tail -n +2 "$TMP/p1.csv"; tail -n +2 "$TMP/p2.csv"; } >"$TMP/p1p2.csv"
tail -n +2 "$TMP/p12.csv" | awk -F, -v OFS=, '$1 >= 16 { $1 -= 16 } 1' >"$TMP/p12r.csv"
[ "$(wc -l <"$TMP/p12r.csv")" -eq 32 ] && cmp -s "$TMP/p1p2.csv" "$TMP/p12r.csv" && pass ||
    failed "jobs apart do not time as alone: $(diff "$TMP/p1p2.csv" "$TMP/p12r.csv" | head -4)"
awk -F, '$4 != 2000000 { bad = 1 } END { exit bad }' "$TMP/p12r.csv" && pass ||
    failed "compute time per rank is not 2 x 1 us: $(head -3 "$TMP/p12r.csv")"

# timed volume = untimed volume; stalls only with timing
mix "$TMP/t12.mix" "$TMP/t12u.store"
volume "$TMP/t12.store" >"$TMP/t12.txt"
volume "$TMP/t12u.store" >"$TMP/t12u.txt"
cmp -s "$TMP/t12.txt" "$TMP/t12u.txt" && pass || failed "timed mix volume differs"
counters "$TMP/t12.store" | awk '/INQ_STALL/ && $2 > 0' | grep -q . && pass ||
    failed "no inq stall in the timed mix"

# --figures: seed 004's figures of the mix's series in one command
expect_ok "figures" "$TORUSEMU" replay --machine "$M" --mix "$TMP/t12.mix" --timing --quiet \
    --interval 2us --figures "$TMP/fig"
for f in summary.csv links.csv ccdf.csv correlation.csv regions.csv nodes.csv features.dot \
    replay.tser; do
    [ -s "$TMP/fig/$f" ] && pass || failed "--figures: no $f"
done
grep -q "^$TMP/fig/summary.csv\$" "$TMP/out" && pass || failed "--figures: paths not printed"
# the summary is analyze's of the series the replay wrote
expect_ok "analyze the series" "$TORUSEMU" analyze "$TMP/fig/replay.tser" --report=summary \
    --format=csv
cmp -s "$TMP/out" "$TMP/fig/summary.csv" && pass || failed "--figures: summary differs"
if command -v gnuplot >/dev/null 2>&1; then
    [ "$(head -c 4 "$TMP/fig/ccdf-pts_inq.png" | od -An -c | tr -d ' ')" = "211PNG" ] && pass ||
        failed "--figures: ccdf-pts_inq.png is not a PNG"
fi
expect_fail "figures on Blue Gene" "Gemini d-links" "$TORUSEMU" replay --machine bgq-64 \
    --pattern random --timing --interval 1us --figures "$TMP/fig2"
printf 'halos ranks=4\n' >"$TMP/typo.mix"
expect_fail "figures of a refused mix" "typo.mix:1: unknown pattern" "$TORUSEMU" replay \
    --machine "$M" --mix "$TMP/typo.mix" --timing --interval 1us --figures "$TMP/fig3"
[ ! -e "$TMP/fig3" ] && pass || failed "a refused mix left its --figures directory"
expect_fail "figures without an interval" "needs --interval" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/t12.mix" --timing --figures "$TMP/fig2"
expect_fail "figures without timing" "go with --timing" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/t12.mix" --interval 1us --figures "$TMP/fig2"
expect_fail "figures of gpcnet's two runs" "not with the gpcnet pattern" "$TORUSEMU" replay \
    --machine "$M" --pattern gpcnet --timing --interval 1us --figures "$TMP/fig2"

# errors: file, line and problem
bad() { # bad DESC PATTERN LINE...: the file of those lines is refused
    desc=$1 pat=$2
    shift 2
    printf '%s\n' "$@" >"$TMP/bad.mix"
    expect_fail "$desc" "$pat" "$TORUSEMU" replay --machine "$M" --mix "$TMP/bad.mix"
}
bad "unknown pattern" "bad.mix:2: unknown pattern 'halos'" "$A" "halos ranks=4"
bad "unknown key" "bad.mix:1: unknown key 'rank'" "random rank=4"
bad "key twice" "bad.mix:1: bytes given twice" "random ranks=4 bytes=1K bytes=2K"
bad "no ranks" "bad.mix:1: ranks=P missing" "random bytes=1K"
bad "not KEY=VALUE" "bad.mix:1: 'bytes': expected KEY=VALUE" "random ranks=4 bytes"
bad "bad ranks" "bad.mix:1: ranks '0': expected an integer from 1 to 2147483647" "random ranks=0"
bad "bad parameter" "bad.mix:1: grid '2x': expected AxB or XxYxZ" "halo ranks=8 grid=2x"
bad "negative seed" "bad.mix:1: seed '-1': expected an integer from 0 to 2^64 - 1" "random ranks=4 seed=-1"
expect_fail "--seed -1" "--seed '-1': expected an integer from 0" "$TORUSEMU" replay --machine "$M" \
    --pattern random --seed=-1
bad "two placements" "bad.mix:1: at=, nodes= and map= exclude each other" \
    "random ranks=4 at=0 nodes=0-3"
bad "past the machine" "bad.mix:1: 4 ranks at 1 per node need 4 nodes from node 30: past the last node" \
    "random ranks=4 at=30"
# no room asked for a job's ranks before they are known to fit (1 GB of
# address space; 2e9 ranks would want 16 GB of slots).  Under
# AddressSanitizer (make check-sanitize) the address space cannot be
# limited, its shadow memory alone needs terabytes: each allocation is
# limited to 1 GB instead (a larger one is a sanitizer report).
printf "random ranks=2000000000\n" >"$TMP/bad.mix"
HUGE="bad.mix:1: 2000000000 ranks at 1 per node need 2000000000 nodes: gemini:4x2x2 has 32"
if env -u ASAN_OPTIONS sh -c 'ulimit -v 1000000 && exec "$1" --version' sh "$TORUSEMU" \
    >/dev/null 2>&1; then
    expect_fail "huge ranks" "$HUGE" sh -c 'ulimit -v 1000000; exec "$@"' sh \
        "$TORUSEMU" replay --machine "$M" --mix "$TMP/bad.mix"
else
    expect_fail "huge ranks" "$HUGE" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=1000" \
        "$TORUSEMU" replay --machine "$M" --mix "$TMP/bad.mix"
fi
bad "too many nodes in all" "bad.mix:2: 8 ranks at 1 per node need 8 nodes from node 26" \
    "random ranks=26" "random ranks=8"
# no placement: after the highest node of all the jobs before (4), not
# after the previous line's job (2)
bad "packed after all" "bad.mix:3: 30 ranks at 1 per node need 30 nodes from node 4" \
    "random ranks=2 nodes=2-3" "random ranks=2 at=0" "random ranks=30"
bad "overlap" "bad.mix:2: node 6 is also a node of the job on line 1" "$A" "random ranks=4 at=6"
bad "overlap with a list" "bad.mix:3: node 9 is also a node of the job on line 1" \
    "random ranks=4 nodes=9,1-3" "" "random ranks=2 nodes=30,9"
bad "short list" "bad.mix:1: nodes '0-2': 8 ranks at 2 per node need 4 nodes, the list has 3" \
    "random ranks=8 ranks-per-node=2 nodes=0-2"
bad "long list" "bad.mix:1: nodes '0-5': 8 ranks at 2 per node need 4 nodes, the list has more" \
    "random ranks=8 ranks-per-node=2 nodes=0-5"
bad "node outside" "bad.mix:1: nodes '30-32': node 32 is not a node of gemini:4x2x2 (0..31)" \
    "random ranks=3 nodes=30-32"
bad "node twice in a list" "bad.mix:1: nodes .2,3,2.: node 2 listed twice" "random ranks=3 nodes=2,3,2"
bad "bad list" "bad.mix:1: nodes '3-1': expected ranges A-B with A <= B" "random ranks=3 nodes=3-1"
bad "ranks per node" "bad.mix:1: 17 ranks per node: a gemini node has 16 hardware threads" \
    "random ranks=17 ranks-per-node=17"
bad "bad map file" "bad.mix:1: map=none.map: " "random ranks=2 map=none.map"
long=$(awk 'BEGIN { while (length(s) < 4100) s = s "m"; print s }')
bad "map path too long" "bad.mix:1: map=mmmm.*: the path is longer than" "random ranks=2 map=$long"
bad "pattern's own check" "bad.mix:1: halo: --grid XxYxZ must hold the 4 ranks" "halo ranks=4 grid=2x2x2"
bad "no job" "bad.mix: no job" "# nothing" ""
# a NUL byte would end its line there and drop the rest (here: the nodes)
printf 'random ranks=2 at=0\nrandom ranks=2\000 nodes=8-9\nrandom ranks=2 at=4\n' >"$TMP/nul.mix"
expect_fail "NUL byte" "nul.mix:2: a NUL byte (column 15): not a text file" "$TORUSEMU" replay \
    --machine "$M" --mix "$TMP/nul.mix"
expect_fail "missing file" "nothere.mix: No such file" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/nothere.mix"
expect_fail "-np with a mix" "go in the mix file" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/a.mix" -np 4
expect_fail "--grid with a mix" "go in the mix file" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/a.mix" --grid 2x2x2
expect_fail "mix and pattern" "exclude each other" "$TORUSEMU" replay --machine "$M" \
    --mix "$TMP/a.mix" --pattern random
finish
