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
# no --keep: the temporary store is gone (in a TMPDIR of its own: others'
# replays may be running in /dev/shm)
mkdir "$TMP/tmpdir"
expect_ok "fft temporary store" env TMPDIR="$TMP/tmpdir" "$TORUSEMU" replay --machine midplane \
    --pattern tornado
expect_eq "temporary store left" "" "$(ls -A "$TMP/tmpdir")"

# a small pattern with a hand count: tornado on an 8-node ring, r -> r+3,
# 8 messages of 512 B, 3 hops x 17 chunks each -> busiest link 3 x 17
expect_ok "tornado" "$TORUSEMU" replay --machine=bgq:8x1x1x1x1 --pattern=tornado --bytes=512 --steps 2
if grep -q "16 messages, 8192 bytes" "$TMP/err" && grep -q "102 32-byte chunks" "$TMP/err"; then pass; else failed "tornado: $(cat "$TMP/err")"; fi
expect_ok "quiet" "$TORUSEMU" replay --machine bgq:8x1x1x1x1 --pattern tornado --quiet
if [ -s "$TMP/err" ]; then failed "--quiet printed: $(cat "$TMP/err")"; else pass; fi
# --quiet prints no progress either, even asked for at every count (a
# replay of any length: TORUSEMU_PROGRESS_EVERY does not wait for the
# first second); without --quiet the same replay shows its 100 %
expect_ok "progress" env TORUSEMU_PROGRESS_EVERY=1 "$TORUSEMU" replay --machine bgq:8x1x1x1x1 \
    --pattern tornado
grep -q "^torusemu replay: 100% (8 of 8 rank operations)$" "$TMP/err" && pass ||
    failed "no progress line: $(cat "$TMP/err")"
for timing in "" --timing; do
    expect_ok "quiet $timing" env TORUSEMU_PROGRESS_EVERY=1 "$TORUSEMU" replay \
        --machine bgq:8x1x1x1x1 --pattern tornado --quiet $timing
    expect_eq "--quiet $timing: stderr" "" "$(cat "$TMP/err")"
done

# the summary counts what was replayed, and agrees with the store.  GPCNeT
# on 10 nodes: 8 congestor nodes, 2 per congestor (all-to-all 2 sends,
# incast 1, PUT 1, GET 1 per round), 2 canaries on a ring of 2.  Each
# canary test has its own congested run (GPCNeT's congested phase of that
# test); the store holds the last, the Allreduce test's: each congestor
# group makes rounds 0 to 3 (the fewest GPCNeT's loop makes: the barrier
# that ends it needs every congestor's round 1, so it is seen complete
# after round 2 at the earliest, and one more round follows), 22 rounds
# over the three tests.  Sends 4 x 3 = 12 (the allreduce test has no
# canary sends), one-sided 4 x 2 = 8; collective calls: per canary the
# release barrier of every rank and 3 allreduces (all canaries, warm-up,
# timed), the 8 congestors' release barrier, and the barrier that starts
# each round of a group with 2 busy members (all-to-all, incast; a PUT or
# GET group has 1): 2 x 4 + 8 + 4 x 2 x 2 = 32; messages 12 + 8 + 40 (the
# release barrier: 4 rounds x 10) + 6 (3 allreduces of 2 canaries) + 16
# (the groups' barriers, 2 each) = 82; bytes (12 + 8) x 4096 + 6 x 8 =
# 81968.  Recorded whole (TORUSEMU_RECORD_WHOLE=1): each test's run
# repeated until its groups make the rounds GPCNeT's loop makes in it, 16
# runs in all.
expect_ok "gpcnet timed whole" env TORUSEMU_RECORD_WHOLE=1 "$TORUSEMU" replay \
    --machine gemini:5x1x1 --pattern gpcnet --timing --bytes 4K
expect_out "gpcnet runs" "22 congestor rounds; 16 timing runs \(the store holds the last\)"
# seed 002's published row under the table (Chunduri et al., SC19, Table 2:
# Crystal, 64 nodes, 1 PPort; impacts by eq. 1 from its rounded values,
# e.g. 1.9 / 1.8 = 1.056, 3813.8 / 3705.0 = 1.029, 11.6 / 10.1 = 1.149)
expect_out "seed 002's row named" "^seed 002 \(Chunduri et al\., SC19, Table 2\), Crystal: Cray XC40 \(Aries\), 64 nodes, 1 PPort$"
expect_out "seed 002's latency" "^paper p2p_lat_us +1\.8 +1\.9 +1\.056 +6\.3 +5\.4 +0\.857$"
expect_out "seed 002's bandwidth" "^paper p2p_bw_sync +4764\.5 +4496\.6 +1\.060 +3813\.8 +3705\.0 +1\.029$"
expect_out "seed 002's allreduce" "^paper allreduce_us +9\.4 +9\.8 +1\.043 +10\.1 +11\.6 +1\.149$"
expect_out "seed 002's span" "^seed 002's isolated P2P Lat, mean, over its 7 systems: 1\.1 us \(Osprey\) to 11\.2 us \(Theta\)$"
expect_out_err() { if grep -Eq -- "$2" "$TMP/err"; then pass; else failed "$1: stderr lacks '$2'"; fi; }
expect_out_err "gpcnet replayed" "^torusemu: the last congested run \(the Allreduce test's\) replayed 12 sends, 8 one-sided operations, 32 collective calls \(82 messages\) in [0-9.]+ s$"
expect_out_err "gpcnet injected" "^torusemu: 82 messages, 81968 bytes of MPI payload injected"
sed -n '2,$p' "$TMP/out" >"$TMP/gpcnet.whole"
# As the ranks reach it (the default): isolated and one run per test, the
# same rounds, counts and figures.
expect_ok "gpcnet timed" "$TORUSEMU" replay --machine gemini:5x1x1 --pattern gpcnet --timing \
    --bytes 4K
