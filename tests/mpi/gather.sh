#!/bin/sh
# gather.sh - the job-wide gathering library (gather/, doc/gather.md): the
# C example and its Fortran twin gather a live run's link counters through
# PAPI on Gemini, BG/Q and BG/P; the table must equal `torusemu dump` of the
# kept store row by row, and the CSV of a small case its golden copy.
# Skipped without PAPI.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"
RING="$EX/gather_ring"
FRING="$TM/gather_ring_f"
GOLD="$top_srcdir/tests/fixtures/gather"

if [ ! -x "$RING" ]; then
    echo "PAPI with the components is not built: skipped"
    exit 77
fi

# dump_rows STORE: "router-name link c1..c6" for every nonzero link row of
# the store (dump's per-Gemini blocks), sorted
dump_rows() {
    "$TORUSEMU" dump "$1" | awk '
        $1 == "gemini" { g = $2; next }
        $1 ~ /^[XYZH][-+H]$/ && NF == 7 { print g, $1, $2, $3, $4, $5, $6, $7 }' | sort
}
# csv_rows CSV: the same from the library's CSV, zero rows left out
csv_rows() {
    awk -F, 'NR > 1 && ($7 + $8 + $9 + $10 + $11 + $12) > 0 {
        print $2, $4, $7, $8, $9, $10, $11, $12 }' "$1" | sort
}
# table_total TABLE / csv_total CSV: sum of the six counters over all rows
table_total() { awk -F'\t' '$1 != "" && $1 !~ /^#/ { for (i = 4; i <= 9; i++) s += $i } END { print s + 0 }' "$1"; }
csv_total() { awk -F, 'NR > 1 { for (i = 7; i <= 12; i++) s += $i } END { print s + 0 }' "$1"; }

# same_store DESC ROWS_CMD BLOCKS: the gathered rows ($TMP/x.csv through
# ROWS_CMD, csv_rows or bg_csv_rows) equal the store's ($TMP/x.dump), and the
# table ($TMP/x.table) has BLOCKS router blocks
same_store() {
    "$2" "$TMP/x.csv" >"$TMP/x.rows"
    cmp -s "$TMP/x.rows" "$TMP/x.dump" && [ -s "$TMP/x.dump" ] && pass ||
        failed "$1: rows differ from the store: $(diff "$TMP/x.dump" "$TMP/x.rows" | head -n 4)"
    [ "$(grep -c '^	(' "$TMP/x.table")" -eq "$3" ] && pass ||
        failed "$1: $(grep -c '^	(' "$TMP/x.table") router blocks, want $3"
}

# --- 16 ranks on the 8 Geminis of a 2x2x2 torus, 2 per Gemini: one leader
# each; every Gemini of the machine is in the job, so the table holds all
# the traffic of the store
run_mpi "C ring, 16 ranks" "$TMP/c.store" gemini:2x2x2 16 -- \
    "$RING" --bytes 65536 --table "$TMP/c.table" --csv "$TMP/c.csv"
dump_rows "$TMP/c.store" >"$TMP/dump.rows"
csv_rows "$TMP/c.csv" >"$TMP/csv.rows"
if [ -s "$TMP/dump.rows" ] && cmp -s "$TMP/dump.rows" "$TMP/csv.rows"; then pass; else
    failed "gathered rows differ from the store: $(diff "$TMP/dump.rows" "$TMP/csv.rows" | head -n 6)"
fi
# the table and the CSV hold the same numbers: 8 Geminis x 7 links
rows=$(grep -c '^[XYZH][-+H]	' "$TMP/c.table")
[ "$rows" -eq 56 ] && pass || failed "table rows: $rows, want 56 (8 Geminis x 7 links)"
[ "$(table_total "$TMP/c.table")" = "$(csv_total "$TMP/c.csv")" ] && pass ||
    failed "table total $(table_total "$TMP/c.table") != CSV total $(csv_total "$TMP/c.csv")"
# the store's total over every link of every Gemini
want=$(awk '{ for (i = 3; i <= 8; i++) s += $i } END { print s + 0 }' "$TMP/dump.rows")
[ "$want" -gt 0 ] && [ "$(csv_total "$TMP/c.csv")" = "$want" ] && pass ||
    failed "CSV total $(csv_total "$TMP/c.csv") != store total $want"
# Fig. 4 layout: two comment lines, a coordinate line per Gemini
head -n 2 "$TMP/c.table" >"$TMP/head"
printf '#\tDEST_COORD\n#\tSRC_COORD\tGB/s\tVC0_PHITS\tVC1_PHITS\tVC0_PKTS\tVC1_PKTS\tINQ_STALLS\tOUTQ_STALLS\n' |
    cmp -s - "$TMP/head" && pass || failed "table header: $(cat "$TMP/head")"
grep -q '^	(0, 0, 1)$' "$TMP/c.table" && pass || failed "no Gemini line (0, 0, 1)"

