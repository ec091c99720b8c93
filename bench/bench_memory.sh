#!/bin/sh
# bench_memory.sh [BUILD_DIR] - memory of the packet model (issue 25):
# peak RSS and the most train records held at once (temu_tm_records) of
# bench_timing_scale's seed 003 all-to-all (every message sent at time 0)
# with single packets, each run stopped after its CPU budget:
#   sizes     a midplane, the same 122,880 messages 1, 8 and 64 times as
#             large: a send is one record until its injection channel
#             takes its packets, so records and RSS stay put;
#   machines  a midplane, a quarter of Mira and Mira, messages of about the
#             same size: RSS grows with channels and messages outstanding
#             (here all of them, sent at once).
# BENCH_MEMORY_BUDGET: CPU seconds of each run after its sends (default 3;
# the peak is reached by the sends, the run only drains).
# BENCH_MEMORY_MIRA=0 leaves Mira out (its sends need about 3.3 GB).
# Then `torusemu replay --timing` of a pattern for growing step counts
# (neighbor, 8-byte messages, on gemini:4x4x4's 128 ranks: 768 messages a
# step), generated as the ranks reach each step (the default) and recorded
# whole first (TORUSEMU_RECORD_WHOLE=1): peak RSS flat against growing with
# the steps.  Needs GNU time (/usr/bin/time); BENCH_MEMORY_STEPS: the
# largest count (default 10000; 0 leaves these rows out).  The same for a
# mix of three jobs on gemini:4x4x4 (neighbor on 64 ranks, tornado and
# halo on 32 each, 544 messages a step of all three), each generated step
# by step in its own window of ids; BENCH_MEMORY_MIX_STEPS: the largest
# count (default 1000; 0 leaves them out).  Then an OTF2 trace
# (tests/otf2_foreign --ring: 16 ranks on gemini-tiny, each sending 256
# bytes to the next every step, a barrier every 10 steps) read as the
# ranks reach it, 65,536 records at a time, against read whole first;
# BENCH_MEMORY_TRACE_STEPS: the largest count (default 100000; 0 leaves
# them out).  Then GPCNeT's Congestion Impact (--pattern gpcnet, gemini-tiny,
# 4 KiB bandwidth messages) for 10, 100, ... iterations per test, its runs
# recorded as the ranks reach them (the congestors' rounds made until the
# canaries end) against recorded whole (with the doubling reruns);
# BENCH_MEMORY_GPCNET_STEPS: the largest count (default 1000; 0 leaves
# them out).
set -eu
B=${1:-_build}
BUDGET=${BENCH_MEMORY_BUDGET:-3}
STEPS=${BENCH_MEMORY_STEPS:-10000}
MIX_STEPS=${BENCH_MEMORY_MIX_STEPS:-1000}
TRACE_STEPS=${BENCH_MEMORY_TRACE_STEPS:-100000}
GPCNET_STEPS=${BENCH_MEMORY_GPCNET_STEPS:-1000}
BIN="$B/bench/bench_timing_scale"
row() {
    # row LABEL SPEC A B N: prints messages, pair bytes, records, max RSS
    out=$("$BIN" fft "$2" 16 "$3" "$4" "$5" 1 "$BUDGET")
    echo "$out" | awk -v l="$1" -v a="$3" -v n="$5" -v p="$(($3 * $4))" '{
        msgs = $5; rss = $0; sub(/.*max RSS /, "", rss); sub(/ MB.*/, "", rss)
        rec = $0; sub(/.* MB; /, "", rec); sub(/ records.*/, "", rec)
        printf "%-34s %10d messages %9d bytes each %10d records %7d MB max RSS\n",
            l, msgs, 16 * n * n * n / (p * a), rec, rss
    }'
}
echo "packet model memory, single packets (bench_timing_scale fft, budget ${BUDGET} s a run)"
row "midplane, 16 KiB a pair" midplane 16 512 512
row "midplane, 128 KiB a pair" midplane 16 512 1024
row "midplane, 1 MiB a pair" midplane 16 512 2048
row "quarter Mira (12,288 nodes)" bgq:8x12x16x4x2 16 12288 1452
if [ "${BENCH_MEMORY_MIRA:-1}" != 0 ]; then
    row "Mira (49,152 nodes)" mira 16 49152 2304
