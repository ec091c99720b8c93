#!/bin/sh
# check-sanitize.sh SRCDIR SANDIR "PROGRAMS" "TESTS" - `make check-sanitize`
# and `make check-sanitize-unit`: configure SANDIR (a build tree of its
# own) from SRCDIR with AddressSanitizer (LeakSanitizer included) and
# UndefinedBehaviorSanitizer, build PROGRAMS there (what the shell tests
# run, may be empty: each unit test is built by its own log's rule), run
# TESTS there, and fail on any sanitizer report.
#
# A report fails the run even from a process whose failure a test expected
# or whose stderr it discarded: ASan's and LSan's go to files
# (SANDIR/reports/asan.PID, ASAN_OPTIONS=log_path), which must stay empty.
# UBSan's are fatal (-fno-sanitize-recover) and GCC's runtime writes fatal
# reports to stderr whatever log_path says: the shell tests' helpers
# (tests/lib.sh) fail a check whose stderr holds one, and the tests' logs
# are searched for them here.  No suppression is used; reports of a
# program that could not start under `ulimit -v` are set aside (below).
#
# Ends with SANDIR/sanitizer-reports.trs, one test for build-aux/test-summary.sh.
set -u
SRC=${1:?usage: check-sanitize.sh SRCDIR SANDIR PROGRAMS TESTS}
SAN=${2:?usage: check-sanitize.sh SRCDIR SANDIR PROGRAMS TESTS}
PROGS=${3?usage: check-sanitize.sh SRCDIR SANDIR PROGRAMS TESTS}
TESTS=${4:?usage: check-sanitize.sh SRCDIR SANDIR PROGRAMS TESTS}
MAKE=${MAKE:-make}
FLAGS="-fsanitize=address,undefined"
CFLAGS="-g -O1 -fno-omit-frame-pointer $FLAGS -fno-sanitize-recover=undefined"

mkdir -p "$SAN" || exit 1
SAN=$(cd "$SAN" && pwd)
if [ ! -f "$SAN/Makefile" ] || [ "$SRC/configure" -nt "$SAN/config.status" ]; then
    echo "check-sanitize: configure ($SAN)"
    (cd "$SAN" && "$SRC/configure" --quiet CFLAGS="$CFLAGS" LDFLAGS="$FLAGS") || exit 1
fi
if [ -n "$PROGS" ]; then
    # shellcheck disable=SC2086
    $MAKE -C "$SAN" $PROGS || exit 1
fi

REPORTS="$SAN/reports"
# no result of an earlier run is counted (test-summary.sh reads every .trs)
find "$SAN" -name '*.trs' -exec rm -f {} +
rm -rf "$REPORTS" "$REPORTS.limited" && mkdir -p "$REPORTS" || exit 1
rc=0
ASAN_OPTIONS="log_path=$REPORTS/asan" UBSAN_OPTIONS="print_stacktrace=1" \
    $MAKE -C "$SAN" check-TESTS TESTS="$TESTS" || rc=1

# A program that ASan could not start because the test limited its address
# space (tests/mix.sh and tests/otf2_foreign.sh try `ulimit -v` to see
# whether a limit can be enforced here) leaves a report of that alone: the
# probe's answer, not a fault of the code.  Such a report is set aside, and
# only one that says nothing else.
mkdir -p "$REPORTS.limited"
for f in "$REPORTS"/*; do
    [ -f "$f" ] || continue
    if grep -q 'ReserveShadowMemoryRange failed' "$f" &&
        ! grep -v -e '^$' -e 'AddressSanitizer failed to allocate 0x[0-9a-f]* ([0-9]*) bytes at address' \
            -e 'ReserveShadowMemoryRange failed while trying to map' "$f" | grep -q .; then
        mv "$f" "$REPORTS.limited/"
    fi
done
n=$(ls "$REPORTS.limited" | wc -l)
[ "$n" -eq 0 ] || echo "check-sanitize: $n start(s) under an address-space limit set aside ($REPORTS.limited)"

verdict=PASS
if [ -n "$(ls "$REPORTS")" ]; then
    echo "check-sanitize: AddressSanitizer reports ($REPORTS):"
    head -n 40 "$REPORTS"/*
    verdict=FAIL
fi
ub=$(find "$SAN" -name '*.log' ! -name config.log ! -path "$REPORTS/*" \
    -exec grep -l ': runtime error: ' {} + 2>/dev/null)
if [ -n "$ub" ]; then
    echo "check-sanitize: UndefinedBehaviorSanitizer reports in:" $ub
    verdict=FAIL
fi
[ "$verdict" = PASS ] || rc=1
echo "$verdict: check-sanitize: no sanitizer report"
printf ':test-result: %s\n' "$verdict" >"$SAN/sanitizer-reports.trs"
exit $rc
