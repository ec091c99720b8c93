#!/bin/sh
# bench_production.sh BUILDDIR - `make bench-production`: one minute of
# virtual time of a production period on the whole of Blue Waters
# (gemini:24x24x24, 13,824 Geminis, 27,648 nodes), minute samples, the
# topology-aware allocator; reports the CPU time against the target of
# issue 24 (under 10 minutes).  A missed target is reported (MISSED), not
# an error: a loaded host misses such targets.
set -eu
B=${1:-.}
out=${TMPDIR:-/tmp}/bench-production.$$
trap 'rm -f "$out".tser "$out".txt' EXIT
"$B/torusemu" production --machine gemini:24x24x24 --duration 1min --interval 60s \
    --allocator "${ALLOCATOR:-topo}" --seed 1 --series "$out.tser" -q >"$out.txt"
cat "$out.txt"
cpu=$(sed -n 's/^cpu  *\([0-9.]*\) s$/\1/p' "$out.txt")
verdict=$(awk -v c="$cpu" 'BEGIN { print (c < 600 ? "met" : "MISSED") }')
echo "bench-production: one minute of Blue Waters in $cpu s of CPU (target 600 s): $verdict"
