#!/bin/sh
# papi_run_tests.sh - the component tests under PAPI's own test runner,
# share/papi/run_tests.sh (reference/papi/REPORT.md section 6), and under
# its per-test protocol: each test is run as `./test TESTS_QUIET` and
# prints one verdict line, PASSED, FAILED!!! or SKIPPED.
#
# run_tests.sh runs from its own directory every executable of
# components/*/tests (after validation_tests, ctests and ftests), so it is
# run here from a copy of share/papi holding only our components' tests:
# PAPI's CPU tests need a PMU this machine may not have.  Expectations:
#   no session            every test SKIPPED (nothing to count against);
#   a session of machine M the tests written for M PASSED, the others
#                         SKIPPED (their machine is not the session's);
# never FAILED; the tools and benchmarks installed beside the tests
# (torus_count, torus_bench, torus_ovf_bench) stay out, through
# run_tests_exclude.txt.
. "${top_srcdir:-.}/ctests/papi-lib.sh"
papi_require
unset TORUSEMU_SESSION TORUSEMU_NODE TORUSEMU_RANK TESTS_QUIET

SHARE="$PAPI_PREFIX/share/papi"
# the tests, by the machine they are written for (their tp_begin)
GEMINI="gemini_tile/tests/gemini_tile_api gemini_tile/tests/gemini_tile_ovf"
BGP="bgp_torus/tests/bgp_torus_api bgp_torus/tests/bgp_torus_ovf"
BGQ="bgq_nwunit/tests/bgq_nwunit_api bgq_nwunit/tests/bgq_nwunit_ovf
bgq_l2unit/tests/bgq_l2unit_api bgq_l2unit/tests/bgq_l2unit_ovf
bgq_iounit/tests/bgq_iounit_api bgq_iounit/tests/bgq_iounit_ovf
bgq_cnkunit/tests/bgq_cnkunit_api bgq_cnkunit/tests/bgq_cnkunit_ovf"
# needs the store of a timed replay: skipped with every store made here
VTIME="bgq_nwunit/tests/bgq_nwunit_vtime"
ALL="$GEMINI $BGP $BGQ"

# ------------------------------------------------- a copy of share/papi
R="$TMP/share-papi"
mkdir -p "$R/ctests" "$R/ftests" "$R/validation_tests" "$R/components"
cp "$SHARE/run_tests.sh" "$SHARE/run_tests_exclude.txt" "$R/" || failed "copy run_tests.sh"
for c in $PAPI_COMPONENTS; do
    cp -R "$SHARE/components/$c" "$R/components/" || failed "copy the tests of $c"
done

# run_tests SESSION : run_tests.sh in the copy; verdict per test in
# $TMP/verdicts ("components/c/tests/t VERDICT")
run_tests() {
    # run_tests.sh rebuilds PAPI's tests when $BUILD is set, and the
    # source tree's GNUmakefile exports BUILD (its build directory): unset
    (cd "$R" && unset BUILD && TORUSEMU_SESSION=$1 sh ./run_tests.sh) >"$TMP/run.out" 2>&1
    [ $? -eq 0 ] && pass || failed "run_tests.sh exited nonzero"
    # "Running components/c/tests/t:", then the test's verdict after 59
    # spaces of padding
    awk '/^Running components\// { t = $2; sub(/:$/, "", t); next }
        { sub(/^ +/, "") }
        t != "" && /^(PASSED|FAILED|SKIPPED)/ { print t, $1; t = "" }' "$TMP/run.out" >"$TMP/verdicts"
}
# expect_verdict TEST VERDICT [WHY]
expect_verdict() {
    got=$(awk -v t="components/$1" '$1 == t { print $2 }' "$TMP/verdicts")
    if [ "$got" = "$2" ]; then pass; else
        failed "run_tests.sh ${3:-}: $1 gave '${got:-nothing}', want $2"
    fi
}
# the whole list ran, nothing else of ours, and nothing failed
expect_complete() {
    n=$(wc -l <"$TMP/verdicts")
    [ "$n" -eq 13 ] && pass || failed "run_tests.sh $1: $n verdicts, want 13: $(cat "$TMP/verdicts")"
    ! grep -q "FAILED" "$TMP/run.out" && pass || failed "run_tests.sh $1: $(grep -B2 FAILED "$TMP/run.out")"
    for tool in torus_count torus_bench torus_ovf_bench; do
        ! grep -q "tests/$tool" "$TMP/verdicts" && pass || failed "run_tests.sh ran the tool $tool"
    done
}

