#!/bin/sh
# replay_signals.sh - `torusemu replay` watched and interrupted (issue 22,
# row 10 and the new user's list):
#   - Ctrl-C (SIGINT to the process group), SIGTERM (also from timeout(1)),
#     SIGHUP: the replay says where it was, removes its temporary store and
#     directory, and ends by that signal; a --keep store half-written is
#     removed as on an error;
#   - SIGKILL: the directory left is removed by the next replay, a live
#     replay's is not;
#   - progress lines (TORUSEMU_PROGRESS_EVERY=N: every N steps of the
#     engine, whatever the host time): the same on every run but for the
#     rates and estimates, none with --quiet, none when stderr is not a
#     terminal without the variable, written over each other on a terminal.
# Every replay here runs in a private $TMPDIR, so what is left is ours.
. "${top_srcdir:-.}/tests/lib.sh"

# a replay that takes minutes (untimed: 8192 ranks x 100000 steps; timed:
# GPCNeT's four canary iterations with 2048 congestor rounds) but prints a
# progress line within milliseconds; killed long before it ends
LONG="--machine midplane --ranks-per-node 16 --pattern random --steps 100000 --threads 2"
LONG_TIMED="--machine gemini-tiny --pattern gpcnet --timing --steps 4"

progressed() { grep -q "rank operations\|virtual time" "$TMP/err"; }
# before each job: an empty TMPDIR, and no stderr of the last job (the
# shell truncates it for a background job only when that job starts, maybe
# after the first look)
fresh_tmpdir() {
    rm -rf "$TMP/tmpdir"
    mkdir "$TMP/tmpdir"
    : >"$TMP/err"
}
empty_tmpdir() {
    expect_eq "$1: left in TMPDIR" "" "$(ls -A "$TMP/tmpdir")"
}

# ------------------------------------------------ SIGINT, SIGTERM, SIGHUP
for case in "INT 2 Interrupt" "TERM 15 Terminated" "HUP 1 Hangup"; do
    set -- $case
    name=$1 num=$2 text=$3
    fresh_tmpdir
    # a process group of its own, as a terminal's foreground job, and
    # SIGINT not ignored (sh starts background jobs with SIGINT ignored,
    # and the replay leaves an ignored signal ignored, as under nohup)
    TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=1 setsid -w env --default-signal \
        sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/pgid" "$TORUSEMU" replay $LONG \
        >"$TMP/out" 2>"$TMP/err" &
    job=$!
    if ! poll 1200 progressed; then
        failed "SIG$name: no progress line: $(cat "$TMP/err")"
    fi
    [ -f "$(ls -d "$TMP"/tmpdir/torusemu-replay.* 2>/dev/null)/session.store" ] && pass ||
        failed "SIG$name: no temporary store while running: $(ls -AR "$TMP/tmpdir")"
    kill -"$name" -"$(cat "$TMP/pgid")"
    wait $job
    expect_eq "SIG$name: exit status" $((128 + num)) $?
    grep -Eq "^torusemu replay: stopped by signal $num \($text\) after [0-9]+ of [0-9]+ rank operations \(as of the last progress count\); its store was removed$" "$TMP/err" &&
        pass || failed "SIG$name: not said: $(tail -n 2 "$TMP/err")"
    empty_tmpdir "SIG$name"
done

# timeout(1) sends SIGTERM to a replay still running after 3 seconds (the
# replay holds signals while it makes its directory, so even a slow start
# cannot leave one; 3 s leave a start on a loaded host time to get there)
fresh_tmpdir
TMPDIR="$TMP/tmpdir" timeout 3 "$TORUSEMU" replay $LONG --threads 1 >"$TMP/out" 2>"$TMP/err"
expect_eq "timeout: exit status" 124 $?
grep -q "^torusemu replay: stopped by signal 15 (Terminated)" "$TMP/err" && pass ||
    failed "timeout: not said: $(cat "$TMP/err")"
empty_tmpdir "timeout"

# a timed replay says the virtual time and events of its last count: those
# of its last progress line (one at every count here)
fresh_tmpdir
TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=1000 "$TORUSEMU" replay $LONG_TIMED \
    >"$TMP/out" 2>"$TMP/err" &
job=$!
poll 1200 progressed || failed "timed: no progress line: $(cat "$TMP/err")"
kill -TERM $job
wait $job
expect_eq "timed SIGTERM: exit status" 143 $?
last=$(grep " events (" "$TMP/err" | tail -n 1 |
    sed -n 's/^torusemu replay: .*: \([0-9.]*\) us of virtual time, \([0-9]*\) events .*/\1 \2/p')
said=$(sed -n 's/^torusemu replay: stopped by signal 15 (Terminated) at \([0-9.]*\) us of virtual time, after \([0-9]*\) events of the timing model and [0-9]* of [0-9]* rank operations (as of the last progress count); its store was removed$/\1 \2/p' "$TMP/err")
[ -n "$last" ] && pass || failed "timed: no progress line: $(cat "$TMP/err")"
expect_eq "timed SIGTERM: where it was" "$last" "$said"
empty_tmpdir "timed SIGTERM"

