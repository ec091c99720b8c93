# papi-lib.sh - helpers for the PAPI ctests (sourced after tests/lib.sh).
# Every test first checks that PAPI with the components was built: if the
# build failed (e.g. the PAPI source could not be fetched) the test fails
# with the recorded reason instead of passing silently.
. "${top_srcdir:-.}/tests/lib.sh"
PAPI_DIR="$(cd "$top_builddir" && pwd)/papi"
PAPI_PREFIX="$PAPI_DIR/prefix"
PAPI_BIN="$PAPI_PREFIX/bin"
PAPI_COMP_TESTS="$PAPI_PREFIX/share/papi/components"

papi_require() {
    if [ -f "$PAPI_DIR/FAILED" ]; then
        failed "PAPI 7.0.0 with the components is not available: $(cat "$PAPI_DIR/FAILED")"
        finish
        exit 1
    fi
    if [ ! -x "$PAPI_BIN/papi_component_avail" ]; then
        failed "PAPI 7.0.0 is not built in $PAPI_PREFIX (run 'make papi' and read its errors)"
        finish
        exit 1
    fi
}

# new_session NAME SPEC : create $TMP/NAME.store for machine SPEC, print its path
new_session() {
    "$TORUSEMU" create "$TMP/$1.store" --machine "$2" >/dev/null || failed "create session $2"
    echo "$TMP/$1.store"
}

# run_ctest COMPONENT PROGRAM [ENV=VALUE...] [-- ARG...] : run an installed
# component test program; its "N passed, M failed" line is added to ours.
run_ctest() {
    comp=$1 prog=$2
    shift 2
    exe="$PAPI_COMP_TESTS/$comp/tests/$prog"
    if [ ! -x "$exe" ]; then
        failed "$exe was not built"
        return
    fi
    # environment assignments first, then the program's arguments
    (
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do
            export "$1"
            shift
        done
        [ $# -gt 0 ] && shift
        exec "$exe" "$@"
    ) >"$TMP/ctest.out" 2>&1
    rc=$?
    cat "$TMP/ctest.out"
    line=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$TMP/ctest.out" | tail -n 1)
    if [ -z "$line" ]; then
        failed "$prog ended without a summary (exit $rc)"
        return
    fi
    set -- $(echo "$line" | tr -dc '0-9 ')
    npass=$((npass + $1))
    nfail=$((nfail + $2))
    [ "$rc" -eq 0 ] || [ "$2" -gt 0 ] || failed "$prog exited $rc"
}