# ------------------------------------------------------------ no session
run_tests ""
for t in $ALL $VTIME; do
    expect_verdict "$t" SKIPPED "without a session"
done
expect_complete "without a session"

# -------------------------------------------- a session of each machine
for m in "gemini:8x2x2" "bgp-16" "midplane"; do
    S=$(new_session "run-$(echo "$m" | tr -dc 'a-z0-9')" "$m")
    run_tests "$S"
    for t in $ALL; do
        case "$m:$t" in
        gemini*:gemini_tile/* | bgp*:bgp_torus/* | midplane:bgq_*) want=PASSED ;;
        *) want=SKIPPED ;;
        esac
        expect_verdict "$t" "$want" "with a $m session"
    done
    expect_verdict "$VTIME" SKIPPED "with a $m session (host clock)"
    expect_complete "with a $m session"
done

# ------------------------------------------------- the per-test protocol
# run_test ENV... -- TEST ARG... : stdout in $TMP/out, exit status in $rc
run_test() {
    (
        while [ "$1" != "--" ]; do
            export "$1"
            shift
        done
        shift
        exe="$PAPI_COMP_TESTS/$1"
        shift
        exec "$exe" "$@"
    ) >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
expect_stdout() {
    if [ "$(cat "$TMP/out")" = "$2" ] && [ "$rc" -eq "$3" ]; then pass; else
        failed "$1: exit $rc, stdout '$(cat "$TMP/out")', want exit $3 and '$2'"
    fi
}
T=bgq_nwunit/tests/bgq_nwunit_api
Q=$(new_session proto midplane)
# quiet: the verdict line only
run_test TORUSEMU_SESSION= -- $T TESTS_QUIET
expect_stdout "no session, TESTS_QUIET" "SKIPPED" 0
run_test TORUSEMU_SESSION="$Q" -- $T TESTS_QUIET
expect_stdout "midplane session, TESTS_QUIET" "PASSED" 0
run_test TORUSEMU_SESSION="$Q" -- $T -q
expect_stdout "midplane session, -q" "PASSED" 0
# not quiet: the reason for a skip, the counts before PASSED
run_test TORUSEMU_SESSION= -- $T
expect_out "no session: the verdict" "^SKIPPED$"
expect_out "no session: the reason" "TORUSEMU_SESSION is not set"
run_test TORUSEMU_SESSION="$Q" -- $T
expect_out "with a session: the counts" "^[1-9][0-9]* passed, 0 failed$"
[ "$(tail -n 1 "$TMP/out")" = "PASSED" ] && [ "$rc" -eq 0 ] && pass || failed "with a session: last line $(tail -n 1 "$TMP/out"), exit $rc"
# a session that places the process elsewhere: skipped with the reason
run_test TORUSEMU_SESSION="$Q" TORUSEMU_NODE=5 -- $T
expect_out "another node: the verdict" "^SKIPPED$"
expect_out "another node: the reason" "node 5 of the session; the test is written for node 128"
# a session of another machine
G=$(new_session proto-g gemini:8x2x2)
run_test TORUSEMU_SESSION="$G" -- $T
expect_out "another machine: the verdict" "^SKIPPED$"
expect_out "another machine: the reason" "is machine gemini:8x2x2; this test is written for bgq:4x4x4x4x2"
# a session that cannot be attached is a failure, not a skip
run_test TORUSEMU_SESSION="$TMP/missing.store" -- $T TESTS_QUIET
if grep -qx "FAILED!!!" "$TMP/out" && [ "$rc" -eq 1 ] && grep -q "missing.store" "$TMP/err"; then pass; else
    failed "missing store: exit $rc, stdout '$(cat "$TMP/out")', stderr '$(cat "$TMP/err")'"
fi
finish
