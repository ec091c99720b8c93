#!/bin/sh
# stencil.sh - a 27-point halo exchange (MiniGhost-like, Pedretti 2013 VI) under
# three placements: every message the program sends is counted exactly, and
# placing 2x2x1 blocks of the process grid on each node moves fewer bytes
# over the network than the default x-lines (BG/Q: one node per router, so
# every byte between nodes crosses a link).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/st.store"
G="--grid 4x2x2 --cells 6x6x6 --vars 2 --steps 2"
# shellcheck disable=SC2086
"$EX/stencil27" $G --list >"$TMP/msgs.txt"
n=$(wc -l <"$TMP/msgs.txt")
# neighbours of a rank: (x choices)(y choices)(z choices) - 1, the grid not
# wrapping: 8 ranks at x = 0 or 3 have 2*2*2-1 = 7, the 8 others 3*2*2-1 = 11;
# 2 steps x (56 + 88) = 288 messages
[ "$n" -eq 288 ] && pass || failed "stencil27 --list: $n messages, want 288"

# shellcheck disable=SC2086
run_mpi "default placement" "$S" bgq-64 16 --ranks-per-node 4 -- "$EX/stencil27" $G
expect_out "halos ok" "halos ok"
check "default placement: exact counts" "$CHECK" expect "$S" "$TMP/msgs.txt"
default_load=$("$CHECK" load "$S")

# shellcheck disable=SC2086
expect_ok "block map" "$EX/stencil27" $G --map-out "$TMP/blk.map" --machine bgq-64 \
    --block 2x2x1
# shellcheck disable=SC2086
run_mpi "block placement" "$S" bgq-64 16 --ranks-per-node 4 --map "$TMP/blk.map" -- \
    "$EX/stencil27" $G
check "block placement: exact counts" "$CHECK" expect "$S" "$TMP/msgs.txt"
block_load=$("$CHECK" load "$S")
[ "$block_load" -lt "$default_load" ] && pass ||
    failed "block placement load $block_load not below default $default_load"

# shellcheck disable=SC2086
run_mpi "random placement" "$S" gemini-small 16 --ranks-per-node 2 --map random:7 -- \
    "$EX/stencil27" $G
check "random placement on Gemini: exact counts" "$CHECK" expect "$S" "$TMP/msgs.txt"

finish
