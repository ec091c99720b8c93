#!/bin/sh
# bench_gpcnet_flow.sh BUILD_DIR [CPU_LIMIT [BYTES [SHAPE...]]] - the
# `gpcnet` pattern's Congestion Impact from the flow level (`--model flow`,
# `--mpi-costs off`) on Gemini tori and BG/Q partitions of 64, 256, 1,024
# and 4,096 nodes (or the SHAPEs given), one iteration per test; prints the
# three mean impacts, the messages of the last congested run (the
# Allreduce test's), the flow level's work over all the pattern's runs
# (flows started plus rate solutions, as the replay reports it) and the
# CPU microseconds per unit of it, the CPU seconds and the peak resident
# memory (MiB) of each replay.  A replay is
# stopped after CPU_LIMIT seconds of CPU (default 120) and reported as "not
# finished" with how far it got: the virtual time of the timing run under
# way (each of the pattern's runs starts again at 0) and the ranks'
# operations done of all.  BYTES: the bandwidth canary's messages (default 4K).
#
# Target (issue 24): the 1,024-node Gemini torus (GPCNET_FLOW_TARGET_SHAPE,
# default gemini:8x8x8) in under GPCNET_FLOW_TARGET s of CPU (default
# 120); its row ends in "met" or "MISSED" and a summary line counts them
# (the convention of bench/bench_replay.c, tests/bench_targets.sh).  A
# missed target is not an error: the script fails only when a replay
# cannot run.
#
# GPCNET_FLOW_WINDOW=T (e.g. 100ns): every replay with `--flow-window T`
# (the flow level's rates re-solved at most once per T; doc/model.md,
# "Flow level: solve window"); empty or unset: the exact default.
#
# Then the cost with 4 KiB and 128 KiB bandwidth messages on
# GPCNET_FLOW_COMPARE (default gemini-tiny; empty: skipped): the larger
# messages make the canaries slower and the congestors run more rounds, so
# more flows start; the CPU per unit of work says whether bytes cost
# beyond that (issue 24: the cost grows with flows started, not bytes).
set -u
B=${1:-_build}
LIMIT=${2:-120}
BYTES=${3:-4K}
[ $# -gt 3 ] && shift 3 || set --
SHAPES=${*:-gemini:4x4x2 bgq:2x2x4x4x1 gemini:8x4x4 bgq:4x4x4x4x1 gemini:8x8x8 bgq:4x4x4x8x2 gemini:16x16x8 bgq:8x8x8x4x2}
TARGET_SHAPE=${GPCNET_FLOW_TARGET_SHAPE:-gemini:8x8x8}
TARGET=${GPCNET_FLOW_TARGET:-120}
COMPARE=${GPCNET_FLOW_COMPARE-gemini-tiny}
WINDOW=${GPCNET_FLOW_WINDOW:-}
TORUSEMU="$B/torusemu"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
met=0
missed=0
bad=0

# replay SHAPE BYTES: one replay under the CPU limit; sets rc, cpu, rss
# (peak resident MiB), msgs
replay() {
    /usr/bin/time -f '%U %S %M' -o "$T/cpu" "$TORUSEMU" replay --machine "$1" --pattern gpcnet \
        --timing --model flow --mpi-costs off --steps 1 --bytes "$2" ${WINDOW:+--flow-window "$WINDOW"} \
        >"$T/out" 2>"$T/err" &
    pid=$!
    sleep 1
    # the replay's own pid under time(1); SIGTERM makes it say how far it got
    child=$(pgrep -P "$pid" | head -1)
    while kill -0 "$pid" 2>/dev/null; do
        used=$(awk '{ print int(($14 + $15) / 100) }' "/proc/${child:-$pid}/stat" 2>/dev/null)
        if [ "${used:-0}" -ge "$LIMIT" ]; then
            kill -TERM "${child:-$pid}" 2>/dev/null
        fi
        sleep 1
    done
    wait "$pid"
    rc=$?
    cpu=$(awk 'NF == 3 && $1 ~ /^[0-9.]+$/ { print $1 + $2 }' "$T/cpu" 2>/dev/null)
    rss=$(awk 'NF == 3 && $1 ~ /^[0-9.]+$/ { printf "%.0f", $3 / 1024 }' "$T/cpu" 2>/dev/null)
    msgs=$(sed -n 's/.*congested run.* replayed .*(\([0-9]*\) messages).*/\1/p' "$T/err" | head -1)
    # the flow level's work over all runs: flows started and rate solutions
    work=$(sed -n "s/.*flow level's work over the [0-9]* timing runs: \([0-9]*\) flows.*/\1/p" \
        "$T/err" | head -1)
}

# per_work CPU_S WORK: microseconds of CPU per flow started or rate solution
per_work() {
    awk -v c="${1:-0}" -v n="${2:-0}" 'BEGIN { if (n > 0) printf "%.2f", 1e6 * c / n; else print "-" }'
}

# verdict CPU_S FINISHED: met or MISSED against the target, into $v
verdict() {
    if [ "$2" -eq 1 ] && awk -v c="$1" -v t="$TARGET" 'BEGIN { exit !(c < t) }'; then
        met=$((met + 1))
        v=met
    else
        missed=$((missed + 1))
        v=MISSED
    fi
}

[ -z "$WINDOW" ] || echo "flow level's solve window: $WINDOW"
printf '%-16s %6s %9s %9s %9s %8s %10s %7s %9s %7s  %s\n' machine nodes lat bw+sync allreduce messages \
    work us/work cpu_s rss_mib status
for m in $SHAPES; do
    nodes=$("$TORUSEMU" machine "$m" 2>/dev/null | awk '$1 == "nodes" { print $2 }')
    replay "$m" "$BYTES"
    imp=$(awk '$1 ~ /^(p2p_lat_us|p2p_bw_sync|allreduce_us)/ { printf "%9.3f ", $4 }' "$T/out")
    done_ok=0
    if [ "$rc" -eq 0 ]; then
        status=finished
        done_ok=1
    elif grep -q 'stopped by signal' "$T/err"; then
        status="not finished ($(grep -o 'at [0-9.]* us of virtual time' "$T/err" | head -1), $(grep -o '[0-9]* of [0-9]* rank operations' "$T/err" | head -1))"
        imp=$(printf '%9s %9s %9s ' - - -)
    else
        status="failed: $(head -1 "$T/err")"
        cat "$T/err" >&2
        imp=$(printf '%9s %9s %9s ' - - -)
        bad=1
    fi
    if [ "$m" = "$TARGET_SHAPE" ]; then
        verdict "${cpu:-0}" "$done_ok"
        status="$status; target ${TARGET} s  $v"
    fi
    printf '%-16s %6s %s%8s %10s %7s %9s %7s  %s\n' "$m" "${nodes:-?}" "$imp" "${msgs:--}" \
        "${work:--}" "$(per_work "$cpu" "$work")" "${cpu:-?}" "${rss:-?}" "$status"
done
echo "targets (CPU time): $met met, $missed MISSED"

if [ -n "$COMPARE" ]; then
    printf '\n%-16s %6s %9s %10s %7s %9s %12s  %s\n' machine bytes messages work us/work cpu_s \
        cpu_ms/msg status
    for b in 4K 128K; do
        replay "$COMPARE" "$b"
        per=$(awk -v c="${cpu:-0}" -v n="${msgs:-0}" 'BEGIN { if (n > 0) printf "%.3f", 1000 * c / n; else print "-" }')
        st=finished
        [ "$rc" -eq 0 ] || st="not finished"
        printf '%-16s %6s %9s %10s %7s %9s %12s  %s\n' "$COMPARE" "$b" "${msgs:--}" "${work:--}" \
            "$(per_work "$cpu" "$work")" "${cpu:-?}" "$per" "$st"
    done
fi
exit "$bad"
