#!/bin/sh
# timing_same.sh - the timing model's results are those the expected
# fingerprints hold: bench/timing_fingerprint hashes every delivery, hop,
# total and counter of its 14 cases (three machines, deterministic and
# adaptive routing, single packets, trains split and whole, messages), and
# each line must be bench/timing_fingerprint.expected's.  A refactor or a
# speed-up keeps them bit-identical; a change of the model's behaviour
# changes the expected file with it (`make bench-timing-same` is this check
# by hand).  Two cases again with each instant's sends made in reverse
# order: the same lines.
. "${top_srcdir:-.}/tests/lib.sh"

expect_ok "timing fingerprints run" "$top_builddir/bench/timing_fingerprint"
if diff "$top_srcdir/bench/timing_fingerprint.expected" "$TMP/out" >"$TMP/diff"; then
    pass
else
    failed "timing fingerprints differ from bench/timing_fingerprint.expected:
$(cat "$TMP/diff")"
fi
expect_eq "14 fingerprints" 14 "$(grep -c ' fp [0-9a-f]\{16\}$' "$TMP/out")"
# events of equal time go by content, not push order: each instant's sends
# made from the last node to the first give the same lines (two of the
# cases of trains, adaptive and not; doc/model.md, "equal times")
expect_ok "fingerprints, sends reversed" "$top_builddir/bench/timing_fingerprint" -r \
    bgq:4x4x4x4x2 0.6 4 1 1 0 a t gemini:8x8x8 0.5 4 1 1 0 x t
expect_eq "bgq, sends reversed" "$(grep '^bgq:4x4x4x4x2 load 0.60 4us pk1 tr1 w0 a t:' \
    "$top_srcdir/bench/timing_fingerprint.expected")" "$(sed -n 1p "$TMP/out")"
expect_eq "gemini, sends reversed" "$(grep '^gemini:8x8x8 load 0.50 4us pk1 tr1 w0 x t:' \
    "$top_srcdir/bench/timing_fingerprint.expected")" "$(sed -n 2p "$TMP/out")"
finish
