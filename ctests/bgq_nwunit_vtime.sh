#!/bin/sh
# PEVT_NW_CYCLES of a timed replay's kept store, through PAPI
# (components/bgq_nwunit/tests/bgq_nwunit_vtime.c: the store's clock, and
# replays run into it while a set counts, exact in 2 ns cycles), and with
# torus_count: the virtual clock stands still between replays, while an
# untimed replay's store keeps host time.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
COUNT="$PAPI_COMP_TESTS/gemini_tile/tests/torus_count"
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/k2.map"
for kind in timed plain; do
    # the network's time alone (doc/virtual-time.md, "MPI software costs")
    timing=$([ $kind = timed ] && echo --timing --mpi-costs off)
    "$TORUSEMU" replay --machine bgq:4x1x1x1x2 --np 2 --map "$TMP/k2.map" --pattern bisection \
        --bytes 8 $timing --keep "$TMP/$kind.store" --quiet >/dev/null 2>"$TMP/err" ||
        failed "$kind replay: $(cat "$TMP/err")"
done
run_ctest bgq_nwunit bgq_nwunit_vtime TORUSEMU_SESSION="$TMP/timed.store" TORUSEMU_NODE=4

# 20 ms of host time around a command: none on the virtual clock, at least
# 10,000,000 cycles (20 ms at 500 MHz) on the host's
TORUSEMU_SESSION="$TMP/timed.store" TORUSEMU_NODE=4 "$COUNT" PEVT_NW_CYCLES -- sleep 0.02 \
    >"$TMP/out" 2>&1
expect_out "virtual clock: still between replays" "^PEVT_NW_CYCLES 0$"
TORUSEMU_SESSION="$TMP/plain.store" TORUSEMU_NODE=4 "$COUNT" PEVT_NW_CYCLES -- sleep 0.02 \
    >"$TMP/out" 2>&1
awk '$1 == "PEVT_NW_CYCLES" && $2 >= 10000000 { ok = 1 } END { exit !ok }' "$TMP/out" && pass ||
    failed "untimed replay's store: host cycles expected: $(cat "$TMP/out")"
finish
