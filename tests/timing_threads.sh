#!/bin/sh
# timing_threads.sh - the packet model's parallel engine (--threads N,
# temu_tm_config.threads; doc/model.md, "Parallel engine") gives the same
# results, byte for byte, for every N: the model's own fingerprints
# (every delivery, hop, total and lane counter: bench/timing_fingerprint
# -t N) and whole replays (`torusemu replay --timing --threads N`: the
# per-rank table, the store's counters, the series of snapshots) on
# Gemini, BG/P and BG/Q, deterministic and adaptive routing, packets and
# messages, packet trains (--train: their credit streams and splits go by
# what the upstream region owns), N = 1, 2, 3 and 8.  Threads at the flow
# level are refused with a clear message.
. "${top_srcdir:-.}/tests/lib.sh"

FP="$top_builddir/bench/timing_fingerprint"

# -- the model: fingerprints of random traffic (SPEC LOAD US PACKETS TRAIN
# WHOLE ROUTING MODE; timing_fingerprint.c); one line per case: single
# packets, then trains (TRAIN > 1, deterministic routes on Blue Gene),
# split ones (WHOLE 0) and whole ones, packets and messages
TRAINS='gemini:4x4x4 0.7 2 32 64 0 x t
    gemini:8x8x8 0.5 1 16 16 0 x m
    bgp:8x8x8 0.9 1 8 8 0 d t
    bgp:4x4x4 0.8 2 32 4 0 d m
    bgq:4x4x4x4x2 0.6 1 16 16 0 d t
    bgq:4x4x4x4x2 0.9 1 32 32 1 d t'
# shellcheck disable=SC2086 # TRAINS: the cases' words, split on purpose
set -- \
    bgp:8x8x8 0.9 2 1 1 0 d t \
    bgp:4x4x4 0.8 5 4 1 0 a t \
    bgq:4x4x4x4x2 0.6 1 1 1 0 a t \
    bgq:4x4x4x4x2 0.6 1 1 1 0 d t \
    gemini:8x8x8 0.5 1 1 1 0 x t \
    gemini:4x4x4 0.7 2 8 1 0 x m \
    bgq:4x4x4x4x2 0.5 1 6 1 0 x m \
    $TRAINS
expect_ok "fingerprints, threads 1" "$FP" -t 1 "$@"
cp "$TMP/out" "$TMP/fp1"
expect_eq "13 fingerprints" 13 "$(grep -c ' fp [0-9a-f]\{16\}$' "$TMP/fp1")"
for n in 2 3 8; do
    expect_ok "fingerprints, threads $n" "$FP" -t "$n" "$@"
    if cmp -s "$TMP/fp1" "$TMP/out"; then
        pass
    else
        failed "fingerprints with $n threads differ from 1 thread: $(diff "$TMP/fp1" "$TMP/out")"
    fi
done
# each instant's sends made in reverse order: the same lines
expect_ok "fingerprints reversed, threads 2" "$FP" -r -t 2 bgq:4x4x4x4x2 0.6 1 1 1 0 a t \
    gemini:8x8x8 0.5 1 1 1 0 x t
expect_eq "reversed, bgq" "$(sed -n 3p "$TMP/fp1")" "$(sed -n 1p "$TMP/out")"
expect_eq "reversed, gemini" "$(sed -n 5p "$TMP/fp1")" "$(sed -n 2p "$TMP/out")"
# trains on the engine go by two rules of their own (doc/model.md,
# "Parallel engine"), so their lines may differ from the serial engine's,
# but not, on these cases, in the end time, hops, deliveries and credit
# stall (events differ by design; the split's rule moves 28 of Gemini
# 8x8x8's 363,777 trains and its inq stall by 0.002 %)
# shellcheck disable=SC2086
expect_ok "train fingerprints, serial engine" "$FP" -t 0 $TRAINS
fields() {
    sed 's/.*\(now [0-9]* hops [0-9]*\) trains .*\(deliveries [0-9]* stall [0-9]*\) inq .*/\1 \2/'
}
expect_eq "train lines" 6 "$(tail -n 6 "$TMP/fp1" | fields | grep -c '^now [0-9]* hops [0-9]* deliveries [0-9]* stall [0-9]*$')"
expect_eq "trains: engine against serial, end, hops, deliveries, credit stall" \
    "$(tail -n 6 "$TMP/fp1" | fields)" "$(fields <"$TMP/out")"
expect_fail "threads 65" "at most 64" "$FP" -t 65 gemini:4x4x4 0.7 1 1 1 0 x t

