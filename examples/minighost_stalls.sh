#!/bin/sh
# minighost_stalls.sh [TORUSEMU [cielo|full|eighth|small]] - seed 000 Fig. 7 (Pedretti
# et al., "Using the Cray Gemini Performance Counters", CUG 2013, section
# VI): the Gemini stall counters of one MiniGhost halo step by dimension,
# under MiniGhost's rank order (No-Remap: a 16x1x1 line of ranks per node)
# and 2x2x4 bricks (Remap), timed (`replay --timing`), summed by
# `torusemu stalls`, with the paper's findings beside the model's.
#   cielo (default)  the paper's job: 131,072 ranks, 16 per node, on 8,192
#                    nodes of Cielo (16x12x24 Geminis), a 64x64x32 grid
#   full             the same as cielo (the full job, beside eighth)
#   eighth           Cielo halved in every dimension: 16,384 ranks, 16 per
#                    node, on 1,024 of the 1,152 nodes of gemini:8x6x12 (the
#                    same 8/9 of the machine), a 32x32x16 grid
#   small            doc/cli.md's miniature: 1,024 ranks on gemini:4x4x2
# Messages are small (10^3 cells, 2 variables: 2,304 bytes a face) so the
# packet model can time them; the paper's problem size is not given.
set -eu
T=${1:-torusemu}
case $T in # the stall table runs in the stores' directory
*/*) T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T") ;;
esac
case ${2:-cielo} in
cielo | full) set -- --machine cielo -np 131072 --grid 64x64x32 ;;
eighth) set -- --machine gemini:8x6x12 -np 16384 --grid 32x32x16 ;;
small) set -- --machine gemini:4x4x2 -np 1024 --grid 16x8x8 ;;
*)
    echo "minighost_stalls.sh: scale '$2': expected cielo, full, eighth or small" >&2
    exit 2
    ;;
esac
D=$(mktemp -d "${TMPDIR:-/tmp}/minighost.XXXXXX")
trap 'rm -rf "$D"' EXIT
"$T" replay "$@" --ranks-per-node 16 --pattern halo --size 10 --vars 2 --timing --quiet \
    --keep "$D/noremap.store" >/dev/null
"$T" replay "$@" --ranks-per-node 16 --pattern halo --size 10 --vars 2 --timing --quiet \
    --block 2x2x4 --keep "$D/remap.store" >/dev/null
(cd "$D" && "$T" stalls noremap.store remap.store --format=csv) >"$D/stalls.csv"
(cd "$D" && "$T" stalls noremap.store remap.store)
# Remap over No-Remap, per counter and dimension: the mean and the largest
# Gemini, beside what the paper says of them
awk -F, '
    NR > 1 { k = $1 " " $2; if ($3 == "noremap.store") { m0[k] = $6; x0[k] = $7; keys[n++] = k }
             else { m1[k] = $6; x1[k] = $7 } }
    function ratio(a, b) { return a > 0 ? sprintf("%.2f", b / a) : "-" }
    END {
        paper["INQ_STALL X"] = "largest about 0.5; X the largest"
        paper["INQ_STALL Y"] = paper["INQ_STALL Z"] = "largest about 0.5"
        paper["INQ_STALL host"] = "host links: high input stall"
        paper["CREDIT_STALL X"] = "largest about 0.5; mean up slightly"
        paper["CREDIT_STALL Y"] = paper["CREDIT_STALL Z"] = "largest about 0.5"
        paper["CREDIT_STALL host"] = "host links: low output stall"
        printf "\n%-17s %-10s %-10s %s\n", "Remap/No-Remap", "mean", "largest",
            "paper (seed 000 section VI, Fig. 7)"
        for (i = 0; i < n; i++) {
            k = keys[i]
            printf "%-17s %-10s %-10s %s\n", k, ratio(m0[k], m1[k]), ratio(x0[k], x1[k]), paper[k]
        }
    }' "$D/stalls.csv"
