#!/bin/sh
# PAPI_overflow and multiplexing on bgp_torus
# (components/bgp_torus/tests/bgp_torus_ovf.c): a fresh bgp-16 session
# (bgp:4x2x2, mesh), the process on node 0.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session p bgp-16)
run_ctest bgp_torus bgp_torus_ovf TORUSEMU_SESSION="$S" TORUSEMU_NODE=0
finish
