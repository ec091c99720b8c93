#!/bin/sh
# otf2_foreign.sh - `torusemu replay --trace` of an OTF2 archive another
# tool wrote with the OTF2 library (tests/otf2_foreign, standing in for
# Score-P): the store equals the messages the trace implies, injected one
# by one; unsupported records and incomplete traces are refused by name.
. "${top_srcdir:-.}/tests/lib.sh"
W="$top_builddir/tests/otf2_foreign"
CHECK="$top_builddir/tests/mpi/tmpi_check"

expect_ok "write a foreign trace" "$W" "$TMP/f"
cp "$TMP/out" "$TMP/expect"
expect_ok "replay it" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/f" \
    --keep "$TMP/f.store"
if grep -q "8 ranks on gemini:2x2x2 (gemini-tiny), 1 per node; trace" "$TMP/err" &&
    grep -q "replayed 8 sends, 7 one-sided operations, 12 collective calls" "$TMP/err"; then
    pass
else
    failed "summary: $(cat "$TMP/err")"
fi
expect_ok "the store is the implied messages" "$CHECK" expect "$TMP/f.store" "$TMP/expect"
# the anchor file names the archive too
expect_ok "replay by anchor file" "$TORUSEMU" replay --machine gemini-tiny \
    --trace "$TMP/f/traces.otf2" --quiet

expect_ok "write with an unsupported record" "$W" "$TMP/u" --unsupported
expect_fail "unsupported record named" "unsupported record NonBlockingCollectiveRequest" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/u"
expect_ok "write with a receive missing" "$W" "$TMP/m" --unmatched
expect_fail "unmatched send named" "1 sends and 0 receives left unmatched, e.g. 1 send(s) from rank 4 to rank 5" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/m"
# a linear all-to-all of 1,024 ranks, every receive posted first: 1,047,552
# messages matched through hashed queues (quadratic matching would not end
# within the test's time)
expect_ok "write a 1,024-rank linear all-to-all" "$W" "$TMP/l" --linear 1024
expect_ok "replay it" "$TORUSEMU" replay --machine gemini-small --ranks-per-node 8 \
    --trace "$TMP/l"
grep -q "replayed 1047552 sends" "$TMP/err" && grep -q "1047552 messages, 67043328 bytes" "$TMP/err" &&
    pass || failed "linear all-to-all: $(cat "$TMP/err")"
finish
