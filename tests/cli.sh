#!/bin/sh
# cli.sh - behaviour of the torusemu command line, as a user sees it.
. "${top_srcdir:-.}/tests/lib.sh"

# --help on every command
for c in machine route interconnect create inject dump reset demo replay plot series analyze \
    stalls; do
    expect_ok "$c --help" "$TORUSEMU" "$c" --help
    expect_out "$c --help" "^Usage: torusemu $c"
done
expect_ok "top-level help" "$TORUSEMU" --help
expect_out "help lists commands" "interconnect"
expect_fail "no command" "^Usage: torusemu COMMAND" "$TORUSEMU"
expect_fail "unknown command" "unknown command 'frobnicate'" "$TORUSEMU" frobnicate

# --version everywhere, equal to the configured package version
VERSION=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
for c in "" machine route dump replay; do
    # shellcheck disable=SC2086
    expect_ok "$c --version" "$TORUSEMU" $c --version
    expect_out "$c --version" "^torusemu \(papi-torus\) $VERSION$"
done
hv=$(sed -n 's/^#define TEMU_VERSION "\(.*\)"/\1/p' "$top_srcdir/include/torusemu.h")
[ "$hv" = "$VERSION" ] && pass || failed "header TEMU_VERSION '$hv' != package version '$VERSION'"
expect_fail "unknown top-level option" "unknown option '--frob'" "$TORUSEMU" --frob
expect_fail "unknown command option" "route: unknown option '--colour'" "$TORUSEMU" route midplane 0 1 --colour
expect_fail "option without its value" "route: option '--bytes' needs a value" "$TORUSEMU" route midplane 0 1 --bytes

