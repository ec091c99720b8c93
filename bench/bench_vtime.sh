#!/bin/sh
# bench_vtime.sh BUILD_DIR [RUNS] - what `torusemu run --virtual-time` adds
# to MPI point-to-point traffic on top of the layer: bench_mpi (host-timed)
# on a BG/Q midplane and a Gemini torus, the two ranks one hop apart,
# without virtual time, with it and --cpu-scale 0 (no CPU clock reads), and
# with it at the default scale (two CPU clock reads per MPI call),
# alternating RUNS times (default 5); prints medians and the time added per
# 8-byte message (ping-pong one-way latency and message rate).  Issue 12's
# target: under 0.5 us per message.
set -eu
B=${1:-_build}
RUNS=${2:-5}
# shellcheck source=bench/mpi_setup.sh
. "$(dirname "$0")/mpi_setup.sh"

i=1
while [ "$i" -le "$RUNS" ]; do
    for m in bgq gem; do
        machine=midplane
        [ "$m" = gem ] && machine=gemini-small
        "$TORUSEMU" run --quiet --machine "$machine" --map "$T/$m.map" -np 2 -- "$PROG" \
            >>"$T/$m.off"
        "$TORUSEMU" run --quiet --machine "$machine" --map "$T/$m.map" -np 2 --virtual-time \
            --cpu-scale 0 -- "$PROG" >>"$T/$m.vt0"
        "$TORUSEMU" run --quiet --machine "$machine" --map "$T/$m.map" -np 2 --virtual-time \
            -- "$PROG" >>"$T/$m.vt1"
    done
    i=$((i + 1))
done

echo "8-byte messages, medians of $RUNS runs; added = with virtual time - without"
printf '%-7s %-28s %10s %10s %10s\n' machine measure without vt-scale0 vt-scale1
for m in bgq gem; do
    a=$(median latency 8 "$T/$m.off")
    b=$(median latency 8 "$T/$m.vt0")
    c=$(median latency 8 "$T/$m.vt1")
    printf '%-7s %-28s %10.3f %10.3f %10.3f\n' "$m" "one-way latency (us)" "$a" "$b" "$c"
    awk -v a="$a" -v b="$b" -v c="$c" -v m="$m" \
        'BEGIN { printf "%-7s %-28s %10s %+10.3f %+10.3f\n", m, "  added (us)", "", b - a, c - a }'
    a=$(median rate 8 "$T/$m.off")
    b=$(median rate 8 "$T/$m.vt0")
    c=$(median rate 8 "$T/$m.vt1")
    printf '%-7s %-28s %10.0f %10.0f %10.0f\n' "$m" "message rate (msg/s)" "$a" "$b" "$c"
    awk -v a="$a" -v b="$b" -v c="$c" -v m="$m" \
        'BEGIN { printf "%-7s %-28s %10s %+10.3f %+10.3f\n", m, "  added per message (us)", "", 1e6 / b - 1e6 / a, 1e6 / c - 1e6 / a }'
done
