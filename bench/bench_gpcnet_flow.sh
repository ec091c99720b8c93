#!/bin/sh
# bench_gpcnet_flow.sh BUILD_DIR [CPU_LIMIT] [BYTES] - the `gpcnet`
# pattern's Congestion Impact from the flow level (`--model flow`) on
# Gemini tori and BG/Q partitions of 64, 256, 1,024 and 4,096 nodes, one
# iteration per test; prints the three mean impacts and the CPU seconds of
# each replay.  A replay is stopped after CPU_LIMIT seconds of CPU
# (default 120: issue 24's target for 1,024 Gemini nodes) and reported as
# "not finished" with how far its virtual time got.  BYTES: the bandwidth
# canary's messages (default 4K; GPCNeT's own 128 KiB multiplies the
# congestor rounds the canaries need, doc/replay.md).
set -u
B=${1:-_build}
LIMIT=${2:-120}
BYTES=${3:-4K}
TORUSEMU="$B/torusemu"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

printf '%-16s %6s %9s %9s %9s %9s  %s\n' machine nodes lat bw+sync allreduce cpu_s status
for m in gemini:4x4x2 bgq:2x2x4x4x1 gemini:8x4x4 bgq:4x4x4x4x1 gemini:8x8x8 bgq:4x4x4x8x2 \
    gemini:16x16x8 bgq:8x8x8x4x2; do
    nodes=$("$TORUSEMU" machine "$m" 2>/dev/null | awk '$1 == "nodes" { print $2 }')
    /usr/bin/time -f '%U %S' -o "$T/cpu" "$TORUSEMU" replay --machine "$m" --pattern gpcnet \
        --timing --model flow --steps 1 --bytes "$BYTES" --quiet >"$T/out" 2>"$T/err" &
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
    cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { print $1 + $2 }' "$T/cpu" 2>/dev/null)
    imp=$(awk '$1 ~ /^(p2p_lat_us|p2p_bw_sync|allreduce_us)/ { printf "%9.3f ", $4 }' "$T/out")
    if [ "$rc" -eq 0 ]; then
        status=finished
    else
        status="not finished ($(grep -o 'at [0-9.]* us of virtual time' "$T/err" | head -1))"
        imp=$(printf '%9s %9s %9s ' - - -)
    fi
    printf '%-16s %6s %s %9s  %s\n' "$m" "${nodes:-?}" "$imp" "${cpu:-?}" "$status"
done
