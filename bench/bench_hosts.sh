#!/bin/sh
# bench_hosts.sh BUILD_DIR [RUNS] - runs across hosts (doc/mpi.md, "Across
# hosts"; doc/performance.md): over Open MPI's TCP transport on this
# machine, (1) how a message's updates reach their owner: one-sided
# accumulates + flush against a message to an agent thread + its
# acknowledgement, with the target rank in MPI or computing
# (bench/bench_hosts.c); (2) the 8-byte message rate between two ranks one
# hop apart on a BG/Q midplane without the layer, with Open MPI's
# pml_monitoring, with the layer on one host and with the layer when the
# receiving node's counters live on another host (--split-hosts 2).
# Medians of RUNS runs (default 3).
set -eu
B=${1:-_build}
RUNS=${2:-3}
# shellcheck source=bench/mpi_setup.sh
. "$(dirname "$0")/mpi_setup.sh"
unset OMPI_MCA_btl
export OMPI_MCA_mpi_yield_when_idle=1
TCP="--mca btl self,tcp --mca btl_tcp_if_include lo"
HB="$B/bench/bench_hosts"

i=1
while [ "$i" -le "$RUNS" ]; do
    # shellcheck disable=SC2086
    mpirun $ROOT $TCP --mca osc pt2pt -np 2 "$HB" rma mpi 300 16 >>"$T/mech"
    # shellcheck disable=SC2086
    mpirun $ROOT $TCP -np 2 "$HB" agent mpi 300 16 >>"$T/mech"
    # shellcheck disable=SC2086
    mpirun $ROOT $TCP -np 2 "$HB" agent compute 300 16 >>"$T/mech"
    # the accumulates' flush waits for a computing target's next MPI call
    # (at most every 20 ms here): 30 messages are enough to see it
    # shellcheck disable=SC2086
    mpirun $ROOT $TCP --mca osc pt2pt -np 2 "$HB" rma compute 30 16 >>"$T/mech"
    # shellcheck disable=SC2086
    TORUSEMU_MPI_QUIET=1 mpirun $ROOT $TCP -np 2 "$PROG" --rate 50 >>"$T/base"
    # shellcheck disable=SC2086
    TORUSEMU_MPI_QUIET=1 mpirun $ROOT $TCP --mca pml_monitoring_enable 2 -np 2 "$PROG" \
        --rate 50 >>"$T/mon" 2>/dev/null
    "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" -np 2 --mpirun-args "$TCP" \
        -- "$PROG" --rate 50 >>"$T/one"
    "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" -np 2 --split-hosts 2 \
        -- "$PROG" --rate 50 >>"$T/split"
    # every batch of updates waiting for its own acknowledgement (the rule
    # before lazy acknowledgements)
    TORUSEMU_HOSTS_ACK=each "$TORUSEMU" run --quiet --machine midplane --map "$T/bgq.map" -np 2 \
        --split-hosts 2 --mpirun-arg -x --mpirun-arg TORUSEMU_HOSTS_ACK -- "$PROG" --rate 50 \
        >>"$T/each"
    i=$((i + 1))
done

echo "updates of one message (16 counters) to another host, us per message, medians of $RUNS runs"
for m in "rma mpi" "agent mpi" "agent compute" "rma compute"; do
    # shellcheck disable=SC2086
    set -- $m
    printf '  %-6s target %-8s %10.1f\n' "$1" "$2" "$(median "$1" "$2" "$T/mech")"
done
b=$(median rate 8 "$T/base")
o=$(median rate 8 "$T/mon")
q=$(median rate 8 "$T/one")
s=$(median rate 8 "$T/split")
e=$(median rate 8 "$T/each")
echo "8-byte message rate over TCP (messages/s, windows of 64 Isends), medians of $RUNS runs"
awk -v b="$b" -v o="$o" -v q="$q" -v s="$s" -v e="$e" 'BEGIN {
    printf "  without %.0f   monitoring %.0f (%+.2f us/msg)\n", b, o, 1e6 / o - 1e6 / b
    printf "  layer, one host %.0f (%+.2f us/msg)   owner on another host %.0f (%+.2f us/msg)\n",
        q, 1e6 / q - 1e6 / b, s, 1e6 / s - 1e6 / b
    printf "  owner on another host, each message acknowledged %.0f (%+.2f us/msg)\n",
        e, 1e6 / e - 1e6 / b
}'
