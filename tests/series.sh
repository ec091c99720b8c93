#!/bin/sh
# series.sh - `torusemu series` (utils/cmd_series.c) prints time-series
# files (doc/series.md) exactly: the changed counters per snapshot with
# value and change, --all, --summary, CSV and JSON; files written by the
# test program tests/series_write with chosen values.
. "${top_srcdir:-.}/tests/lib.sh"
WRITE="$top_builddir/tests/series_write"

# gemini:2x2x2: counter 3 is router 0 tile 0 VC1_PKTS; the last counter,
# 2559, is node 15's NIC slot 15
"$WRITE" "$TMP/a.tser" gemini:2x2x2 1000 <<'EOT'
at 0
at 1000
set 3 300
set 2559 7
at 2000
set 3 250
EOT
expect_ok "table" "$TORUSEMU" series "$TMP/a.tser"
cat >"$TMP/want" <<'EOT'
series TMP/a.tser: machine gemini:2x2x2, 2560 counters, every 1000 ps of virtual time
       index                value                change  name
snapshot 0 at 0 ps: 0 counters changed
snapshot 1 at 1000 ps: 2 counters changed
           3                  300                  +300  c0-0c0s0g0 tile 0 (l00, Z+) VC1_PKTS
        2559                    7                    +7  c1-0c0s1n3 NIC reserved15
snapshot 2 at 2000 ps: 1 counters changed
           3                  250                   -50  c0-0c0s0g0 tile 0 (l00, Z+) VC1_PKTS
3 snapshots
EOT
sed "s|$TMP|TMP|" "$TMP/out" >"$TMP/got"
if diff -u "$TMP/want" "$TMP/got" >"$TMP/diff"; then pass; else failed "table: $(cat "$TMP/diff")"; fi

expect_ok "csv" "$TORUSEMU" series --format=csv "$TMP/a.tser"
printf '%s\n' 'snapshot,time_ps,index,name,value,change' \
    '1,1000,3,"c0-0c0s0g0 tile 0 (l00, Z+) VC1_PKTS",300,300' \
    '1,1000,2559,c1-0c0s1n3 NIC reserved15,7,7' \
    '2,2000,3,"c0-0c0s0g0 tile 0 (l00, Z+) VC1_PKTS",250,-50' >"$TMP/want"
if diff -u "$TMP/want" "$TMP/out" >"$TMP/diff"; then pass; else failed "csv: $(cat "$TMP/diff")"; fi

expect_ok "all, json" "$TORUSEMU" series --all --format=json "$TMP/a.tser"
expect_out "json snapshot 2 keeps the unchanged counter" \
    '"snapshot": 2, "time_ps": 2000, "index": 2559, "name": "c1-0c0s1n3 NIC reserved15", "value": 7, "change": 0'
[ "$(grep -c '"snapshot"' "$TMP/out")" -eq 4 ] && pass || failed "all: 4 records expected"

expect_ok "summary csv" "$TORUSEMU" series --summary --format=csv "$TMP/a.tser"
printf '%s\n' 'machine,counters,interval_ps,clock,snapshots,complete' \
    'gemini:2x2x2,2560,1000,virtual,3,1' >"$TMP/want"
if diff -u "$TMP/want" "$TMP/out" >"$TMP/diff"; then pass; else failed "summary: $(cat "$TMP/diff")"; fi

# a writer that did not finish: read as far as it goes, and said so
"$WRITE" "$TMP/cut.tser" gemini:2x2x2 1000 incomplete <<'EOT'
at 5
set 0 1
EOT
expect_ok "incomplete" "$TORUSEMU" series "$TMP/cut.tser"
expect_out "incomplete" '^1 snapshots \(no end record: the writer did not finish\)$'
expect_ok "incomplete csv" "$TORUSEMU" series --format=csv "$TMP/cut.tser"
grep -qx "torusemu: series $TMP/cut.tser is incomplete (no end record: its writer did not finish): read 1 snapshots, up to the last whole one" \
    "$TMP/err" && pass || failed "incomplete csv: no warning: $(cat "$TMP/err")"

# a file cut anywhere after its header (a run killed while writing) is
# read up to its last whole snapshot.  a.tser (doc/series.md): header 52
# bytes, snapshot 0 [52, 56), snapshot 1 [56, 67), snapshot 2 [67, 74),
# the end record [74, 77)
expect_eq "a.tser size" 77 "$(wc -c <"$TMP/a.tser" | tr -d ' ')"
cut=52
while [ $cut -lt 77 ]; do
    want=0
    [ $cut -ge 56 ] && want=1
    [ $cut -ge 67 ] && want=2
    [ $cut -ge 74 ] && want=3
    head -c $cut "$TMP/a.tser" >"$TMP/trunc.tser"
    expect_ok "cut at $cut" "$TORUSEMU" series --summary --format=csv "$TMP/trunc.tser"
    expect_eq "cut at $cut" "gemini:2x2x2,2560,1000,virtual,$want,0" "$(tail -n 1 "$TMP/out")"
    grep -q "trunc.tser is incomplete .*: read $want snapshots" "$TMP/err" && pass ||
        failed "cut at $cut: warning: $(cat "$TMP/err")"
    cut=$((cut + 1))
done
# the output of a cut file stays whole: JSON closed, the table counted
head -c 70 "$TMP/a.tser" >"$TMP/trunc.tser"
expect_ok "cut json" "$TORUSEMU" series --format=json "$TMP/trunc.tser"
expect_eq "cut json" "[|2|]" "$(head -n 1 "$TMP/out")|$(grep -c '"snapshot": 1' "$TMP/out")|$(tail -n 1 "$TMP/out")"
expect_ok "cut table" "$TORUSEMU" series "$TMP/trunc.tser"
expect_out "cut table" '^2 snapshots \(no end record: the writer did not finish\)$'

# a writer killed outright (SIGKILL, nothing flushed at exit) after 6
# snapshots of 400 changed counters each (more than one 4 KiB stdio block)
# leaves all 6 in the file
{
    for k in 1 2 3 4 5 6; do
        echo "at $k"
        i=0
        while [ $i -lt 400 ]; do
            echo "set $i $((k * 100000 + i))"
            i=$((i + 1))
        done
    done
} >"$TMP/big.script"
"$WRITE" "$TMP/killed.tser" gemini:2x2x2 1 kill <"$TMP/big.script" 2>"$TMP/err"
expect_eq "writer killed" 137 $?
[ "$(wc -c <"$TMP/killed.tser")" -gt 8192 ] && pass || failed "killed: file under 8 KiB"
expect_ok "killed" "$TORUSEMU" series --summary --format=csv "$TMP/killed.tser"
expect_eq "killed: every snapshot kept" "gemini:2x2x2,2560,1,virtual,6,0" "$(tail -n 1 "$TMP/out")"
expect_ok "killed, last values" "$TORUSEMU" series --format=csv "$TMP/killed.tser"
expect_out "killed, last values" '^5,6,399,.*,600399,100000$'

# damaged and foreign files
printf 'hello' >"$TMP/x.tser"
expect_fail "foreign" "is not a torusemu series file" "$TORUSEMU" series "$TMP/x.tser"
expect_fail "missing" "cannot open series '$TMP/none'" "$TORUSEMU" series "$TMP/none"
expect_fail "no file" "missing FILE" "$TORUSEMU" series
expect_fail "bad format" "--format: 'xml'" "$TORUSEMU" series --format=xml "$TMP/a.tser"
finish
