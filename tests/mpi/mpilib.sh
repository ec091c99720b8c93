# mpilib.sh - helpers for the MPI shell tests (sourced after tests/lib.sh).
# Skips the test (exit 77) when MPI cannot run here.
EX="$top_builddir/examples"
TM="$top_builddir/tests/mpi"
CHECK="$TM/tmpi_check"
# Open MPI settings for one host: shared memory only, no interface probing.
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1

if [ -z "${TORUSEMU_MPIRUN:-}" ] && ! command -v mpirun >/dev/null 2>&1; then
    echo "mpirun not found: MPI tests skipped"
    exit 77
fi

# run_mpi DESC STORE MACHINE NP [launcher options] -- PROGRAM ARGS:
# torusemu run keeping STORE; stdout in $TMP/out, stderr in $TMP/err.
# With VT_STRICT=1 a run whose virtual times may not repeat fails too: the
# launcher's warning that messages came late, deliveries were overwritten
# or ranks blocked in MPI were let go after 2 s (utils/run_model.c) makes
# the 2 s stall rule fatal to the test, whatever the clocks printed.
run_mpi() {
    desc=$1 store=$2 machine=$3 np=$4
    shift 4
    rm -f "$store"
    if ! "$TORUSEMU" run --machine "$machine" -np "$np" --keep "$store" "$@" \
        >"$TMP/out" 2>"$TMP/err"; then
        failed "$desc (exit $?): $(tail -n 40 "$TMP/err")" # the ranks' own errors come before the summary
    elif [ "${VT_STRICT:-0}" = 1 ] && grep -q 'run: virtual time: .* may not repeat' "$TMP/err"; then
        failed "$desc: $(grep 'run: virtual time:' "$TMP/err")"
    else
        pass
    fi
}

# check DESC CMD...: a tmpi_check (or other) command must succeed
check() {
    desc=$1
    shift
    if "$@" >"$TMP/cout" 2>"$TMP/cerr"; then
        pass
    else
        failed "$desc: $(head -n 8 "$TMP/cerr") $(cat "$TMP/cout")"
    fi
}

# check_fails DESC CMD...: the command must fail (the check can catch errors)
check_fails() {
    desc=$1
    shift
    if "$@" >"$TMP/cout" 2>"$TMP/cerr"; then
        failed "$desc: succeeded but should not"
    else
        pass
    fi
}

# take_result DESC: add the "N passed, M failed" line a test program
# printed on $TMP/out to this script's totals (its FAIL lines to stderr)
take_result() {
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/out")
    if [ -n "$line" ]; then
        p=${line%% passed*}
        f=${line#*passed, }
        f=${f%% failed}
        npass=$((npass + p))
        nfail=$((nfail + f))
        [ "$f" -eq 0 ] || grep '^FAIL' "$TMP/err" >&2
    else
        failed "$1 printed no result: $(tail -n 5 "$TMP/err")"
    fi
}

# started DIR NP: every rank of the job has written its pid in DIR
# (tests/mpi/hold.c writes DIR/rank.N)
started() {
    r=0
    while [ $r -lt "$2" ]; do
        [ -s "$1/rank.$r" ] || return 1
        r=$((r + 1))
    done
}
