#!/bin/sh
# examples.sh - the reproduction scripts of examples/ (doc/replay.md).
. "${top_srcdir:-.}/tests/lib.sh"
EXS="$top_srcdir/examples"

# seed 003: default mapping vs Table 5(b).  By hand: a row's 16 ranks sit on
# the 16 (A, B) positions of one (C, D, E); ordered pairs are 512 hops apart
# in all (256 in A, 256 in B on rings of 4); a 16 KiB rendezvous message puts
# 2 (RTS) + 544 (data) chunks on every hop one way and 3 (remote get) back:
# 512 x 549 = 281,088 chunks per row, one row per node on average.
expect_ok "seed 003 study" sh "$EXS/seed003_mapping.sh" "$TORUSEMU"
expect_out "default mapping" "^ABCDET  PEVT_NW_USER_PP_SENT per node over 512 nodes: min 281088, mean 281088, max 281088$"
expect_out "Table 5(b)" "^TABCDE  PEVT_NW_USER_PP_SENT per node over 512 nodes: min 0, mean 0, max 0$"
# the seed's figure beside ours, and why its node-to-node variation is not
# reproduced (PAMI's many-to-many all-to-all routes dynamically; doc/model.md)
expect_out "paper's figure" "^paper \\(McCraw 2013, 4\\.4\\): approx\\. 270,000 per node, varying node to node; 0 under Table 5\\(b\\)$"
expect_out "variation explained" "^variation not reproduced: the replay sends each 16 KiB block as a point-to-point rendezvous$"
expect_out "its cause named" "BG/Q's MPI_Alltoall runs PAMI's many-to-many protocol, which routes all$"
# Table 5(b) timed: on-node messages at BG/Q's shared-memory costs, 14 g +
# 1.0 us + 16 KiB / 4 GB/s (doc/virtual-time.md, "MPI software costs")
expect_out "Table 5(b) timed" "^TABCDE  first all-to-all: 19\.096000 us$"
expect_out "speed-up beside the paper's" "^Table 5\(b\) speed-up of the first all-to-all: [0-9.]+x \(seed 003 Fig\. 3: up to approx\. 10x\)$"

# seed 000 Fig. 6: Random injects the most, Remap the least
expect_ok "MiniGhost study" sh "$EXS/minighost_placement.sh" "$TORUSEMU"
mean() { sed -n "s/^$1 *bytes injected per Gemini: mean \([0-9.e+]*\),.*/\1/p" "$TMP/out"; }
nr=$(mean No-Remap) rm=$(mean Remap) rn=$(mean Random)
if awk -v a="$nr" -v b="$rm" -v c="$rn" 'BEGIN { exit !(c > a && a > b && b > 0) }'; then
    pass
else
    failed "MiniGhost order: No-Remap $nr, Remap $rm, Random $rn"
fi

# seed 000 Fig. 7 in miniature (tests/stalls.sh asserts its figures): the
# stall table of both placements, then Remap over No-Remap beside the paper
expect_ok "MiniGhost stalls" sh "$EXS/minighost_stalls.sh" "$TORUSEMU" small
expect_out "stall table" "^INQ_STALL    host remap.store +32 +[1-9][0-9]* "
expect_out "paper's column" "^Remap/No-Remap +mean +largest +paper \\(seed 000 section VI, Fig\\. 7\\)$"
expect_out "X beside the paper" "^INQ_STALL X +0\\.[0-9][0-9] +0\\.[0-9][0-9] +largest about 0\\.5; X the largest$"
expect_eq "a ratio row per counter and dimension" 8 "$(sed -n '/^Remap\/No-Remap/,$p' "$TMP/out" | tail -n +2 | wc -l)"
expect_fail "unknown scale" "scale 'huge': expected cielo, full, eighth or small" \
    sh "$EXS/minighost_stalls.sh" "$TORUSEMU" huge
# `full` is `cielo`, the paper's whole job (131,072 ranks on 8,192 nodes of
# Cielo, far too slow here): a stand-in torusemu logs the first replay's
# arguments and fails, which stops the script there
cat >"$TMP/logtemu" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/replays"
echo "stand-in: stopped" >&2
exit 3
EOF
chmod +x "$TMP/logtemu"
for scale in full cielo ""; do
    : >"$TMP/replays"
    expect_fail "scale '$scale' reaches the replay" "stand-in: stopped" \
        sh "$EXS/minighost_stalls.sh" "$TMP/logtemu" ${scale:+"$scale"}
    expect_eq "scale '$scale': the paper's job" "replay --machine cielo -np 131072 --grid 64x64x32 \
--ranks-per-node 16 --pattern halo --size 10 --vars 2 --timing --quiet --keep" \
        "$(sed 's/ [^ ]*noremap\.store$//' "$TMP/replays")"
done
finish
