#!/bin/sh
# minighost_placement.sh [TORUSEMU] - the MiniGhost placement study of
# Pedretti et al., "Using the Cray Gemini Performance Counters" (CUG 2013,
# seed 000 section VI, Fig. 6), by replay at Cielo scale: 131,072 ranks
# (a 64x64x32 grid, 100^3 cells and 20 variables each, one halo step) on
# 8,192 nodes of Cielo, 16 ranks per node, placed three ways:
#   No-Remap  MiniGhost's rank order: a 16x1x1 line of ranks per node
#   Remap     ranks numbered in 2x2x4 bricks: one brick per node
#   Random    ranks shuffled over the same slots (random:1)
# Prints the bytes injected per Gemini on its host link (phits x 3 bytes,
# request and response VCs), mean and maximum over the Geminis used.  The
# paper: Random by far the most, Remap less than half of No-Remap.
set -eu
T=${1:-torusemu}
D=$(mktemp -d "${TMPDIR:-/tmp}/minighost.XXXXXX")
trap 'rm -rf "$D"' EXIT
run() {
    name=$1; shift
    "$T" replay --machine cielo --ranks-per-node 16 -np 131072 --quiet \
        --pattern halo --grid 64x64x32 --size 100 --vars 20 --keep "$D/s.store" --replace "$@"
    "$T" dump "$D/s.store" | awk -v name="$name" '
        /^  HH / { b = 3 * ($2 + $3); n++; all += b; if (b > max) { max = b } }
        END { printf "%-9s bytes injected per Gemini: mean %.4g, max %.4g (%d Geminis)\n", name, all / n, max, n }'
}
run No-Remap
run Remap --block 2x2x4
run Random --map random:1
