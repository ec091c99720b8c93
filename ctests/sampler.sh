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

run_mpi "sampler NW" "$TMP/nw.store" nodeboard 8 --ranks-per-node 2 -- "$SAMPLER" \
    -e PEVT_NW_USER_PP_SENT@700 -e PEVT_NW_USER_PP_RECV@0 -e NW_USER_PP_SENT_BYTES@0 \
    --iters 12 --bytes 32768 --check
cat "$TMP/out"
take_result "sampler NW"
expect_out "NW: samples on every rank" "^rank 7: PEVT_NW_USER_PP_SENT count [1-9]"

run_mpi "sampler L2" "$TMP/l2.store" nodeboard 8 --ranks-per-node 2 -- "$SAMPLER" \
    -e PEVT_L2_HITS@300 -e PEVT_L2_STORE_LINE@0 --iters 8 --bytes 32768 --check
cat "$TMP/out"
take_result "sampler L2"

run_mpi "sampler Gemini" "$TMP/g.store" gemini:2x2x2 8 -- "$SAMPLER" \
    -e GM_TILE_PERF_VC0_PHIT_CNT@20000 -e GM_LINK_PACKETS:link=HH@0 --iters 8 --bytes 65536 \
    --check
cat "$TMP/out"
take_result "sampler Gemini"
finish
