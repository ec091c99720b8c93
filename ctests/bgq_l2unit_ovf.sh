#!/bin/sh
# PAPI_overflow and multiplexing on bgq_l2unit
# (components/bgq_l2unit/tests/bgq_l2unit_ovf.c): a fresh BG/Q midplane
# session, the process on node 256, which receives from node 0; then the
# slow-overflow delay stretched to 30 ms (TORUSEMU_SLOW_OVERFLOW_NS) so
# that it can be measured.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session q midplane)
run_ctest bgq_l2unit bgq_l2unit_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=256
S2=$(new_session q2 midplane)
run_ctest bgq_l2unit bgq_l2unit_ovf TORUSEMU_SESSION="$S2" TORUSEMU_NODE=256 \
    TORUSEMU_SLOW_OVERFLOW_NS=30000000 -- slow
finish
