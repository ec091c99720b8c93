#!/bin/sh
# PAPI_overflow and multiplexing on bgq_cnkunit
# (components/bgq_cnkunit/tests/bgq_cnkunit_ovf.c): a fresh BG/Q midplane
# session, the process on node 256; then TORUSEMU_UNIT_COUNTERS=1.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_cnkunit bgq_cnkunit_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=256
run_ctest bgq_cnkunit bgq_cnkunit_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=256 \
    TORUSEMU_UNIT_COUNTERS=1 -- mpx
finish
