#!/bin/sh
# formats.sh - --format=table|csv|json of machine, route, interconnect and
# dump (doc/cli.md "Output formats"): golden CSV for small cases, JSON that
# parses and holds the same records, CSV that holds the same numbers as the
# table, and counts checked by hand.
. "${top_srcdir:-.}/tests/lib.sh"
GOLD="$top_srcdir/tests/fixtures/formats"

# golden DESC FILE CMD...: the command's stdout must equal the golden FILE
golden() {
    desc=$1 file=$2
    shift 2
    if "$@" >"$TMP/g.out" 2>"$TMP/g.err" && cmp -s "$GOLD/$file" "$TMP/g.out"; then pass; else
        failed "$desc: differs from $file: $(cat "$TMP/g.err") $(diff "$GOLD/$file" "$TMP/g.out" | head -n 6)"
    fi
}
# json_same DESC CSVFILE CMD...: the command prints JSON that parses, whose
# records (the array itself or its "records" member) equal the CSV rows
json_same() {
    desc=$1 csv=$2
    shift 2
    if ! "$@" >"$TMP/j.out" 2>"$TMP/j.err"; then
        failed "$desc: $(cat "$TMP/j.err")"
    elif ! python3 -m json.tool "$TMP/j.out" >/dev/null 2>"$TMP/j.err"; then
        failed "$desc: not JSON: $(head -n 3 "$TMP/j.err")"
    elif python3 - "$TMP/j.out" "$csv" <<'PY'; then pass; else failed "$desc: JSON records differ from the CSV"; fi
import csv, json, sys
doc = json.load(open(sys.argv[1]))
recs = doc["records"] if isinstance(doc, dict) else doc
rows = list(csv.DictReader(open(sys.argv[2])))
def text(v):
    return "" if v is None else (v if isinstance(v, str) else
                                  ("%.2f" % v if isinstance(v, float) else str(v)))
ok = len(recs) == len(rows) and all(
    list(r.keys()) == list(c.keys()) and all(text(r[k]) == c[k] for k in c)
    for r, c in zip(recs, rows))
sys.exit(0 if ok else 1)
PY
}

# ---------------------------------------------------------------- machine
golden "machine csv" machine.csv "$TORUSEMU" machine gemini:2x1x2 --format=csv
json_same "machine json" "$GOLD/machine.csv" "$TORUSEMU" machine gemini:2x1x2 --format=json
golden "machine --tiles csv" tiles.csv "$TORUSEMU" machine gemini-tiny --tiles --format=csv
json_same "machine --tiles json" "$GOLD/tiles.csv" "$TORUSEMU" machine gemini-tiny --tiles --format json
# by hand (Pedretti 2013 Fig. 3): 48 tiles, X and Z links 8 tiles each, Y 4, HH 8
expect_ok "tile counts" awk -F, 'NR > 1 { n[$4]++ } END {
    printf "%d %d %d %d %d %d %d\n", n["X+"], n["X-"], n["Y+"], n["Y-"], n["Z+"], n["Z-"], n["HH"] }' \
    "$GOLD/tiles.csv"
expect_out "tiles per link" "^8 8 4 4 8 8 8$"
# the preset list: every preset of the table, the spec with its comma quoted
"$TORUSEMU" machine --presets >"$TMP/presets.txt"
expect_ok "presets csv" "$TORUSEMU" machine --presets --format=csv
n=$(($(wc -l <"$TMP/out") - 1))
[ "$n" -eq "$(wc -l <"$TMP/presets.txt")" ] && pass || failed "presets csv: $n rows"
expect_out "cielo row" '^cielo,"gemini:16x12x24,cores=16","Cray XE6 Cielo \(LANL/SNL\), 9,216 nodes"$'
expect_ok "presets json" sh -c "'$TORUSEMU' machine --presets --format=json | python3 -m json.tool"

# ------------------------------------------------------------------ route
golden "route csv" route.csv "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --format=csv
json_same "route json" "$GOLD/route.csv" "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --format=json
golden "route bgq csv" route-bgq.csv "$TORUSEMU" route bgq:4x1x1x1x2 0 2,0,0,0,1 --format=csv
json_same "route bgq json" "$GOLD/route-bgq.csv" "$TORUSEMU" route bgq:4x1x1x1x2 0 2,0,0,0,1 --format=json
# the table lists the same hops
"$TORUSEMU" route gemini:8x2x2 0 3,0,0 >"$TMP/route.txt"
[ "$(grep -c '^  hop ' "$TMP/route.txt")" -eq "$(($(wc -l <"$GOLD/route.csv") - 1))" ] && pass ||
    failed "route: table and CSV hop counts differ"
expect_fail "route --bytes with csv" "lists the hops only" \
    "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --bytes 4k --format=csv

# ----------------------------------------------------------- interconnect
golden "interconnect csv" interconnect.csv "$TORUSEMU" interconnect gemini:2x1x2 --format=csv
json_same "interconnect json" "$GOLD/interconnect.csv" "$TORUSEMU" interconnect gemini:2x1x2 --format=json
expect_ok "interconnect rtr" "$TORUSEMU" interconnect gemini:2x1x2 --format=rtr -o "$TMP/ic.txt"
# 40 network tiles x 4 Geminis, one record per line of the rtr file
[ "$(wc -l <"$TMP/ic.txt")" -eq 160 ] && [ "$(wc -l <"$GOLD/interconnect.csv")" -eq 161 ] && pass ||
    failed "interconnect: $(wc -l <"$TMP/ic.txt") rtr lines"
