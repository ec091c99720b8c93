#!/bin/sh
# test-summary.sh BUILD_DIR [MAKE_STATUS] - add up the results of `make check` into one
# line "N passed, N failed" (N skipped is reported before it).
#   - Check programs report "Checks: N, Failures: F, Errors: E": N-F-E pass.
#   - shell and MPI tests print their own "N passed, M failed" line.
#   - anything else counts as one test with automake's verdict.
BUILD=${1:-_build}
STATUS=${2:-0}
passed=0 failed=0 skipped=0
# (not the tests of a failed distcheck, left in its own tree)
for trs in $(find "$BUILD" -name '*.trs' -not -path '*/papi-torus-*/*' 2>/dev/null | sort); do
    log=${trs%.trs}.log
    verdict=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
    checks=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" 2>/dev/null | tail -n 1)
    own=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1)
    if [ -n "$checks" ]; then
        set -- $(echo "$checks" | tr -dc '0-9 ')
        passed=$((passed + $1 - $2 - $3))
        failed=$((failed + $2 + $3))
        [ "$verdict" = PASS ] || [ $(($2 + $3)) -gt 0 ] || failed=$((failed + 1))
    elif [ -n "$own" ]; then
        set -- $(echo "$own" | tr -dc '0-9 ')
        passed=$((passed + $1))
        failed=$((failed + $2))
        [ "$verdict" = PASS ] || [ "$2" -gt 0 ] || [ "$verdict" = SKIP ] || failed=$((failed + 1))
    else
        case "$verdict" in
        PASS | XFAIL) passed=$((passed + 1)) ;;
        SKIP) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)) ;;
        esac
    fi
done
if [ "$STATUS" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "make check failed outside the test programs (build error?)"
    failed=1
fi
[ "$skipped" -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
