#!/bin/sh
# trace.sh - `torusemu run --trace` writes an OTF2 archive of what the MPI
# layer counted, and `torusemu replay --trace` of it leaves a store equal to
# the live run's in every counter (BG/Q L2 slices included: the trace keeps
# the buffer addresses); with --timing (ranks in virtual time) too, but for
# the model's stall counters, and read as the ranks reach it the same as
# read whole first.  Examples, the collectives, point-to-point
# modes, one-sided operations, and a C and a Fortran program.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

n=0
# same_replay DESC MACHINE NP [launcher options] -- PROGRAM ARGS
same_replay() {
    desc=$1 machine=$2 np=$3
    shift 3
    n=$((n + 1))
    run_mpi "$desc: live" "$TMP/live$n.store" "$machine" "$np" --trace "$TMP/t$n" "$@"
    grep -q "OTF2 trace in $TMP/t$n/traces.otf2" "$TMP/err" && pass ||
        failed "$desc: no trace announced: $(cat "$TMP/err")"
    opts=""
    while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
    # shellcheck disable=SC2086
    expect_ok "$desc: replay" "$TORUSEMU" replay --machine "$machine" $opts --trace "$TMP/t$n" \
        --keep "$TMP/rep$n.store" --quiet
    check "$desc: replay equals the live run" "$CHECK" identical "$TMP/live$n.store" "$TMP/rep$n.store"
    # ranks in virtual time: every counter but the timing model's the same,
    # on the live run's (deterministic) routes; by default Blue Gene's
    # dynamic VCs route adaptively and link counts move (replay_adaptive.sh)
    # shellcheck disable=SC2086
    expect_ok "$desc: timed replay" "$TORUSEMU" replay --machine "$machine" $opts \
        --trace "$TMP/t$n" --timing --routing deterministic --keep "$TMP/vt$n.store" --quiet
    volume "$TMP/live$n.store" >"$TMP/live$n.csv"
    volume "$TMP/vt$n.store" >"$TMP/vt$n.csv"
    cmp -s "$TMP/live$n.csv" "$TMP/vt$n.csv" && pass ||
        failed "$desc: timed replay's counts differ: $(diff "$TMP/live$n.csv" "$TMP/vt$n.csv" | head -3)"
    # the timed replay reads the trace as the ranks reach it: the report and
    # every counter as when it is recorded whole first, and a record at a
    # time (every collective read on to its last member) too
    # shellcheck disable=SC2086
    expect_ok "$desc: timed, a record at a time" env TORUSEMU_OTF2_CHUNK=1 "$TORUSEMU" replay \
        --machine "$machine" $opts --trace "$TMP/t$n" --timing --format csv \
        --keep "$TMP/one$n.store" --quiet
    mv "$TMP/out" "$TMP/one$n.out"
    # shellcheck disable=SC2086
    expect_ok "$desc: timed, whole" env TORUSEMU_RECORD_WHOLE=1 "$TORUSEMU" replay \
        --machine "$machine" $opts --trace "$TMP/t$n" --timing --format csv \
        --keep "$TMP/whole$n.store" --quiet
    "$TORUSEMU" dump "$TMP/one$n.store" --tiles --all --format csv >"$TMP/one$n.dump"
    "$TORUSEMU" dump "$TMP/whole$n.store" --tiles --all --format csv >"$TMP/whole$n.dump"
    [ -s "$TMP/one$n.out" ] && cmp -s "$TMP/one$n.out" "$TMP/out" &&
        cmp -s "$TMP/one$n.dump" "$TMP/whole$n.dump" && pass ||
        failed "$desc: read a record at a time differs from whole: $(diff "$TMP/one$n.out" "$TMP/out" | head -3)"
}
# non-zero counters of a store other than the timing model's stalls
volume() {
    "$TORUSEMU" dump "$1" --format csv | grep -v -e INQ_STALL -e CREDIT_STALL | awk -F, '$NF != 0'
}

