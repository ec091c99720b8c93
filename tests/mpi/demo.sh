#!/bin/sh
# demo.sh - the README's main job (`make demo`, examples/demo.sh) prints the
# per-node counts its application read through PAPI, with the exact totals
# below.
#
# 32 ranks, 8 rows of 4, 16 KiB per pair, 4 ranks per node; row i's members
# (ranks i, i+8, i+16, i+24) sit on nodes k, k+2, k+4, k+6 with k = i / 4,
# which are 16 hops apart summed over the 12 ordered pairs of a row, on both
# machines.  96 messages.
#
# BG/Q node board: MPI_Alltoall runs PAMI's many-to-many protocol, each
# 16 KiB block 32 memory-FIFO packets (32 + 512 chunks), no rendezvous
# (doc/model.md, "All-to-all on BG/Q"): 544 chunks and 32 packets per hop:
# 8 rows x 16 hops x 544 = 69632 chunks, x 32 = 4096 packets; node J07
# passes 16 hops' worth: 8704 chunks, 512 packets.  Gemini 2x2x2: a GET rendezvous: RTS 26 + 256 replies x 27 + FIN
# ack 3 = 6941 phits one way, 3 + 256 requests x 8 + FIN 26 = 2077 back, so
# 9018 phits per message leave the host tiles (x 96 = 865728) and 9018 per
# hop arrive over torus links (x 8 rows x 16 hops = 1154304).  One row per
# node: all 0.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

if [ ! -x "$top_builddir/examples/rowa2a_papi" ]; then
    echo "PAPI with the components is not built: skipped"
    exit 77
fi
expect_ok "demo runs" env DEMO_PNG="$TMP/demo.png" sh "$top_srcdir/examples/demo.sh" "$top_builddir"
expect_out "BG/Q totals, both mappings" "^total +\| +69632 +4096 \| +0 +0$"
expect_out "Gemini totals, both mappings" "^total +\| +1154304 +865728 \| +0 +0$"
expect_out "BG/Q per node" "^R00-M0-N00-J07 +\| +8704 +512 \| +0 +0$"
expect_out "Gemini per router" "^c0-0c0s1g1 +\| +288576 +216432 \| +0 +0$"
n=$(grep -c '^R00-M0-N00-J0[0-7] ' "$TMP/out")
[ "$n" -eq 8 ] && pass || failed "BG/Q: $n node lines, want 8"
n=$(grep -c '^c0-0c0s[01]g[01] ' "$TMP/out")
[ "$n" -eq 4 ] && pass || failed "Gemini: $n router lines, want 4"
# it ends with the picture and where it is (a PNG signature)
expect_out "picture named" "^one row per node \\(right\\): $TMP/demo.png$"
# the values drawn: every torus link of the 8 Geminis (8 x 6) per mapping,
# the phits arrived over them summing to the Gemini total above, and 0
expect_out "data named" "^The values drawn \\(CSV, doc/cli.md\\): $TMP/demo.csv$"
expect_eq "demo picture's values" "1 48 1154304 2 48 0" \
    "$(awk -F, 'NR > 1 { n[$1]++; t[$1] += $6 } END { print 1, n[1], t[1], 2, n[2], t[2] }' \
        "$TMP/demo.csv")"
[ "$(od -An -tx1 -N8 "$TMP/demo.png" | tr -d ' \n')" = 89504e470d0a1a0a ] && pass ||
    failed "demo picture is not a PNG"
finish
