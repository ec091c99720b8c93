#!/bin/sh
# gemini_tile through the PAPI API (components/gemini_tile/tests/gemini_tile_api.c):
# traffic injected with the emulator API into a gemini:8x2x2 session, read
# on the Gemini of node 24.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session g gemini:8x2x2)
run_ctest gemini_tile gemini_tile_api TORUSEMU_SESSION="$S" TORUSEMU_NODE=24
finish
