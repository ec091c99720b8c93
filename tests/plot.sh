#!/bin/sh
# plot.sh - `torusemu plot` (utils/cmd_plot.c) writes well-formed, non-empty
# PNG pictures through gnuplot: the PNG signature, an IHDR chunk first with
# the size the script asks for; and refuses bad input with the reason.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v "${TORUSEMU_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    echo "gnuplot not found (Debian: gnuplot-nox; build-aux/setup.sh installs it): skipped"
    exit 77
fi

# png_ok DESC FILE WIDTH HEIGHT: signature 89 50 4E 47 0D 0A 1A 0A, then the
# IHDR chunk (length 13) holding the width and height (big-endian)
png_ok() {
    got=$(od -An -tx1 -N24 "$2" 2>/dev/null | tr -d ' \n')
    want=89504e470d0a1a0a0000000d49484452$(printf '%08x%08x' "$3" "$4")
    if [ "$got" = "$want" ] && [ "$(wc -c <"$2")" -gt 1000 ]; then pass; else
        failed "$1: not a ${3}x$4 PNG: $got"
    fi
}

"$TORUSEMU" create "$TMP/g.store" --machine gemini:4x4x2 >/dev/null
"$TORUSEMU" inject "$TMP/g.store" --src 0 --dst 2,3,1 --bytes 64k
expect_ok "plane" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/plane.png"
png_ok "plane" "$TMP/plane.png" 900 760
expect_ok "plane X,Z at 0,2,0" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/xz.png" --dims X,Z --at 0,2,0
png_ok "plane X,Z" "$TMP/xz.png" 900 760
expect_ok "tiles" "$TORUSEMU" plot "$TMP/g.store" --tiles 0,0,0 -o "$TMP/tiles.png"
png_ok "tiles" "$TMP/tiles.png" 900 640
"$TORUSEMU" create "$TMP/q.store" --machine bgq:2x2x1x1x2 >/dev/null
"$TORUSEMU" inject "$TMP/q.store" --src 0 --dst 1,1,0,0,1 --bytes 4096
expect_ok "bgq plane A,E" "$TORUSEMU" plot "$TMP/q.store" --dims a,e -o "$TMP/q.png"
png_ok "bgq plane" "$TMP/q.png" 900 760
# no temporary files are left behind
mkdir "$TMP/t"
TMPDIR="$TMP/t" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/again.png" >/dev/null 2>&1
[ -z "$(ls -A "$TMP/t")" ] && pass || failed "plot left $(ls "$TMP/t") in TMPDIR"

expect_fail "no output" "missing -o FILE.png" "$TORUSEMU" plot "$TMP/g.store"
expect_fail "no store" "missing STORE" "$TORUSEMU" plot -o "$TMP/x.png"
expect_fail "bad dims" "--dims 'X,X' is not two different dimensions" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --dims X,X
expect_fail "bgq dims" "--dims 'X,Y' is not two different dimensions of bgq" \
    "$TORUSEMU" plot "$TMP/q.store" -o "$TMP/x.png" --dims X,Y
expect_fail "tiles on bgq" "--tiles applies to Gemini machines only" \
    "$TORUSEMU" plot "$TMP/q.store" -o "$TMP/x.png" --tiles 0
expect_fail "router out of range" "no router 32 on gemini:4x4x2 (0..31 or coordinates)" \
    "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png" --tiles 32
expect_fail "not a store" "session store" "$TORUSEMU" plot "$TMP/plane.png" -o "$TMP/x.png"
expect_fail "gnuplot missing" "cannot run $TMP/none" \
    env TORUSEMU_GNUPLOT="$TMP/none" "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png"
expect_fail "gnuplot fails" "false failed (status 1)" \
    env TORUSEMU_GNUPLOT=false "$TORUSEMU" plot "$TMP/g.store" -o "$TMP/x.png"
finish