fi
steps_rss() {
    # steps_rss N WHOLE: max RSS in MB of N steps, recorded whole if WHOLE=1
    TORUSEMU_RECORD_WHOLE=$2 /usr/bin/time -f '%M' "$B/torusemu" replay --machine gemini:4x4x4 \
        --pattern neighbor --bytes 8 --steps "$1" --timing --quiet 2>&1 >/dev/null |
        awk 'END { printf "%d", $1 / 1024 }'
}
rss_rows() {
    # rss_rows FUNCTION LARGEST PER_STEP: a row per 10, 100, ... LARGEST steps
    n=10
    while [ "$n" -le "$2" ]; do
        printf "%8d steps %10d messages %7d MB max RSS step by step %7d MB recorded whole\n" \
            "$n" $((n * $3)) "$("$1" "$n" 0)" "$("$1" "$n" 1)"
        n=$((n * 10))
    done
}
if [ "$STEPS" -gt 0 ] && [ -x /usr/bin/time ]; then
    echo "timed replay of a pattern: neighbor on gemini:4x4x4 (128 ranks, 768 messages a step)"
    rss_rows steps_rss "$STEPS" 768
fi
mix_rss() {
    # mix_rss N WHOLE: max RSS in MB of the mix's jobs N steps each
    printf '%s\n' "neighbor ranks=64 grid=4x4x4 bytes=8 steps=$1" \
        "tornado ranks=32 bytes=8 steps=$1" "halo ranks=32 grid=4x4x2 size=4 vars=1 steps=$1" \
        >"$MIXDIR/m.mix"
    TORUSEMU_RECORD_WHOLE=$2 /usr/bin/time -f '%M' "$B/torusemu" replay --machine gemini:4x4x4 \
        --mix "$MIXDIR/m.mix" --timing --quiet 2>&1 >/dev/null | awk 'END { printf "%d", $1 / 1024 }'
}
if [ "$MIX_STEPS" -gt 0 ] && [ -x /usr/bin/time ]; then
    MIXDIR=$(mktemp -d)
    trap 'rm -rf "$MIXDIR"' EXIT
    echo "timed replay of a mix: neighbor (64 ranks), tornado (32), halo (32) on gemini:4x4x4"
    rss_rows mix_rss "$MIX_STEPS" 544
fi
trace_rss() {
    # trace_rss N WHOLE: max RSS in MB of the ring trace of N steps
    if [ ! -d "$TRACEDIR/ring$1" ]; then
        "$B/tests/otf2_foreign" "$TRACEDIR/ring$1" --ring 16 "$1" >/dev/null
    fi
    TORUSEMU_RECORD_WHOLE=$2 /usr/bin/time -f '%M' "$B/torusemu" replay --machine gemini-tiny \
        --trace "$TRACEDIR/ring$1" --timing --quiet 2>&1 >/dev/null | awk 'END { printf "%d", $1 / 1024 }'
}
if [ "$TRACE_STEPS" -gt 0 ] && [ -x /usr/bin/time ]; then
    TRACEDIR=$(mktemp -d)
    trap 'rm -rf "${MIXDIR:-}" "$TRACEDIR"' EXIT
    echo "timed replay of an OTF2 trace: a ring of 16 ranks on gemini-tiny, 16 messages a step"
    rss_rows trace_rss "$TRACE_STEPS" 16 | sed 's/step by step/as read   /; s/recorded whole/read whole/'
fi
gpcnet_run() {
    # gpcnet_run N WHOLE: "max-RSS-MB CPU-s messages rounds runs" of N iterations
    TORUSEMU_RECORD_WHOLE=$2 /usr/bin/time -f 'rss %M cpu %U %S' "$B/torusemu" replay \
        --machine gemini-tiny --pattern gpcnet --bytes 4K --steps "$1" --timing 2>&1 |
        awk '/^rss / { rss = $2; cpu = $4 + $6 }
             / messages, .* bytes of MPI payload/ { sub(/.*torusemu: /, ""); msgs = $1 }
             /^GPCNeT:/ { for (i = 1; i <= NF; i++) { if ($i == "congestor") r = $(i - 1);
                                                      if ($i == "timing") t = $(i - 1) } }
             END { printf "%d %.1f %d %d %d", rss / 1024, cpu, msgs, r, t }'
}
if [ "$GPCNET_STEPS" -gt 0 ] && [ -x /usr/bin/time ]; then
    echo "timed replay of gpcnet on gemini-tiny (16 ranks), 4 KiB bandwidth messages"
    n=10
    while [ "$n" -le "$GPCNET_STEPS" ]; do
        set -- $(gpcnet_run "$n" 0) $(gpcnet_run "$n" 1)
        printf "%8d steps  as reached: %5d MB max RSS %7.1f s CPU %9d messages %7d rounds %d runs\n" \
            "$n" "$1" "$2" "$3" "$4" "$5"
        printf "%8s        whole:      %5d MB max RSS %7.1f s CPU %9d messages %7d rounds %d runs\n" \
            "" "$6" "$7" "$8" "$9" "${10}"
        n=$((n * 10))
    done
fi
