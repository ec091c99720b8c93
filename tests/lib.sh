# lib.sh - helpers for the shell tests (sourced).
# Counts checks; the caller ends with `finish`.
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
TORUSEMU="$top_builddir/torusemu"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/temu-sh.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Open MPI's session directory under this test's own TMP: two jobs that
# start at once (make check -j2 runs two MPI tests side by side) race to
# create the shared /tmp/ompi.HOST.UID and the loser fails with "mkdir ...
# File exists" (open-mpi/ompi issue #8510); a failure seen under load in
# tests/mpi/trace.sh and, likely, tests/mpi/fortran.sh
export OMPI_MCA_orte_tmpdir_base="$TMP"
npass=0
nfail=0

pass() { npass=$((npass + 1)); }
failed() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }

# san_report: the last command's stderr holds an UndefinedBehaviorSanitizer
# report (`make check-sanitize`: UBSan's fatal reports ignore log_path, and
# one from a command expected to fail must not pass)
san_report() { grep -q ': runtime error: ' "$TMP/err"; }
# expect_ok DESC CMD... : command must exit 0; its stdout goes to $TMP/out
expect_ok() {
    desc=$1; shift
    if "$@" >"$TMP/out" 2>"$TMP/err"; then
        if san_report; then failed "$desc: sanitizer report: $(cat "$TMP/err")"; else pass; fi
    else failed "$desc (exit $?): $(cat "$TMP/err")"; fi
}
# expect_fail DESC PATTERN CMD... : command must exit nonzero with PATTERN on stderr
expect_fail() {
    desc=$1; pat=$2; shift 2
    if "$@" >"$TMP/out" 2>"$TMP/err"; then
        failed "$desc: succeeded but should fail"
    elif san_report; then failed "$desc: sanitizer report: $(cat "$TMP/err")"
    elif grep -q -- "$pat" "$TMP/err"; then pass
    else failed "$desc: stderr lacks '$pat': $(cat "$TMP/err")"; fi
}
# expect_out DESC PATTERN : last stdout must match PATTERN (grep -E)
expect_out() {
    if grep -Eq -- "$2" "$TMP/out"; then pass; else failed "$1: output lacks '$2'"; fi
}
# expect_eq DESC WANT GOT : two strings must be equal
expect_eq() {
    if [ "$2" = "$3" ]; then pass; else failed "$1: want '$2', got '$3'"; fi
}
finish() {
    echo "$npass passed, $nfail failed"
    [ "$nfail" -eq 0 ]
}
# poll N CMD...: run CMD until it succeeds, at most N tenths of a second
# (a bounded wait for something another process does; its status is
# CMD's last one)
poll() {
    _poll_n=$1
    shift
    _poll_i=0
    while ! "$@" && [ $_poll_i -lt "$_poll_n" ]; do
        sleep 0.1
        _poll_i=$((_poll_i + 1))
    done
    "$@"
}
