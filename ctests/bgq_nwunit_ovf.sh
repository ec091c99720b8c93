#!/bin/sh
# PAPI_overflow and multiplexing on bgq_nwunit
# (components/bgq_nwunit/tests/bgq_nwunit_ovf.c): a fresh BG/Q midplane
# session (bgq:4x4x4x4x2), the process on node 128, which traffic between
# nodes 0 and 256 passes through.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_nwunit bgq_nwunit_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=128
finish
