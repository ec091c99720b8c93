#!/bin/sh
# bgp_torus through the PAPI API (components/bgp_torus/tests/bgp_torus_api.c):
# traffic injected with the emulator API into a bgp-16 session, node 0.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
S=$(new_session p bgp-16)
run_ctest bgp_torus bgp_torus_api TORUSEMU_SESSION="$S" TORUSEMU_NODE=0
finish
