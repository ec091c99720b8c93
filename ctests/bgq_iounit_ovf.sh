#!/bin/sh
# PAPI_overflow and multiplexing on bgq_iounit
# (components/bgq_iounit/tests/bgq_iounit_ovf.c), with sets of bgq_l2unit
# and bgq_nwunit overflowing beside it: a fresh BG/Q midplane session, the
# process on node 256; then TORUSEMU_UNIT_COUNTERS=3 (three counters per
# unit), under which seven I/O events need multiplexing.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_iounit bgq_iounit_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=256
S2=$(new_session q2 midplane)
run_ctest bgq_iounit bgq_iounit_ovf TORUSEMU_SESSION="$S2" TORUSEMU_NODE=256 \
    TORUSEMU_UNIT_COUNTERS=3 -- mpx
finish