# sizes: binary suffixes k K KiB M MiB G GiB; decimal only as kB KB MB GB.
# A BG/Q put of B bytes is max(1, ceil(B/512)) packets of up to 512 payload bytes
# (doc/model.md) on each hop, so the packet count tells which size was read.
size_packets() {
    "$TORUSEMU" route midplane 0 1,0,0,0,0 --kind=put --bytes="$1" >"$TMP/out" 2>"$TMP/err" || return 1
    sed -n '/counts along the request route/,/counts along the return/p' "$TMP/out" |
        awk '$2 == "A+" { n = 0; for (i = 3; i <= NF; i++) if ($i == "|") s = 1; else if (s) n += $i; print n; exit }'
}
for pair in 1024:2 100:1 100k:200 100K:200 100KiB:200 100kB:196 100KB:196 \
    1M:2048 1MiB:2048 1MB:1954 1G:2097152 1GiB:2097152 1GB:1953125; do
    sz=${pair%%:*} want=${pair##*:}
    got=$(size_packets "$sz")
    [ "$got" = "$want" ] && pass || failed "--bytes=$sz: $got packets, want $want"
done
expect_fail "size with a fraction" "expected a size such as 4096" "$TORUSEMU" route midplane 0 1 --bytes 1.5K
expect_fail "unknown suffix" "expected a size such as 4096" "$TORUSEMU" route midplane 0 1 --bytes 1T
expect_fail "size overflow" "--bytes '99999999999G': more than 2^64 - 1 bytes, above the largest size, 281474976710656 bytes (256 TiB)" \
    "$TORUSEMU" route midplane 0 1 --bytes 99999999999G
# the limit is stated: the largest message the model takes, 2^48 bytes
expect_fail "size above the largest message" "--bytes '281474976710657': 281474976710657 bytes, above the largest size, 281474976710656 bytes (256 TiB)" \
    "$TORUSEMU" route midplane 0 1 --bytes 281474976710657
expect_fail "malformed size states the range" "from 0 to 281474976710656 bytes (256 TiB)" \
    "$TORUSEMU" route midplane 0 1 --bytes lots
# --opt=value and --opt value give the same counts
"$TORUSEMU" route gemini:8x2x2 0 3,0,0 --bytes=64K --kind=put --payload=zero >"$TMP/eq" &&
    "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --bytes 64K --kind put --payload zero >"$TMP/sp" &&
    cmp -s "$TMP/eq" "$TMP/sp" && pass || failed "--opt=value and --opt value differ"

# machine
expect_ok "describe mira" "$TORUSEMU" machine mira
expect_out "mira shape" "A=8 B=12 C=16 D=16 E=2"
expect_out "mira order" "dimension order C D B A E"
expect_ok "presets" "$TORUSEMU" machine --presets
expect_out "presets list cielo" "^cielo +gemini:16x12x24"
expect_ok "tile table" "$TORUSEMU" machine cielo --tiles
expect_out "tile 37 is Y+ mezzanine" "37 Y\+ mezzanine 2.34"
expect_out "X+ link 9.38" "X\+ 8 tiles cable +9.38 GB/s"
expect_fail "bad spec" "needs 5 dimensions" "$TORUSEMU" machine bgq:4x4x4
expect_fail "tiles on bgq" "Gemini machines only" "$TORUSEMU" machine midplane --tiles

# route
expect_ok "route gemini" "$TORUSEMU" route gemini:8x2x2 0 3,0,0
expect_out "3 request hops" "^request route: 3 hops"
expect_out "hop tiles" "hop 1  \(0,0,0\) -> \(1,0,0\)  X\+  cable +9.38 GB/s   out tiles 2 3 10 11 24 25 32 33   -> in tiles 4 5 12 13 30 31 38 39"
expect_out "return hops" "^return route: 3 hops"
expect_ok "route with counts" "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --bytes 1M --kind put --payload random
# 16384 PUTs: 8 tiles x 2048 x 32 phits = 524288 VC0 phits arriving per link
expect_out "request counts" "c1-0c0s0g0 +X- +524288 +0 +16384 +0"
expect_out "response counts" "c0-0c0s0g0 +X\+ +0 +49152 +0 +16384"
expect_ok "route zero payload" "$TORUSEMU" route gemini:8x2x2 0 3,0,0 --bytes 1M --kind put --payload zero
expect_out "compressed counts" "c1-0c0s0g0 +X- +131072 +0 +16384 +0"
expect_ok "route bgq" "$TORUSEMU" route midplane 0 2,0,0,0,0 --bytes 16K
expect_out "bgq chunks" "A\+ +0 546 0 0 0 0 0 \| 0 33 0 0 0 0 0"
expect_fail "route bad node" "outside 0..3" "$TORUSEMU" route midplane 0 9,0,0,0,0
expect_fail "route bad kind" "use p2p" "$TORUSEMU" route midplane 0 1 --bytes 8 --kind send
expect_fail "route bad bytes" "expected a size such as 4096" "$TORUSEMU" route midplane 0 1 --bytes lots
expect_fail "route missing args" "expected SPEC SRC DST" "$TORUSEMU" route midplane 0

# interconnect
expect_ok "interconnect" "$TORUSEMU" interconnect gemini-tiny -o "$TMP/ic.txt"
n=$(wc -l <"$TMP/ic.txt")
[ "$n" -eq 320 ] && pass || failed "interconnect gemini-tiny: $n lines, want 320"
expect_ok "interconnect stdout" "$TORUSEMU" interconnect cielo
n=$(wc -l <"$TMP/out")
[ "$n" -eq 184320 ] && pass || failed "interconnect cielo: $n lines, want 184320"
expect_out "first cielo line" "^c0-0c0s0g0l00\[\(0,0,0\)\] Z\+ -> c0-0c0s1g0l"
expect_fail "interconnect bgq" "only for Gemini" "$TORUSEMU" interconnect midplane

# create / inject / dump / reset
S="$TMP/s.store"
expect_ok "create" "$TORUSEMU" create "$S" --machine midplane --ranks 64 --ranks-per-node 16
expect_out "create message" "created .*bgq:4x4x4x4x2, 64 ranks"
expect_ok "inject nodes" "$TORUSEMU" inject "$S" --src 0 --dst 2,0,0,0,0 --bytes 4096 --count 3
expect_ok "dump" "$TORUSEMU" dump "$S"
expect_out "dump header" "messages 3  bytes 12288"
# 3 x 136 chunks on VC1 (deterministic) of A+ at node 0
expect_out "dump chunks" "^  A\+ +0 408 0 0 0 0 0 \| 0 0 0 0 0 0 0"
expect_out "dump MU" "MU: PKT_INJ=21 MSG_INJ=3"
expect_ok "dump filtered" "$TORUSEMU" dump "$S" --node 1,0,0,0,0 --link A-
expect_out "filtered row" "^  A- +0 0 0 0 0 0 0 \| 0 24 0 0 0 0 0"
expect_ok "inject ranks" "$TORUSEMU" inject "$S" --ranks --src 0 --dst 15 --bytes 8
expect_fail "inject bad rank" "outside the session's 64 ranks" "$TORUSEMU" inject "$S" --ranks --src 0 --dst 64 --bytes 8
expect_ok "reset" "$TORUSEMU" reset "$S"
expect_ok "dump after reset" "$TORUSEMU" dump "$S"
expect_out "zeroed" "messages 0  bytes 0"
if grep -q "A+" "$TMP/out"; then failed "reset left counters"; else pass; fi
expect_fail "dump bad link" "not a link" "$TORUSEMU" dump "$S" --link Q+
expect_fail "dump missing store" "cannot open session store" "$TORUSEMU" dump "$TMP/none.store"
printf 'garbage' >"$TMP/bad.store"
expect_fail "dump bad store" "too short" "$TORUSEMU" dump "$TMP/bad.store"
expect_fail "create bad map" "slot already used" sh -c "printf '0 0 0 0 0 0\n0 0 0 0 0 0\n' >'$TMP/m.map' && '$TORUSEMU' create '$TMP/x.store' --machine midplane --ranks 2 --map '$TMP/m.map'"
expect_fail "create too many ranks" "do not fit" "$TORUSEMU" create "$TMP/y.store" --machine nodeboard --ranks 33

G="$TMP/g.store"
expect_ok "create gemini" "$TORUSEMU" create "$G" --machine gemini-tiny
expect_ok "inject put" "$TORUSEMU" inject "$G" --src 0 --dst 1,0,0 --bytes 1K --kind put --payload zero
expect_ok "dump gemini tiles" "$TORUSEMU" dump "$G" --tiles --node 1,0,0
# 16 compressed PUTs (8 phits) from base (0+8) mod 8 = 0: 2 per X- tile
expect_out "tile row" "X- l04 \( 4\) +16 +0 +2 +0 +0 +0"
expect_ok "dump gemini nic" "$TORUSEMU" dump "$G" --node 0
expect_out "nic" "ORB_VC0_PKTS=16 ORB_VC0_FLITS=80"

# demo (the README's main job until PAPI exists)
expect_ok "demo" "$TORUSEMU" demo
expect_out "demo covers bgp" "machine    bgp:8x8x8"

finish
