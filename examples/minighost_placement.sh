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
# request and response VCs), mean and maximum over the Geminis used, then
# Remap over No-Remap beside the paper's figure and a face count.  The
# paper: Random by far the most, Remap "more than a factor of two" below
# No-Remap.  The order is reproduced, the factor is not (doc/replay.md).
set -eu
T=${1:-torusemu}
D=$(mktemp -d "${TMPDIR:-/tmp}/minighost.XXXXXX")
trap 'rm -rf "$D"' EXIT
run() {
    name=$1; shift
    "$T" replay --machine cielo --ranks-per-node 16 -np 131072 --quiet \
        --pattern halo --grid 64x64x32 --size 100 --vars 20 --keep "$D/s.store" --replace "$@"
    "$T" dump "$D/s.store" | awk -v name="$name" -v rows="$D/rows" '
        /^  HH / { b = 3 * ($2 + $3); n++; all += b; if (b > max) { max = b } }
        END { printf "%-9s bytes injected per Gemini: mean %.4g, max %.4g (%d Geminis)\n", name, all / n, max, n
              printf "%s %.17g %.17g\n", name, all / n, max >> rows }'
}
run No-Remap
run Remap --block 2x2x4
run Random --map random:1
# Every halo message is one face of 100 x 100 cells (the same bytes and
# protocol), so the bytes follow the faces that cross from node to node.
# On the 64x64x32 grid (no wrap-around), 16x1x1 lines cross 3 x 64 x 32
# x-faces, every y-face (63 x 64 x 32) and every z-face (31 x 64 x 64):
# 262,144; 2x2x4 bricks cross 31 x 64 x 32 x-faces, as many y-faces and
# 7 x 64 x 64 z-faces: 155,648, 0.594 of it (40 / 66 = 0.606 for a node
# away from the grid's boundary).
awk '{ mean[$1] = $2; max[$1] = $3 }
    END { printf "Remap/No-Remap: mean %.3f, max %.3f; faces crossing nodes %.3f; paper (seed 000 Fig. 6): below 0.5 (\"more than a factor of two\")\n",
        mean["Remap"] / mean["No-Remap"], max["Remap"] / max["No-Remap"], 155648 / 262144 }' "$D/rows"
