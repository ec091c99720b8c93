#!/bin/sh
# run.sh - the launcher `torusemu run` as a user meets it: help, clear errors
# (too many ranks, a map that does not fit, no mpirun, no program), the
# application's exit status passed through, the store kept or removed, the
# environment the ranks get and the closing summary.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

expect_ok "run --help" "$TORUSEMU" run --help
expect_out "run --help" "^Usage: torusemu run .*--machine=SPEC -np P"
expect_ok "top-level help lists run" "$TORUSEMU" --help
expect_out "help lists run" "^  run +run an MPI program"
expect_fail "run without arguments" "^Usage: torusemu run" "$TORUSEMU" run
expect_fail "no machine" "missing --machine SPEC" "$TORUSEMU" run -np 2 -- /bin/true
expect_fail "no -np" "missing -np P" "$TORUSEMU" run --machine midplane -- /bin/true
expect_fail "bad -np" "-np 'two': expected a number of ranks from 1 to 2147483647" \
    "$TORUSEMU" run --machine midplane -np two -- /bin/true
expect_fail "no program" "missing the program" "$TORUSEMU" run --machine midplane -np 2
expect_fail "nothing after --" "no program after '--'" "$TORUSEMU" run --machine midplane -np 2 --
expect_fail "unknown option" "unknown option '--colour'" \
    "$TORUSEMU" run --machine midplane --colour red -np 2 -- /bin/true
expect_fail "bad machine" "bgq needs 5 dimensions" "$TORUSEMU" run --machine bgq:4x4x4 -np 2 -- /bin/true
# P exceeds the machine
expect_fail "too many ranks" "-np 17 does not fit gemini-tiny: 16 nodes x 1 per node = 16 ranks" \
    "$TORUSEMU" run --machine gemini-tiny -np 17 -- /bin/true
expect_fail "too many per node" "BG/Q runs 1, 2, 4, 8, 16, 32 or 64 per node" \
    "$TORUSEMU" run --machine midplane --ranks-per-node 3 -np 6 -- /bin/true
# maps that do not fit
printf '0 0 0 0 0 0\n9 0 0 0 0 0\n' >"$TMP/out.map"
expect_fail "map outside the machine" "line 2: A=9 is outside 0..3" \
    "$TORUSEMU" run --machine midplane --map "$TMP/out.map" -np 2 -- /bin/true
printf '0 0 0 0 0 0\n0 0 0 0 0 0\n' >"$TMP/dup.map"
expect_fail "map slot used twice" "slot already used" \
    "$TORUSEMU" run --machine midplane --map "$TMP/dup.map" -np 2 -- /bin/true
printf '0 0 0 0 0 0\n' >"$TMP/short.map"
expect_fail "map too short" "places 1 ranks but the job has 2" \
    "$TORUSEMU" run --machine midplane --map "$TMP/short.map" -np 2 -- /bin/true
expect_fail "map file missing" "nonexistent.map" \
    "$TORUSEMU" run --machine midplane --map "$TMP/nonexistent.map" -np 2 -- /bin/true
# no mpirun, no program
expect_fail "mpirun missing" "TORUSEMU_MPIRUN='/nonexistent/mpirun' is not an executable" \
    env TORUSEMU_MPIRUN=/nonexistent/mpirun "$TORUSEMU" run --machine midplane -np 2 -- /bin/true
expect_fail "program missing" "cannot run './no-such-program': no such file" \
    "$TORUSEMU" run --machine midplane -np 2 -- ./no-such-program
expect_fail "program not in PATH" "cannot run 'no-such-program': not found in PATH" \
    "$TORUSEMU" run --machine midplane -np 2 -- no-such-program
expect_fail "library missing" "TORUSEMU_MPI_LIB='/nonexistent.so'" \
    env TORUSEMU_MPI_LIB=/nonexistent.so "$TORUSEMU" run --machine midplane -np 2 -- /bin/true

# the application's exit status comes back, with a message
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-tiny -np 3 -- "$TM/fail" 7 \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 7 ] && pass || failed "exit status $rc, want 7"
grep -q "the application failed (exit status 7)" "$TMP/err" && pass ||
    failed "no failure message: $(cat "$TMP/err")"
