#!/bin/sh
# bench_gpcnet_live.sh BUILD_DIR - GPCNeT itself, unmodified
# (netbench/GPCNET's network_load_test, built outside this tree with mpicc;
# GPCNET_DIR names its directory), on 16 ranks of gemini-tiny under
# `torusemu run --virtual-time --model flow`, printing its own congestion
# impact; then the host's wall and CPU seconds.  Issue 24's target: within
# 15 minutes; the run is interrupted then (SIGINT after LIMIT seconds,
# default 900), and the launcher's summary says how far it got (messages,
# virtual time reached, the model thread's CPU; doc/replay.md, "GPCNeT at
# scale on the flow level", says why it does not finish).  Without
# GPCNET_DIR it says so and exits 0 (skipped).
set -u
B=${1:-_build}
PROG="${GPCNET_DIR:-}/network_load_test"
if [ -z "${GPCNET_DIR:-}" ] || [ ! -x "$PROG" ]; then
    echo "bench-gpcnet-live: skipped: set GPCNET_DIR to a directory holding GPCNeT's" \
        "network_load_test built with mpicc (doc/replay.md, \"GPCNeT at scale on the flow level\")"
    exit 0
fi
LIMIT=${LIMIT:-900}
TORUSEMU=$(cd "$B" && pwd)/torusemu
PROG=$(cd "$GPCNET_DIR" && pwd)/network_load_test
# GPCNeT writes its *_congestion.dat files into the working directory
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-gpcnet-live.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
/usr/bin/time -f 'host: %e s wall, %U s user, %S s system' timeout -s INT "$LIMIT" "$TORUSEMU" \
    run --machine gemini-tiny -np 16 --virtual-time --model flow -- "$PROG"
rc=$?
if [ "$rc" -eq 124 ]; then
    echo "bench-gpcnet-live: MISSED: not finished within $LIMIT s (the summary above says how far)"
    exit 0
fi
exit "$rc"
