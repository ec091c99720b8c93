#!/bin/sh
# run_kill.sh - `torusemu run` ended from outside (issue 22, rows 3 and 5):
#   - Ctrl-C: SIGINT to the launcher's whole process group, as a terminal
#     sends it.  mpirun is in a group of its own, so it gets the signal
#     once (forwarded); nothing of Open MPI's (session directory in
#     $TMPDIR, the ranks' vader_segment files in /dev/shm) nor ours is left;
#   - SIGKILL of the launcher: mpirun and the ranks end too, and the store
#     it left is removed by the next run in the same $TMPDIR;
#   - a terminal's input still reaches rank 0 (mpirun is not in the
#     terminal's foreground group; the launcher copies it).
# Waits are bounded polls (30 s or more), never a fixed sleep.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

HOLD="$TM/hold"

# alive PID: the process exists and is not a zombie
alive() {
    [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$1/status" 2>/dev/null
}
dead() { ! alive "$1"; }
# all_dead PID...
all_dead() {
    for p in "$@"; do
        alive "$p" && return 1
    done
    return 0
}
# none_exists FILE...
none_exists() {
    for f in "$@"; do
        [ -e "$f" ] && return 1
    done
    return 0
}
rank_pids() {
    cat "$TMP"/ranks/rank.*
}
# the vader_segment files the ranks have mapped (theirs, not another job's)
rank_segments() {
    for p in $(rank_pids); do
        grep -o '/dev/shm/vader_segment[^ ]*' "/proc/$p/maps" 2>/dev/null
    done | sort -u
}
# mpirun: the launcher's child
mpirun_of() {
    ps -o pid= --ppid "$1" | tr -d ' '
}

# ------------------------------------------------ Ctrl-C (SIGINT to the group)
for round in 1 2 3; do
    rm -rf "$TMP/ranks" "$TMP/tmpdir"
    mkdir "$TMP/ranks" "$TMP/tmpdir"
    # setsid: a process group of its own, led by the launcher (as a shell
    # makes for a foreground job)
    TMPDIR="$TMP/tmpdir" setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/pgid" \
        "$TORUSEMU" run --machine gemini-tiny -np 4 -- "$HOLD" "$TMP/ranks" \
        >"$TMP/out" 2>"$TMP/err" &
    job=$!
    if ! poll 1200 started "$TMP/ranks" 4; then
        failed "Ctrl-C $round: the ranks never started: $(cat "$TMP/err")"
        kill -TERM "$(cat "$TMP/pgid")" 2>/dev/null
        wait $job
        continue
    fi
    pg=$(cat "$TMP/pgid")
    mp=$(mpirun_of "$pg")
    segs=$(rank_segments)
    pids=$(rank_pids)
    [ -n "$segs" ] && pass || failed "Ctrl-C $round: no vader_segment mapped by the ranks"
    mpg=$(ps -o pgid= -p "$mp" | tr -d ' ')
    [ -n "$mp" ] && [ "$mpg" = "$mp" ] && [ "$mpg" != "$pg" ] && pass ||
        failed "Ctrl-C $round: mpirun (pid $mp) is in process group '$mpg', the launcher's is $pg"
    kill -INT -"$pg"
    wait $job
    rc=$?
    expect_eq "Ctrl-C $round: exit status" 130 "$rc"
    grep -q "^torusemu run: the job was killed by signal 2 (" "$TMP/err" && pass ||
        failed "Ctrl-C $round: not reported: $(cat "$TMP/err")"
    # mpirun has returned: its ranks are gone or going
    # shellcheck disable=SC2086
    poll 300 all_dead $mp $pids && pass || failed "Ctrl-C $round: mpirun or a rank still runs"
    # shellcheck disable=SC2086
    poll 300 none_exists $segs && pass || failed "Ctrl-C $round: left in /dev/shm: $segs"
    left=$(ls -A "$TMP/tmpdir")
    expect_eq "Ctrl-C $round: left in TMPDIR" "" "$left"
done

# ------------------------------------------------ SIGKILL of the launcher
rm -rf "$TMP/ranks" "$TMP/tmpdir"
mkdir "$TMP/ranks" "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-tiny -np 2 -- "$HOLD" "$TMP/ranks" \
    >"$TMP/out" 2>"$TMP/err" &
launcher=$!
if poll 1200 started "$TMP/ranks" 2; then
    mp=$(mpirun_of $launcher)
    pids=$(rank_pids)
    segs=$(rank_segments)
    kill -KILL $launcher
    wait $launcher
    # shellcheck disable=SC2086
    if poll 300 all_dead $mp $pids; then
        pass
    else
        failed "SIGKILL: mpirun (pid $mp) or a rank ($pids) still runs 30 s after the launcher died"
        kill -TERM $mp 2>/dev/null
        poll 300 all_dead $mp $pids
    fi
    # shellcheck disable=SC2086
    poll 300 none_exists $segs && pass || failed "SIGKILL: left in /dev/shm: $segs"
    stale=$(ls -d "$TMP"/tmpdir/torusemu-run.* 2>/dev/null)
    [ -n "$stale" ] && [ -f "$stale/session.store" ] && pass ||
        failed "SIGKILL: no store left to clean (the test needs one): $(ls -A "$TMP/tmpdir")"
    # the next run removes it, and never the store of a live run
    mkdir "$TMP/ranks2"
    TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-tiny -np 1 -- "$HOLD" "$TMP/ranks2" \
        >/dev/null 2>&1 &
    live=$!
    poll 1200 started "$TMP/ranks2" 1 || failed "SIGKILL: the live run never started"
    expect_ok "the next run" env TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-tiny \
        -np 2 -q -- /bin/true
    [ ! -e "$stale" ] && pass || failed "SIGKILL: the next run left the stale store: $stale"
    n=$(ls -d "$TMP"/tmpdir/torusemu-run.*/session.store 2>/dev/null | wc -l)
    expect_eq "SIGKILL: the live run's store kept" 1 "$n"
    kill -TERM $live
    wait $live
    left=$(ls -A "$TMP/tmpdir")
    expect_eq "SIGKILL: left in TMPDIR after the next run" "" "$left"
else
    failed "SIGKILL: the ranks never started: $(cat "$TMP/err")"
    kill -TERM $launcher
    wait $launcher
fi

# ------------------------------------------------ a terminal's input
if command -v script >/dev/null 2>&1; then
    # script(1) gives the launcher a terminal whose foreground group is its
    # own; the line arrives whenever the job reads it
    (
        sleep 1
        echo hello
    ) | TMPDIR="$TMP/tmpdir" timeout 120 script -qec \
        "'$TORUSEMU' run -q --machine gemini-tiny -np 1 -- /bin/sh -c 'read x; echo \"got \$x\"'" \
        /dev/null >"$TMP/out" 2>&1
    grep -q "^got hello" "$TMP/out" && pass ||
        failed "terminal input did not reach rank 0: $(cat "$TMP/out")"
else
    echo "script(1) not found: the terminal input case is skipped"
fi

finish