# -- whole replays: the per-rank table (stdout), the store, the series
replay() {
    out=$1
    shift
    "$TORUSEMU" replay --timing --keep "$TMP/$out.store" --quiet "$@" >"$TMP/$out.txt" &&
        "$TORUSEMU" dump "$TMP/$out.store" --format csv >"$TMP/$out.csv"
}
same_replays() {
    what=$1
    serial=$2 # compare with the serial engine too (0: Gemini's trains, which differ)
    shift 2
    for n in 1 2 3 8; do
        rm -rf "$TMP/r$n.store"
        expect_ok "$what, threads $n" replay "r$n" --threads "$n" "$@"
    done
    grep -q '^predicted runtime' "$TMP/r1.txt" && pass || failed "$what: no runtime"
    # the serial engine tells every hop in order; the regions count them
    # themselves (temu_tm_set_hop_now): the same counters
    if [ "$serial" = 1 ]; then
        rm -rf "$TMP/r0.store"
        expect_ok "$what, serial engine" replay r0 "$@"
        if cmp -s "$TMP/r0.txt" "$TMP/r1.txt" && cmp -s "$TMP/r0.csv" "$TMP/r1.csv"; then
            pass
        else
            failed "$what: threads 1 differ from the serial engine: $(diff "$TMP/r0.csv" "$TMP/r1.csv" | head -5)"
        fi
    fi
    for n in 2 3 8; do
        if cmp -s "$TMP/r1.txt" "$TMP/r$n.txt" && cmp -s "$TMP/r1.csv" "$TMP/r$n.csv"; then
            pass
        else
            failed "$what: threads $n differ from 1: $(diff "$TMP/r1.txt" "$TMP/r$n.txt" | head -5)
$(diff "$TMP/r1.csv" "$TMP/r$n.csv" | head -5)"
        fi
    done
}
same_replays "gemini random" 1 --machine gemini:4x4x4 --pattern random --bytes 16K --steps 2
same_replays "bgp random, adaptive" 1 --machine bgp:4x4x4 --pattern random --bytes 8K
same_replays "bgq fft, adaptive" 1 --machine bgq:2x2x4x4x2 --pattern fft --grid 8x16 --size 64
same_replays "bgq random, deterministic" 1 --machine bgq:2x2x4x4x2 --pattern random --bytes 8K \
    --routing deterministic
same_replays "gemini random, trains" 0 --machine gemini:4x4x4 --pattern random --bytes 16K \
    --steps 2 --train 8
same_replays "bgp random, trains" 1 --machine bgp:4x4x4 --pattern random --bytes 8K \
    --routing deterministic --train 16
same_replays "bgq fft, whole trains" 1 --machine bgq:2x2x4x4x2 --pattern fft --grid 8x16 \
    --size 64 --routing deterministic --train 32 --whole-trains
# without snapshots every hop is counted on its region's thread: none is
# left for thread 0 to tell (the engine's line on stderr)
"$TORUSEMU" replay --timing --threads 2 --quiet --machine bgq:2x2x4x4x2 --pattern random \
    --bytes 8K >/dev/null 2>"$TMP/engine.err"
grep -q 'hops counted in the regions [1-9]' "$TMP/engine.err" && pass ||
    failed "no hop counted in the regions: $(cat "$TMP/engine.err")"
# a series of snapshots (--interval) on every thread count: the same file,
# of single packets and of trains
same_series() {
    what=$1
    shift
    for n in 1 2 3 8; do
        rm -rf "$TMP/s$n.store"
        expect_ok "$what, threads $n" replay "s$n" --threads "$n" --machine bgq:2x2x4x4x2 \
            --pattern random --bytes 8K --series "$TMP/s$n.tser" --interval 2us "$@"
        "$TORUSEMU" series "$TMP/s$n.tser" --all --format csv >"$TMP/s$n.series.csv"
    done
    [ "$(wc -l <"$TMP/s1.series.csv")" -gt 10 ] && pass ||
        failed "$what: $(wc -l <"$TMP/s1.series.csv") lines"
    for n in 2 3 8; do
        if cmp -s "$TMP/s1.series.csv" "$TMP/s$n.series.csv" && cmp -s "$TMP/s1.txt" "$TMP/s$n.txt"; then
            pass
        else
            failed "$what: threads $n differ from 1: $(diff "$TMP/s1.series.csv" "$TMP/s$n.series.csv" | head -5)"
        fi
    done
}
same_series "series"
same_series "series, trains" --routing deterministic --train 8
# refused combinations name the problem
expect_fail "flow level, threads 2" "threads run the packet level only" \
    "$TORUSEMU" replay --machine gemini:4x4x4 --pattern random --timing --model flow \
    --threads 2 --quiet
finish