expect_out "gpcnet runs" "22 congestor rounds; 4 timing runs \(the store holds the last\)"
expect_out_err "gpcnet replayed" "^torusemu: the last congested run \(the Allreduce test's\) replayed 12 sends, 8 one-sided operations, 32 collective calls \(82 messages\) in [0-9.]+ s$"
expect_out_err "gpcnet injected" "^torusemu: 82 messages, 81968 bytes of MPI payload injected"
expect_eq "gpcnet figures as recorded whole" "$(cat "$TMP/gpcnet.whole")" "$(sed -n '2,$p' "$TMP/out")"
# The Allreduce 99 % impact below 1 of doc/replay.md's example (gemini-tiny,
# 2 iterations, 4 KiB: 0.955, against a mean impact of 1.068) is a
# property of its 8 samples: the 99th percentile of 100 samples or fewer
# is the largest, and no congested sample reaches the isolated run's
# largest, the wait of the canary that entered first (tests/test_vtime.c,
# test_gpcnet_allreduce_p99).  With 20 iterations (80 samples) it is 1.412
# (isolated 3.2174 us, congested 4.5431 us; 1.645 when one congested run
# held all three tests), and the isolated run repeats the same four
# samples every iteration: its mean is 2.8535 us for 2 and 20 iterations
# alike.
allreduce_row() { awk -F, '$1 == "allreduce_us" { print $2, $7 }' "$TMP/out"; }
expect_ok "gpcnet 2 iterations" "$TORUSEMU" replay --machine gemini-tiny --pattern gpcnet \
    --timing --steps 2 --bytes 4K --quiet --format csv
set -- $(allreduce_row)
iso2=$1
awk -v r="$2" 'BEGIN { exit !(r < 1) }' && pass || failed "2 iterations: Allreduce 99 % impact $2, not below 1"
expect_ok "gpcnet 20 iterations" "$TORUSEMU" replay --machine gemini-tiny --pattern gpcnet \
    --timing --steps 20 --bytes 4K --quiet --format csv
set -- $(allreduce_row)
expect_eq "isolated allreduce mean, 2 and 20 iterations" "$iso2" "$1"
awk -v r="$2" 'BEGIN { exit !(r > 1.3) }' && pass || failed "20 iterations: Allreduce 99 % impact $2, not above 1.3"
# untimed: one pass of every role; the same agreement
expect_ok "tornado counts" "$TORUSEMU" replay --machine=bgq:8x1x1x1x1 --pattern=tornado --steps 2
expect_out_err "tornado replayed" "^torusemu: replayed 16 sends, 0 one-sided operations, 0 collective calls \(16 messages\)"
expect_out_err "tornado injected" "^torusemu: 16 messages, "
expect_ok "-np" "$TORUSEMU" replay --machine gemini-tiny -np 20 --ranks-per-node 2 --pattern gpcnet
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
# a value out of range states the range
expect_fail "bytes above 4 GiB" "--bytes '5G': 5368709120 bytes, above the largest size, 4294967295 bytes (4 GiB - 1)" \
    "$TORUSEMU" replay --machine nodeboard --pattern random --bytes 5G
expect_fail "bytes 0" "--bytes '0': 0 bytes, below the smallest size, 1 byte" \
    "$TORUSEMU" replay --machine nodeboard --pattern random --bytes 0
expect_fail "bytes malformed" "--bytes '1.5K': expected a size such as 4096, 64K or 1MiB (.*), from 1 to 4294967295 bytes (4 GiB - 1)" \
    "$TORUSEMU" replay --machine nodeboard --pattern random --bytes 1.5K
expect_fail "size above" "--size '1000001': expected an integer from 1 to 1000000" \
    "$TORUSEMU" replay --machine nodeboard --pattern halo --size 1000001
expect_fail "vars above" "--vars '100001': expected an integer from 1 to 100000" \
    "$TORUSEMU" replay --machine nodeboard --pattern halo --vars 100001
expect_fail "-np above" "-np '2147483648': expected a number of ranks from 1 to 2147483647" \
    "$TORUSEMU" replay --machine nodeboard -np 2147483648 --pattern tornado
expect_fail "rpn 0" "--ranks-per-node '0': expected an integer from 1 to 2147483647" \
    "$TORUSEMU" replay --machine nodeboard --ranks-per-node 0 --pattern tornado
expect_fail "interval above" "--interval '1e7s': expected a positive time with a unit (min, s, ms, us, ns, ps), from 1ps to 9e6s (104 days)" \
    "$TORUSEMU" replay --machine nodeboard --pattern tornado --timing --series "$TMP/s" --interval 1e7s
finish
