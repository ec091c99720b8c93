#!/bin/sh
# bench-papi.sh PAPI_PREFIX - PAPI_read cost of the components against
# perf_event, on idle emulated machines (the cost does not depend on the
# counts).  Figures and their history: doc/components.md, "Read cost".
PREFIX=${1:?usage: bench-papi.sh PAPI_PREFIX}
unset TORUSEMU_SESSION TORUSEMU_NODE TORUSEMU_RANK
exec "$PREFIX/share/papi/components/gemini_tile/tests/torus_bench"
