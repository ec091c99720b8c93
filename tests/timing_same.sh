#!/bin/sh
# timing_same.sh - the timing model's results are those the expected
# fingerprints hold: bench/timing_fingerprint hashes every delivery, hop,
# total and counter of its 14 cases (three machines, deterministic and
# adaptive routing, single packets, trains split and whole, messages), and
# each line must be bench/timing_fingerprint.expected's.  A refactor or a
# speed-up keeps them bit-identical; a change of the model's behaviour
# changes the expected file with it (`make bench-timing-same` is this check
# by hand).
. "${top_srcdir:-.}/tests/lib.sh"

expect_ok "timing fingerprints run" "$top_builddir/bench/timing_fingerprint"
if diff "$top_srcdir/bench/timing_fingerprint.expected" "$TMP/out" >"$TMP/diff"; then
    pass
else
    failed "timing fingerprints differ from bench/timing_fingerprint.expected:
$(cat "$TMP/diff")"
fi
expect_eq "14 fingerprints" 14 "$(grep -c ' fp [0-9a-f]\{16\}$' "$TMP/out")"
finish