# --keep FILE: half a replay is no result, removed as on an error
fresh_tmpdir
TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=1 "$TORUSEMU" replay $LONG --keep "$TMP/half.store" \
    >"$TMP/out" 2>"$TMP/err" &
job=$!
poll 1200 progressed || failed "--keep: no progress line: $(cat "$TMP/err")"
kill -TERM $job
wait $job
[ ! -e "$TMP/half.store" ] && pass || failed "--keep: the half-written store was left"
empty_tmpdir "--keep"

# ------------------------------------------------ SIGKILL, then the next replay
fresh_tmpdir
TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=1 "$TORUSEMU" replay $LONG --threads 1 \
    >"$TMP/out" 2>"$TMP/err" &
job=$!
poll 1200 progressed || failed "SIGKILL: no progress line: $(cat "$TMP/err")"
stale=$(ls -d "$TMP"/tmpdir/torusemu-replay.*)
kill -KILL $job
wait $job
[ -f "$stale/session.store" ] && pass || failed "SIGKILL: no store left (the test needs one)"
# a live replay meanwhile: its directory stays
: >"$TMP/err"
TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=1 "$TORUSEMU" replay $LONG --threads 1 \
    >"$TMP/out" 2>"$TMP/err" &
live=$!
poll 1200 progressed || failed "SIGKILL: the live replay shows no progress"
# and one not marked (an older torusemu's, or one being made): it stays
mkdir -m 0700 "$TMP/tmpdir/torusemu-run.unmarked"
: >"$TMP/tmpdir/torusemu-run.unmarked/session.store"
expect_ok "the next replay" env TMPDIR="$TMP/tmpdir" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern tornado --quiet
[ ! -e "$stale" ] && pass || failed "SIGKILL: the next replay left the stale store $stale"
[ -e "$TMP/tmpdir/torusemu-run.unmarked/session.store" ] && pass ||
    failed "SIGKILL: an unmarked directory was removed"
rm -r "$TMP/tmpdir/torusemu-run.unmarked"
n=$(ls -d "$TMP"/tmpdir/torusemu-replay.*/session.store 2>/dev/null | wc -l)
expect_eq "SIGKILL: the live replay's store kept" 1 "$n"
kill -TERM $live
wait $live
empty_tmpdir "SIGKILL"

# ------------------------------------------------ progress lines
SMALL="--machine gemini-tiny --pattern halo --grid 2x2x4 --size 20 --timing"
fresh_tmpdir
for run in 1 2; do
    TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=50 "$TORUSEMU" replay $SMALL \
        >"$TMP/out" 2>"$TMP/err$run"
    expect_eq "progress run $run: exit status" 0 $?
    # the host's rates and estimates aside, every line is the same each time
    grep "virtual time," "$TMP/err$run" |
        sed 's/ events (.* M\/s), / events, /; s/ packets delivered, .*/ packets delivered/' \
            >"$TMP/lines$run"
done
n=$(wc -l <"$TMP/lines1")
[ "$n" -ge 3 ] && pass || failed "progress: $n lines, want 3 or more: $(cat "$TMP/err1")"
cmp -s "$TMP/lines1" "$TMP/lines2" && pass || failed "progress lines differ between two runs"
grep -Eq '^torusemu replay: [0-9]+\.[0-9]{6} us of virtual time, [0-9]+ events, [0-9]+% of about [0-9]+ packets delivered$' "$TMP/lines1" &&
    pass || failed "progress line format: $(head -n 2 "$TMP/lines1")"
grep -Eq ' events \([0-9]+\.[0-9]{2} M/s\), .* packets delivered, (about [0-9.]+ (s|min|h) left|no estimate yet)$' "$TMP/err1" &&
    pass || failed "progress: no rate or estimate: $(head -n 2 "$TMP/err1")"
# virtual time never goes back
sort -c -n -k3,3 "$TMP/lines1" 2>/dev/null && pass || failed "progress: virtual time goes back"
TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=50 "$TORUSEMU" replay $SMALL --quiet \
    >"$TMP/out" 2>"$TMP/err"
expect_eq "--quiet: stderr" "" "$(cat "$TMP/err")"
TMPDIR="$TMP/tmpdir" "$TORUSEMU" replay $SMALL >"$TMP/out" 2>"$TMP/err"
if grep -q "virtual time," "$TMP/err"; then failed "progress without a terminal"; else pass; fi
if command -v script >/dev/null 2>&1; then
    # a terminal: every line written over the one before
    TMPDIR="$TMP/tmpdir" TORUSEMU_PROGRESS_EVERY=50 timeout 120 script -qec \
        "'$TORUSEMU' replay $SMALL" /dev/null >"$TMP/tty" 2>&1
    grep -q "$(printf '\r')torusemu replay: [0-9.]* us of virtual time" "$TMP/tty" && pass ||
        failed "terminal: no line written over the last"
else
    echo "script(1) not found: the terminal case is skipped"
fi
empty_tmpdir "progress"

finish