expect_ok "interconnect csv -o" "$TORUSEMU" interconnect gemini:2x1x2 --format=csv -o "$TMP/ic.csv"
cmp -s "$TMP/ic.csv" "$GOLD/interconnect.csv" && pass || failed "interconnect csv -o differs"

# ------------------------------------------------------------------- dump
"$TORUSEMU" create "$TMP/g.store" --machine gemini:2x1x2 >/dev/null
"$TORUSEMU" inject "$TMP/g.store" --src 0 --dst 2 --bytes 4096
golden "dump gemini csv" dump-gemini.csv "$TORUSEMU" dump "$TMP/g.store" --format=csv
json_same "dump gemini json" "$GOLD/dump-gemini.csv" "$TORUSEMU" dump "$TMP/g.store" --format=json
# the CSV holds the table's numbers: per Gemini and link, the six counters
"$TORUSEMU" dump "$TMP/g.store" | awk '$1 == "gemini" { g = $2; next }
    $1 ~ /^[XYZH][-+H]$/ && NF == 7 { print g, $1, $2, $3, $4, $5, $6, $7 }' | sort >"$TMP/t.rows"
awk -F, '$4 != "NIC" && NR > 1 { k = $2 " " $4; v[k] = v[k] " " $7; if (!(k in o)) o[k] = ++n }
    END { for (k in o) print k v[k] }' "$GOLD/dump-gemini.csv" | sort >"$TMP/c.rows"
[ -s "$TMP/t.rows" ] && cmp -s "$TMP/t.rows" "$TMP/c.rows" && pass ||
    failed "dump: CSV and table differ: $(diff "$TMP/t.rows" "$TMP/c.rows" | head -n 4)"
# the JSON object carries the session line
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if (d["machine"], d["messages"], d["bytes"]) == ("gemini:2x1x2", 1, 4096) else 1)' "$TMP/j.out" &&
    pass || failed "dump json: session members"
expect_ok "dump --tiles csv" "$TORUSEMU" dump "$TMP/g.store" --tiles --link Z- --format=csv
# one 4096-byte PUT (4096 + 48 bytes): 65 request packets over Z- into Gemini 1
expect_out "Z- VC0 packets" "^1,c0-0c0s1g0,0 0 1,Z-,[0-9]+,VC0_PKTS,[0-9]+$"
total=$(awk -F, '$6 == "VC0_PKTS" { s += $7 } END { print s + 0 }' "$TMP/out")
[ "$total" -eq 65 ] && pass || failed "dump --tiles: $total VC0 packets over Z-, want 65"
expect_ok "dump --all csv" "$TORUSEMU" dump "$TMP/g.store" --all --format=csv
# --all: 4 Geminis x (7 links x 6 + 2 NICs x 14) records + the header
[ "$(wc -l <"$TMP/out")" -eq $((4 * (7 * 6 + 2 * 14) + 1)) ] && pass ||
    failed "dump --all: $(wc -l <"$TMP/out") lines"

"$TORUSEMU" create "$TMP/q.store" --machine bgq:2x1x1x1x1 >/dev/null
"$TORUSEMU" inject "$TMP/q.store" --src 0 --dst 1 --bytes 4096
golden "dump bgq csv" dump-bgq.csv "$TORUSEMU" dump "$TMP/q.store" --format=csv
json_same "dump bgq json" "$GOLD/dump-bgq.csv" "$TORUSEMU" dump "$TMP/q.store" --format=json
# by hand (McCraw 2013): 4096 bytes = 8 packets of 512 B payload, each a
# 32-byte header chunk + 16 data chunks: 136 chunks sent on A+, 8 packets in
grep -q '^0,R00-M0-N00-J00,0 0 0 0 0,A+,,SENT_CHUNKS_VC1,136$' "$GOLD/dump-bgq.csv" &&
    grep -q '^1,R00-M0-N00-J01,1 0 0 0 0,A-,,RECV_PACKETS_VC1,8$' "$GOLD/dump-bgq.csv" && pass ||
    failed "dump bgq: chunks/packets"
"$TORUSEMU" create "$TMP/p.store" --machine bgp:2x1x1 >/dev/null
"$TORUSEMU" inject "$TMP/p.store" --src 0 --dst 1 --bytes 1000
golden "dump bgp csv" dump-bgp.csv "$TORUSEMU" dump "$TMP/p.store" --format=csv
json_same "dump bgp json" "$GOLD/dump-bgp.csv" "$TORUSEMU" dump "$TMP/p.store" --format=json

# ----------------------------------------------------------------- errors
expect_fail "unknown format" "'xml' is not one of table, csv, json" \
    "$TORUSEMU" dump "$TMP/g.store" --format=xml
expect_fail "machine unknown format" "'yaml' is not one of" "$TORUSEMU" machine gemini-tiny --format yaml
expect_fail "route unknown format" "'CSV' is not one of" "$TORUSEMU" route gemini-tiny 0 1 --format=CSV

finish
