#!/bin/sh
# The sampling client (sampler/torus_sampler.c) under MPI on the emulated
# machine, as hpcrun would sample: one event with a period, the others of
# its component counted (period 0).  Each run checks, on every rank, that
# the samples of an event with period P are exactly floor(count / P) (the
# stated tolerance: 0 samples), that every sample fell while the program
# communicated, and that the proxy credits add up.
#   - BG/Q node board, 2 ranks per node: network unit (pass-through and
#     received traffic signal the node's ranks from other processes)
#   - the same, L2 hits ("slow" overflow, detected after the message)
#   - Gemini 2x2x2: tile phits of the rank's Gemini
#   - the NW and Gemini runs again with TORUSEMU_WATCH_LATE_SIGNALS=1: no
#     signal ever goes to another process, so every crossing caused by
#     other ranks reaches its handler only because collectives deliver the
#     caller's pending crossings on return (temu_watch_deliver_own); the
#     counts must still be exact and every sample inside the phase
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"
SAMPLER="$top_builddir/sampler/torus_sampler"

if [ -f "$top_builddir/papi/FAILED" ]; then
    failed "PAPI with the components is not available: $(cat "$top_builddir/papi/FAILED")"
    finish
    exit 1
fi
if [ ! -x "$SAMPLER" ]; then
    echo "torus_sampler was not built (PAPI or MPI missing): skipped"
    exit 77
fi

# sample DESC MACHINE RUN-OPTIONS... -- SAMPLER-ARGS...: one checked run
sample() {
    desc=$1 machine=$2
    shift 2
    run_mpi "$desc" "$TMP/s.store" "$machine" 8 "$@" --check
    cat "$TMP/out"
    take_result "$desc"
}
NW_EVENTS="-e PEVT_NW_USER_PP_SENT@700 -e PEVT_NW_USER_PP_RECV@0"
GEMINI_EVENTS="-e GM_TILE_PERF_VC0_PHIT_CNT@20000 -e GM_LINK_PACKETS:link=HH@0"

# shellcheck disable=SC2086 # the event lists are split on purpose
sample "sampler NW" nodeboard --ranks-per-node 2 -- "$SAMPLER" $NW_EVENTS \
    -e NW_USER_PP_SENT_BYTES@0 --iters 12 --bytes 32768
expect_out "NW: samples on every rank" "^rank 7: PEVT_NW_USER_PP_SENT count [1-9]"
sample "sampler L2" nodeboard --ranks-per-node 2 -- "$SAMPLER" \
    -e PEVT_L2_HITS@300 -e PEVT_L2_STORE_LINE@0 --iters 8 --bytes 32768
# shellcheck disable=SC2086
sample "sampler Gemini" gemini:2x2x2 -- "$SAMPLER" $GEMINI_EVENTS --iters 8 --bytes 65536

export TORUSEMU_WATCH_LATE_SIGNALS=1
# shellcheck disable=SC2086
sample "sampler NW, late signals" nodeboard --ranks-per-node 2 -- "$SAMPLER" $NW_EVENTS \
    --iters 6 --bytes 32768
# shellcheck disable=SC2086
sample "sampler Gemini, late signals" gemini:2x2x2 -- "$SAMPLER" $GEMINI_EVENTS \
    --iters 6 --bytes 65536
unset TORUSEMU_WATCH_LATE_SIGNALS
finish
