#!/bin/sh
# bgq_nwunit through the PAPI API (components/bgq_nwunit/tests/bgq_nwunit_api.c):
# traffic injected with the emulator API into a fresh BG/Q midplane
# session (bgq:4x4x4x4x2), the process on node 128.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_nwunit bgq_nwunit_api TORUSEMU_SESSION="$S" TORUSEMU_NODE=128
finish
