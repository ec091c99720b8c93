#!/bin/sh
# run_signals.sh - `torusemu run` ended by a signal (issue 9): SIGHUP,
# SIGINT, SIGQUIT and SIGTERM reach the job (no rank is left running), the
# temporary store and its private directory are removed, and the end is
# reported as "killed by signal N" with exit status 128 + N.  Also: the
# temporary store lives in a fresh private (0700) directory, and --keep
# refuses an existing FILE unless --replace.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

# each rank records its pid and that it started, then waits to be killed
cat >"$TMP/job.sh" <<JOB
#!/bin/sh
echo \$\$ >"$TMP/rank.\$OMPI_COMM_WORLD_RANK"
exec sleep 600
JOB
chmod +x "$TMP/job.sh"
mkdir "$TMP/tmpdir"

# wait_for FILE...: until every file exists (at most 120 s; the job starts
# in well under a second, the bound only keeps a broken run from hanging)
wait_for() {
    i=0
    for f in "$@"; do
        while [ ! -s "$f" ] && [ $i -lt 1200 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
    [ $i -lt 1200 ]
}

for case in "HUP 1" "INT 2" "QUIT 3" "TERM 15"; do
    set -- $case
    name=$1 num=$2
    rm -f "$TMP"/rank.*
    TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-tiny -np 2 -- "$TMP/job.sh" \
        >"$TMP/out" 2>"$TMP/err" &
    launcher=$!
    if ! wait_for "$TMP/rank.0" "$TMP/rank.1"; then
        failed "SIG$name: the ranks never started: $(cat "$TMP/err")"
        kill -KILL $launcher 2>/dev/null
        continue
    fi
    # while running: the store is in a private directory of a fresh name
    # (0700, and the sticky bit: locked by its owner, doc/store.md)
    dir=$(ls -d "$TMP"/tmpdir/torusemu-run.* 2>/dev/null)
    [ -n "$dir" ] && [ "$(stat -c %a "$dir")" = 1700 ] && [ -f "$dir/session.store" ] && pass ||
        failed "SIG$name: no private store directory: $(ls -la "$TMP/tmpdir")"
    kill -"$name" $launcher
    wait $launcher
    rc=$?
    [ $rc -eq $((128 + num)) ] && pass || failed "SIG$name: exit status $rc, want $((128 + num))"
    grep -q "^torusemu run: the job was killed by signal $num (" "$TMP/err" && pass ||
        failed "SIG$name: not reported: $(cat "$TMP/err")"
    ! grep -q "exit status 1)" "$TMP/err" && pass || failed "SIG$name reported as an exit status"
    for r in 0 1; do
        pid=$(cat "$TMP/rank.$r")
        # mpirun has returned, so its ranks are gone or going: give them a
        # moment to be reaped, then none may remain
        j=0
        while kill -0 "$pid" 2>/dev/null && [ $j -lt 300 ]; do
            sleep 0.1
            j=$((j + 1))
        done
        ! kill -0 "$pid" 2>/dev/null && pass || failed "SIG$name: rank $r (pid $pid) still running"
    done
    [ -z "$(ls "$TMP/tmpdir" | grep torusemu-run)" ] && pass ||
        failed "SIG$name: temporary store left: $(ls -R "$TMP/tmpdir")"
done

# --keep refuses an existing file unless --replace
echo "mine" >"$TMP/kept.store"
expect_fail "--keep over a file" "session store '$TMP/kept.store' already exists" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --keep "$TMP/kept.store" -- /bin/true
[ "$(cat "$TMP/kept.store")" = mine ] && pass || failed "--keep overwrote the file"
expect_ok "--keep --replace" "$TORUSEMU" run --machine gemini-tiny -np 2 --keep "$TMP/kept.store" \
    --replace -- /bin/true
expect_ok "dump the replaced store" "$TORUSEMU" dump "$TMP/kept.store"
expect_fail "--replace alone" "--replace goes with --keep FILE" \
    "$TORUSEMU" run --machine gemini-tiny -np 2 --replace -- /bin/true

finish
