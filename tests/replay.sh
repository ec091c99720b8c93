#!/bin/sh
# replay.sh - `torusemu replay` as a user sees it: options, the summary,
# the store it keeps, and clear errors.
. "${top_srcdir:-.}/tests/lib.sh"

expect_ok "replay --help" "$TORUSEMU" replay --help
expect_out "usage" "Usage: torusemu replay"
expect_out "patterns listed" "gpcnet"

# seed 003's first all-to-all on a 512-node midplane, 16 ranks per node:
# 8192 ranks x 15 partners; 512^3 points -> 16 KiB per pair
expect_ok "fft default map" "$TORUSEMU" replay --machine midplane --ranks-per-node 16 \
    --pattern fft --grid 16x512 --size 512 --phase 1 --keep "$TMP/a.store"
cp "$TMP/err" "$TMP/summary"
if grep -q "8192 ranks on bgq:4x4x4x4x2 (midplane), 16 per node; pattern fft" "$TMP/summary" &&
    grep -q "122880 messages, 2013265920 bytes" "$TMP/summary" &&
    grep -q "counters kept in $TMP/a.store" "$TMP/summary"; then pass; else failed "summary: $(cat "$TMP/summary")"; fi
expect_ok "dump the kept store" "$TORUSEMU" dump "$TMP/a.store" --node 0
expect_out "store names the machine" "machine bgq:4x4x4x4x2  ranks 8192  messages 122880"
# Table 5(b): every row on one node (rank r on node r mod 512, T = r / 512)
expect_ok "fft one row per node" "$TORUSEMU" replay --machine midplane --ranks-per-node 16 \
    --map TABCDE --pattern fft --grid 16x512 --size 512 --phase 1
if grep -q "busiest link: none" "$TMP/err"; then pass; else failed "TABCDE: $(cat "$TMP/err")"; fi
# no --keep: the temporary store is gone
if ls "${TMPDIR:-/dev/shm}"/torusemu-replay-* >/dev/null 2>&1; then failed "temporary store left"; else pass; fi

# a small pattern with a hand count: tornado on an 8-node ring, r -> r+3,
# 8 messages of 512 B, 3 hops x 17 chunks each -> busiest link 3 x 17
expect_ok "tornado" "$TORUSEMU" replay --machine=bgq:8x1x1x1x1 --pattern=tornado --bytes=512 --steps 2
if grep -q "16 messages, 8192 bytes" "$TMP/err" && grep -q "102 32-byte chunks" "$TMP/err"; then pass; else failed "tornado: $(cat "$TMP/err")"; fi
expect_ok "quiet" "$TORUSEMU" replay --machine bgq:8x1x1x1x1 --pattern tornado --quiet
if [ -s "$TMP/err" ]; then failed "--quiet printed: $(cat "$TMP/err")"; else pass; fi
expect_ok "-np" "$TORUSEMU" replay --machine gemini-tiny -np 20 --ranks-per-node 2 --pattern gpcnet
expect_out_err() { if grep -Eq -- "$2" "$TMP/err"; then pass; else failed "$1: stderr lacks '$2'"; fi; }
expect_out_err "gpcnet summary" "20 ranks on gemini:2x2x2 \(gemini-tiny\), 2 per node; pattern gpcnet"

# errors name the problem
expect_fail "no machine" "missing --machine" "$TORUSEMU" replay --pattern fft
expect_fail "no pattern" "missing --pattern" "$TORUSEMU" replay --machine midplane
expect_fail "unknown pattern" "unknown pattern 'fft3d'" "$TORUSEMU" replay --machine midplane --pattern fft3d
expect_fail "bad grid" "--grid '16by512'" "$TORUSEMU" replay --machine midplane --pattern fft --grid 16by512
expect_fail "grid size" "must hold the 512 ranks" "$TORUSEMU" replay --machine midplane --pattern fft --grid 16x16 --size 64
expect_fail "too many ranks" "does not fit" "$TORUSEMU" replay --machine nodeboard -np 33 --pattern tornado
expect_fail "bad map" "random:" "$TORUSEMU" replay --machine nodeboard --map random:x --pattern tornado
expect_fail "unknown option" "unknown option" "$TORUSEMU" replay --machine nodeboard --pattern tornado --frob
expect_fail "bad fraction" "--fraction '1.5'" "$TORUSEMU" replay --machine nodeboard --pattern gpcnet --fraction 1.5
expect_fail "bad block" "does not tile" "$TORUSEMU" replay --machine nodeboard --pattern halo --grid 4x4x2 --block 3x1x1
finish
