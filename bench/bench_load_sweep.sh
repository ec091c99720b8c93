#!/bin/sh
# bench_load_sweep.sh [BUILD_DIR] - the packet model's work per packet-hop
# from 10 % to 200 % of saturation (issue 25): bench_load_sweep's table
# (events per packet-hop, CPU ns per packet-hop: Gemini 8x8x8, BG/Q
# 4x4x4x4x2, BG/P 8x8x8, uniform and tornado, single packets), then the
# model's instructions per packet-hop under callgrind (deterministic; only
# temu_tm_run and temu_tm_send, not the driver) at 0.1, 1 and 2 times each
# case's saturation, and each against the case's lowest-load figure.
# BENCH_LOAD_SPAN_US: virtual time of each sweep run (default 20);
# BENCH_LOAD_CG_SPAN_US: of each callgrind run (default 10).  A full run:
# BENCH_LOAD_SPAN_US=200 BENCH_LOAD_CG_SPAN_US=50.
set -eu
B=${1:-_build}
SPAN=${BENCH_LOAD_SPAN_US:-20}
CG_SPAN=${BENCH_LOAD_CG_SPAN_US:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_load_sweep.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$B/bench/bench_load_sweep" "$SPAN" | tee "$T/sweep"
echo "instructions per packet-hop (callgrind, temu_tm_run + temu_tm_send, $CG_SPAN us a run)"
# "SPEC PATTERN: saturation S ..." lines
sed -n 's/^\([^ ]*\) \([a-z]*\): saturation \([0-9.]*\) .*/\1 \2 \3/p' "$T/sweep" |
    while read -r spec pattern sat; do
        low=""
        for x in 0.1 1 2; do
            offered=$(echo "$x $sat" | awk '{ printf "%.6f", $1 * $2 }')
            "$B/libtool" --mode=execute valgrind --tool=callgrind --callgrind-out-file="$T/cg" \
                --toggle-collect=temu_tm_run --toggle-collect=temu_tm_send \
                "$B/bench/bench_load_sweep" -1 "$CG_SPAN" "$spec" "$pattern" "$offered" \
                >"$T/out" 2>"$T/err"
            ir=$(callgrind_annotate "$T/cg" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
            hops=$(sed -n 's/.*: \([0-9]*\) packet-hops.*/\1/p' "$T/out")
            per=$(echo "$ir $hops" | awk '{ printf "%.1f", $1 / $2 }')
            low=${low:-$per}
            echo "$spec $pattern $x $per $low" | awk '{
                printf "  %-14s %-8s %4s x sat: %8.1f instructions per packet-hop, %.2f x the lowest load\n",
                    $1, $2, $3, $4, $4 / $5 }'
        done
    done
