#!/bin/sh
# PAPI_overflow and multiplexing on gemini_tile
# (components/gemini_tile/tests/gemini_tile_ovf.c): a fresh gemini:8x2x2
# session, the process on node 24 (Gemini (3,0,0)); then the emulator
# setting TORUSEMU_UNIT_COUNTERS=2, under which the fixed tile counters
# need multiplexing too.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session g gemini:8x2x2)
run_ctest gemini_tile gemini_tile_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=24
S2=$(new_session g2 gemini:8x2x2)
run_ctest gemini_tile gemini_tile_ovf TORUSEMU_SESSION="$S2" TORUSEMU_NODE=24 \
    TORUSEMU_UNIT_COUNTERS=2 -- mpx
finish
