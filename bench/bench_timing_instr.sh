#!/bin/sh
# bench_timing_instr.sh [BUILD_DIR] - instructions per packet-hop of the
# timing model (callgrind: deterministic, the same on every run and
# unaffected by other work on the machine, unlike `make bench-timing`'s
# CPU time).  bench_timing's four ways - single packets, 32-packet
# messages as single packets, in trains of 64, in whole trains - on short
# spans of the three machines; per machine the program's instructions
# (the model's creation, the driver's random traffic and the model) over
# the packet-hops it moved (router-to-router crossings of packets), in
# every run bench_timing makes of each way.
set -eu
B=${1:-_build}
SRC=$(sed -n 's/^abs_top_srcdir = //p' "$B/Makefile")
RUNS=$(sed -n 's/^#define RUNS \([0-9]*\).*/\1/p' "$SRC/bench/bench_timing.c")
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_timing_instr.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "instructions per packet-hop (callgrind; bench_timing, $RUNS runs of each way)"
for spec in "bgp:8x8x8 0.05 20" "bgq:4x4x4x4x2 0.05 4" "gemini:8x8x8 0.05 4"; do
    # shellcheck disable=SC2086 # the spec splits on purpose
    "$B/libtool" --mode=execute valgrind --tool=callgrind --callgrind-out-file="$T/cg" \
        "$B/bench/bench_timing" $spec >"$T/out" 2>"$T/err"
    ir=$(callgrind_annotate "$T/cg" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    hops=$(sed -n 's/.*: \([0-9]*\) packet-hops .*/\1/p' "$T/out" | awk -v r="$RUNS" \
        '{ s += $1 } END { print s * r }')
    echo "$spec us" | awk -v ir="$ir" -v h="$hops" \
        '{ printf "%-24s %13d instructions %9d packet-hops %7.1f per packet-hop\n", $0, ir, h, ir / h }'
done