for m in nodeboard bgp-16 gemini-tiny; do
    same_replay "rowa2a on $m" "$m" 16 --ranks-per-node 2 -- "$EX/rowa2a" --rows 4 --cols 4 --bytes 3000
    same_replay "stencil27 on $m" "$m" 8 -- "$EX/stencil27" --grid 2x2x2 --cells 4x4x4 --vars 2
    same_replay "p2p modes on $m" "$m" 4 --map random:3 -- "$TM/p2p_modes"
    same_replay "one-sided on $m" "$m" 4 -- "$TM/rma_ops" --bytes 512 --target 2 put get acc getacc fop cas
    same_replay "C program on $m" "$m" 4 -- "$TM/ftwin"
done
# every collective, on the class routes too (BG/Q), with sub-communicators
for m in nodeboard bgp-16 gemini-tiny; do
    same_replay "collectives on $m" "$m" 8 --ranks-per-node 2 -- "$TM/coll_trace"
done
if [ -x "$TM/fortran_mpifh" ]; then
    same_replay "Fortran program" nodeboard 4 -- "$TM/fortran_mpifh"
    same_replay "Fortran 2008 program" gemini-tiny 4 -- "$TM/fortran_f08"
fi

# the check can fail: another placement differs
expect_ok "replay elsewhere" "$TORUSEMU" replay --machine nodeboard --map random:9 \
    --ranks-per-node 2 --trace "$TMP/t1" --keep "$TMP/other.store" --quiet
check_fails "another placement differs" "$CHECK" identical "$TMP/live1.store" "$TMP/other.store"

# errors name the problem
expect_fail "wrong rank count" "the trace has 16 ranks but the replay places 32" \
    "$TORUSEMU" replay --machine nodeboard --trace "$TMP/t1" -np 32
expect_fail "no archive" "no OTF2 archive at $TMP/none" \
    "$TORUSEMU" replay --machine nodeboard --trace "$TMP/none"
expect_fail "trace dir in use" "already holds an OTF2 archive" \
    "$TORUSEMU" run --machine nodeboard -np 2 --trace "$TMP/t1" -- "$EX/sonar"
expect_fail "pattern and trace" "exclude each other" \
    "$TORUSEMU" replay --machine nodeboard --trace "$TMP/t1" --pattern fft

# a run whose trace cannot be written leaves no half archive and no raw
# files (issue 22): only traces.incomplete saying why, which replay names
incomplete="an incomplete trace of a failed run (torusemu run --trace), no archive:"
expect_fail "a rank fails" "no trace written: the run failed (exit status 3)" \
    "$TORUSEMU" run --machine gemini-tiny -np 4 --trace "$TMP/dead" -- "$TM/fail" 3
expect_eq "only the marker left" "traces.incomplete" "$(ls -A "$TMP/dead")"
expect_fail "replay says what it is" "$TMP/dead: $incomplete the run failed (exit status 3)" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/dead"
# rank 1's records vanish: rank 0 is in the archive when the writer stops
expect_fail "a rank's records missing" "no trace written: no trace of rank 1 in $TMP/lose" \
    "$TORUSEMU" run --machine gemini-tiny -np 4 --trace "$TMP/lose" -- "$TM/fail" 0 --lose-trace 1
expect_eq "the half archive removed" "traces.incomplete" "$(ls -A "$TMP/lose")"
expect_fail "replay says so" "$TMP/lose: $incomplete no trace of rank 1" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/lose/traces.otf2"
# the directory takes a new trace, which replaces the marker
run_mpi "trace into it again" "$TMP/again.store" gemini-tiny 4 --trace "$TMP/dead" -- "$TM/fail" 0
expect_eq "an archive, no marker" "traces traces.def traces.otf2" "$(ls "$TMP/dead" | tr '\n' ' ' |
    sed 's/ $//')"
expect_ok "which replays" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/dead" --quiet
finish