# the temporary store went away (it is made in $TMPDIR)
[ -z "$(ls "$TMP/tmpdir")" ] && pass || failed "temporary store left: $(ls "$TMP/tmpdir")"

# the summary piped into a reader that is gone (SIGPIPE): the store still goes
mkdir "$TMP/tmpdir2"
TMPDIR="$TMP/tmpdir2" "$TORUSEMU" run --machine midplane -np 2 -- "$EX/sonar" --size 8 2>&1 |
    true
[ -z "$(ls "$TMP/tmpdir2")" ] && pass || failed "store left after SIGPIPE: $(ls "$TMP/tmpdir2")"

# a successful run: summary; --keep leaves the store for torusemu dump
S="$TMP/kept.store"
printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$TMP/two.map"
expect_ok "ping run" "$TORUSEMU" run --machine midplane --map "$TMP/two.map" -np 2 --keep "$S" \
    -- "$EX/sonar" --size 1K
grep -q "^torusemu: 2 ranks on bgq:4x4x4x4x2 (midplane), 1 per node; exit status 0" "$TMP/err" &&
    pass || failed "summary header: $(cat "$TMP/err")"
grep -q "^torusemu: 1 messages, 1024 bytes of MPI payload injected" "$TMP/err" && pass ||
    failed "summary totals: $(cat "$TMP/err")"
# 1 KiB over E+: 2 packets + 32 chunks = 34 chunks of 32 bytes
grep -q "busiest link: R00-M0-N00-J00 E+ -> R00-M0-N00-J01, 1088 bytes" "$TMP/err" && pass ||
    failed "busiest link: $(cat "$TMP/err")"
grep -q "counters kept in $S" "$TMP/err" && pass || failed "kept store not reported"
expect_ok "dump the kept store" "$TORUSEMU" dump "$S" --link E+
expect_out "dump shows the chunks" "^  E\+ +0 34 0 0 0 0 0"
expect_ok "quiet run" "$TORUSEMU" run --quiet --machine midplane -np 2 -- "$EX/sonar" --size 8
[ ! -s "$TMP/err" ] && pass || failed "--quiet printed: $(cat "$TMP/err")"

# what the ranks get: the session, the preloaded library, extra mpirun arguments
expect_ok "environment" "$TORUSEMU" run --machine gemini-tiny -np 2 --keep "$TMP/env.store" \
    --mpirun-arg -x --mpirun-arg TMPI_TEST_VAR=hello -- /usr/bin/env
expect_out "session passed" "^TORUSEMU_SESSION=$TMP/env.store$"
expect_out "library preloaded" "^LD_PRELOAD=.*libtorusemu_mpi\.so"
expect_out "mpirun argument passed" "^TMPI_TEST_VAR=hello$"
n=$(grep -c "^TORUSEMU_SESSION=" "$TMP/out")
[ "$n" -eq 2 ] && pass || failed "$n ranks saw the session, want 2"
# the same as one string (quotes keep a blank inside a word), with
# --opt=value spellings and the program without "--"
expect_ok "--mpirun-args as one string" "$TORUSEMU" run --machine=gemini-tiny --np=2 \
    --mpirun-args="-x TMPI_TEST_VAR='hello world' -x TMPI_OTHER=2" /usr/bin/env
expect_out "quoted word passed whole" "^TMPI_TEST_VAR=hello world$"
expect_out "second word pair passed" "^TMPI_OTHER=2$"
n=$(grep -c "^TMPI_OTHER=2$" "$TMP/out")
[ "$n" -eq 2 ] && pass || failed "$n ranks saw TMPI_OTHER, want 2"
expect_fail "unbalanced quote" "unbalanced ' quote" "$TORUSEMU" run --machine midplane -np 2 \
    --mpirun-args "-x 'A=1" -- /bin/true
expect_ok "run --version" "$TORUSEMU" run --version
expect_out "run --version" "^torusemu \(papi-torus\) [0-9]+\.[0-9]+\.[0-9]+$"

finish
