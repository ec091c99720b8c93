#!/bin/sh
# bench_threads.sh BUILDDIR [RUNS] - the packet model's parallel engine
# (`torusemu replay --timing --threads N`; doc/performance.md, "Parallel
# engine"): wall and CPU time of the serial engine (no --threads), of
# --threads 1 and 2 (medians of RUNS runs, default 3) on a BG/Q midplane
# (seed 003's first FFT transpose, 8,192 ranks) and a Gemini 8x8x8
# (MiniGhost halo, 2,048 ranks; Blue Waters is 24x24x24 of them), the
# host's load around them, and the engine's synchronisation (windows,
# events per window, boundary crossings, the balance bound: events / the
# busiest region's events summed over the windows; the barriers' wait
# summed over threads and its sleeps; thread 0's time alone telling the
# window's reports) for 1, 2, 16 and 64 regions (16 and 64 on the FFT
# only).  Results are the same for every N and the serial engine; each
# run's per-rank table is compared with the first.
set -eu
B=${1:-.}
RUNS=${2:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-threads.XXXXXX")
trap 'rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# run NAME N ARGS...: one replay (N 0: the serial engine); appends "wall
# cpu" to $T/NAME.N, the engine's line to $T/NAME.N.sync
run() {
    name=$1
    n=$2
    shift 2
    th="--threads $n"
    [ "$n" -gt 0 ] || th=""
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S' -o "$T/time" "$B/torusemu" replay --timing $th \
        --quiet "$@" >"$T/out" 2>"$T/err"
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$T/time" >>"$T/$name.$n"
    grep '^parallel engine' "$T/err" >"$T/$name.$n.sync" || :
    if [ -f "$T/$name.ref" ]; then
        cmp -s "$T/$name.ref" "$T/out" || {
            echo "bench_threads: $name: --threads $n gives other results" >&2
            exit 1
        }
    else
        cp "$T/out" "$T/$name.ref"
    fi
}

# case_report NAME "REGIONS" ARGS...: the runs of one case, then one run
# for each further region count in REGIONS
case_report() {
    name=$1
    more=$2
    shift 2
    for _ in $(seq "$RUNS"); do
        run "$name" 0 "$@"
        run "$name" 1 "$@"
        run "$name" 2 "$@"
    done
    w0=$(cut -d' ' -f1 "$T/$name.0" | median)
    w1=$(cut -d' ' -f1 "$T/$name.1" | median)
    w2=$(cut -d' ' -f1 "$T/$name.2" | median)
    c0=$(cut -d' ' -f2 "$T/$name.0" | median)
    c1=$(cut -d' ' -f2 "$T/$name.1" | median)
    c2=$(cut -d' ' -f2 "$T/$name.2" | median)
    printf '%-28s serial: %7.2f s wall %7.2f s CPU; threads 1: %7.2f s wall %7.2f s CPU; threads 2: %7.2f s wall %7.2f s CPU; wall speed-up %.2fx\n' \
        "$name" "$w0" "$c0" "$w1" "$c1" "$w2" "$c2" "$(echo "$w1 $w2" | awk '{ print $1 / $2 }')"
    echo "  1 region: $(sed 's/^parallel engine: //' "$T/$name.1.sync")"
    echo "  2 regions: $(sed 's/^parallel engine: //' "$T/$name.2.sync")"
    for n in $more; do
        run "$name" "$n" "$@"
        echo "  $n regions: $(sed 's/^parallel engine: //' "$T/$name.$n.sync")"
    done
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
case_report "bgq midplane fft phase 1" "16 64" --machine midplane --ranks-per-node 16 --pattern fft \
    --grid 16x512 --size 256 --phase 1
# 16 and 64 regions of the halo (15 events per window) take tens of
# minutes on a shared host and only add barriers: not run
case_report "gemini 8x8x8 halo" "" --machine gemini:8x8x8 --ranks-per-node 2 --pattern halo \
    --grid 16x16x8 --size 10 --vars 2
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
