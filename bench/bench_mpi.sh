#!/bin/sh
# bench_mpi.sh BUILD_DIR [RUNS] - latency and message rate of MPI point-to-
# point traffic without the interposition layer, with Open MPI's own
# pml_monitoring (`--mca pml_monitoring_enable 2`, the anchor: what counting
# every message costs inside Open MPI) and with the layer (a BG/Q midplane
# and a Gemini torus, the two ranks one hop apart), alternating RUNS times
# (default 7); prints the medians, the time each adds per message and the
# layer's added cost as a multiple of monitoring's.
set -eu
B=${1:-_build}
RUNS=${2:-7}
# shellcheck source=bench/mpi_setup.sh
. "$(dirname "$0")/mpi_setup.sh"

i=1
while [ "$i" -le "$RUNS" ]; do
    # shellcheck disable=SC2086
    TORUSEMU_MPI_QUIET=1 mpirun $ROOT --mca osc sm,pt2pt -np 2 "$PROG" >>"$T/base"
    # shellcheck disable=SC2086
    TORUSEMU_MPI_QUIET=1 mpirun $ROOT --mca osc sm,pt2pt --mca pml_monitoring_enable 2 -np 2 \
        "$PROG" >>"$T/mon" 2>/dev/null
    "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" -np 2 -- "$PROG" >>"$T/bgq"
    "$TORUSEMU" run --quiet --machine gemini-small --map "$T/gem.map" -np 2 -- "$PROG" >>"$T/gem"
    i=$((i + 1))
done

echo "MPI ping-pong between 2 ranks, one-way latency in microseconds, medians of $RUNS runs"
printf '%9s %9s %9s %8s %9s %8s %9s %8s\n' bytes without monitor added bgq added gemini added
for s in 8 64 512 4096 32768 262144 1048576; do
    b=$(median latency "$s" "$T/base")
    o=$(median latency "$s" "$T/mon")
    q=$(median latency "$s" "$T/bgq")
    g=$(median latency "$s" "$T/gem")
    awk -v s="$s" -v b="$b" -v o="$o" -v q="$q" -v g="$g" \
        'BEGIN { printf "%9d %9.3f %9.3f %+8.3f %9.3f %+8.3f %9.3f %+8.3f\n", s, b, o, o - b, q, q - b, g, g - b }'
done
b=$(median rate 8 "$T/base")
o=$(median rate 8 "$T/mon")
q=$(median rate 8 "$T/bgq")
g=$(median rate 8 "$T/gem")
echo "8-byte message rate (messages/s, windows of 64 Isends), medians of $RUNS runs"
awk -v b="$b" -v o="$o" -v q="$q" -v g="$g" 'BEGIN {
    mo = 1e6 / o - 1e6 / b; mq = 1e6 / q - 1e6 / b; mg = 1e6 / g - 1e6 / b
    printf "  without %.0f   monitoring %.0f (%+.3f us/msg)\n", b, o, mo
    printf "  bgq %.0f (%+.3f us/msg)   gemini %.0f (%+.3f us/msg)\n", q, mq, g, mg
    if (mo > 0) {
        printf "  added per message vs monitoring: bgq %.1fx, gemini %.1fx\n", mq / mo, mg / mo
    } else {
        printf "  monitoring added nothing measurable (%+.3f us): no ratio\n", mo
    }
}'