# --- 8 ranks per Gemini (4 per node on the first 4 nodes of gemini:2x1x2):
# one leader out of 8 on each of the 2 Geminis in the job, the same rows as
# the store (the ring crosses between them directly, nothing passes through
# a Gemini outside the job)
run_mpi "C ring, 16 ranks, 4 per node" "$TMP/m.store" gemini:2x1x2 16 --ranks-per-node 4 -- \
    "$RING" --bytes 65536 --iters 2 --table "$TMP/x.table" --csv "$TMP/x.csv"
dump_rows "$TMP/m.store" >"$TMP/x.dump"
same_store "4 per node" csv_rows 2

# --- the Fortran caller: same ring, same counts
if [ -x "$FRING" ]; then
    run_mpi "Fortran ring, 16 ranks" "$TMP/f.store" gemini:2x2x2 16 -- \
        "$FRING" "$TMP/f.table" "$TMP/f.csv"
    cmp -s "$TMP/c.csv" "$TMP/f.csv" && pass || failed "Fortran CSV differs from C: $(diff "$TMP/c.csv" "$TMP/f.csv" | head -n 4)"
    dump_rows "$TMP/f.store" | cmp -s - "$TMP/dump.rows" && pass || failed "Fortran store differs"
fi

# --- golden CSV: 4 ranks on gemini:2x1x2 (2 Geminis per ring step), 4 KiB
run_mpi "C ring, 4 ranks" "$TMP/s.store" gemini:2x1x2 4 -- \
    "$RING" --bytes 4096 --table "$TMP/s.table" --csv "$TMP/s.csv"
cmp -s "$GOLD/ring4.csv" "$TMP/s.csv" && pass ||
    failed "small CSV differs from $GOLD/ring4.csv: $(diff "$GOLD/ring4.csv" "$TMP/s.csv" | head -n 6)"

# independently of the golden copy: each 4096-byte eager message is one PUT
# of 4096 + 48 bytes of envelope = 65 packets of up to 64 bytes, each
# answered by a 3-phit response (Pedretti 2013 section V.A); the ring's one
# crossing into each Gemini arrives over its Z- link, and the Gemini's two
# nodes inject two such messages through the host link
grep -q '^0,c0-0c0s0g0,0 0 0,Z-,0 0 1,9.38,[0-9]*,195,65,65,0,0$' "$TMP/s.csv" && pass ||
    failed "Z- of (0,0,0): $(grep Z- "$TMP/s.csv" | head -n 1)"
grep -q '^1,c0-0c0s1g0,0 0 1,HH,0 0 1,10.40,[0-9]*,390,130,130,0,0$' "$TMP/s.csv" && pass ||
    failed "HH of (0,0,1): $(grep HH "$TMP/s.csv" | tail -n 1)"

# --- Blue Gene: one leader per node; per link the two counters of the
# table, summed over the virtual channels as `dump` prints them
# bg_dump_rows STORE: "node link a b" for every link row of dump with a or b
# nonzero (BG/Q: chunks sent over VC0..6, packets received over VC0..6;
# BG/P: packets and 32-byte chunks sent)
bg_dump_rows() {
    "$TORUSEMU" dump "$1" | awk '
        $1 == "node" { n = $3; next }
        $1 ~ /^[A-EX-Z][-+]$|^IO$/ && $9 == "|" {
            a = 0; b = 0; for (i = 2; i <= 8; i++) a += $i; for (i = 10; i <= 16; i++) b += $i
            if (a + b > 0) print n, $1, a, b }
        $1 ~ /^[XYZ][-+]$/ && $9 != "|" && $2 + $3 > 0 { print n, $1, $2, $3 }' | sort
}
bg_csv_rows() { awk -F, 'NR > 1 && $7 + $8 > 0 { print $2, $4, $7, $8 }' "$1" | sort; }
for m in bgq:2x2x1x1x2 bgp:2x2x2; do
    run_mpi "C ring on $m" "$TMP/bg.store" "$m" 8 -- \
        "$RING" --bytes 4096 --iters 3 --table "$TMP/x.table" --csv "$TMP/x.csv"
    bg_dump_rows "$TMP/bg.store" >"$TMP/x.dump"
    same_store "$m" bg_csv_rows 8
done
# by hand (McCraw 2013): a 4096-byte message on BG/Q is 8 packets of 512 B,
# each a 32-byte header chunk + 16 data chunks: 3 iterations = 408 chunks
# sent by node 0 toward node 1 and 24 packets received there
run_mpi "C ring on bgq:2x1x1x1x1" "$TMP/q2.store" bgq:2x1x1x1x1 2 -- \
    "$RING" --bytes 4096 --iters 3 --csv "$TMP/q2.csv" --table ""
grep -q '^0,R00-M0-N00-J00,0 0 0 0 0,A+,1 0 0 0 0,2.00,408,0$' "$TMP/q2.csv" &&
    grep -q '^0,R00-M0-N00-J00,0 0 0 0 0,A-,1 0 0 0 0,2.00,0,24$' "$TMP/q2.csv" && pass ||
    failed "bgq 2 nodes: $(grep ',A[-+],' "$TMP/q2.csv" | head -n 2)"

finish
