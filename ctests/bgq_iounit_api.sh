#!/bin/sh
# bgq_iounit through the PAPI API (components/bgq_iounit/tests/bgq_iounit_api.c):
# traffic injected with the emulator API into a fresh BG/Q midplane
# session (bgq:4x4x4x4x2), the process on node 256.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_iounit bgq_iounit_api TORUSEMU_SESSION="$S" TORUSEMU_NODE=256
finish
