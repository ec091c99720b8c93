#!/bin/sh
# bench_vtime_live.sh BUILD_DIR [RUNS] [ITERATIONS] - host time per
# message of a live `torusemu run --virtual-time --cpu-scale 0` run with
# the online timing model (Gemini 4x4x4): bench_vtime_live's ring of 8-byte
# messages on 2 and on 16 ranks, RUNS times each (default 5), ITERATIONS
# ring steps (default 2000).  Prints medians per message of: host wall
# time, the ranks' CPU time (all ranks together) and the launcher's model
# thread's CPU time (its own clock, from the launcher's summary).  On a
# 2-core host the wall time is at least (ranks' CPU + model CPU) / 2.
set -eu
B=${1:-_build}
RUNS=${2:-5}
ITERS=${3:-2000}
PROG="$B/bench/bench_vtime_live"
TORUSEMU="$B/torusemu"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-vtime-live.XXXXXX")
trap 'rm -rf "$T"' EXIT
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo TORUSEMU_MPI_QUIET=1

# median FILE: the median of the numbers in FILE, one a line
median() {
    sort -g "$1" |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

i=1
while [ "$i" -le "$RUNS" ]; do
    for np in 2 16; do
        "$TORUSEMU" run --machine gemini:4x4x4 -np "$np" --virtual-time --cpu-scale 0 --host-clocks \
            -- "$PROG" "$ITERS" >"$T/out" 2>"$T/err"
        n=$(awk '$1 == "messages" { print $2 }' "$T/out")
        awk '$1 == "host_us_per_msg" { print $2 }' "$T/out" >>"$T/$np.host"
        awk '$1 == "rank_cpu_us_per_msg" { print $2 }' "$T/out" >>"$T/$np.rank"
        awk '$1 == "virtual_ps_per_iter" { print $2 }' "$T/out" >>"$T/$np.virt"
        # the model thread's CPU over the whole run (warm-up and set-up
        # included: an upper bound per timed message)
        sed -n 's/.*the model thread used \([0-9.]*\) s of host CPU.*/\1/p' "$T/err" |
            awk -v n="$n" -v w="$((ITERS / 10 + 1))" -v np="$np" \
                '{ printf "%.3f\n", $1 * 1e6 / (n + w * np) }' >>"$T/$np.model"
    done
    i=$((i + 1))
done

echo "gemini:4x4x4, ring of 8-byte messages, $ITERS steps, --virtual-time --cpu-scale 0;"
echo "medians of $RUNS runs, microseconds per message"
printf '%-6s %12s %14s %15s %18s\n' ranks host-wall ranks-CPU model-CPU "virtual ps/step"
for np in 2 16; do
    printf '%-6s %12.3f %14.3f %15.3f %18s\n' "$np" "$(median "$T/$np.host")" \
        "$(median "$T/$np.rank")" "$(median "$T/$np.model")" \
        "$(sort -u "$T/$np.virt" | tr '\n' ' ')"
done
