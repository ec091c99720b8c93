#!/bin/sh
# gpcnet_flow.sh - GPCNeT's Congestion Impact on the flow level beside the
# packet level's (issue 24, item 6): the `gpcnet` pattern on gemini-tiny,
# 2 iterations, 4 KiB bandwidth messages, under both levels.  The flow
# level must show congestion where the packet level does (every impact
# above 1.1) and each of its three mean impacts must lie within a factor
# 1.6 of the packet level's.  Measured (flow / packet, mean impacts Lat,
# BW+Sync, Allreduce): this case 1.410/2.050, 1.429/1.156, 1.319/1.892 (measured
# on the source queue alone, before the exact re-solve met it)
# (ratios 0.69, 1.24, 0.70; with the flow level's source queue, 2026-12-02:
# before it 1.432, 1.473, 1.401); 10 iterations 0.62, 1.15, 0.87; -np 20
# --ranks-per-node 2 0.85, 1.17, 1.39.  The flow level has no queue
# behind a congestor's packets for an 8-byte message (only its share of
# the channels' bandwidth), so its latency impact is the lowest ratio;
# 1.6 covers the extremes measured (0.62, 1.39) with the rounding of a
# calibration change, not more.  Both levels run with --mpi-costs off:
# the test compares the network levels, and the MPI software costs (the
# same on both, doc/virtual-time.md) dilute every impact towards 1 (with
# them on, the packet level's own Allreduce impact is 1.07 here).
. "${top_srcdir:-.}/tests/lib.sh"

# the three mean impacts of a replay's output, one per line
impacts() {
    awk '$1 ~ /^(p2p_lat_us|p2p_bw_sync_mibs_per_rank|allreduce_us)$/ { print $4 }' "$TMP/out"
}

for level in packet flow; do
    expect_ok "gpcnet under the $level level" "$TORUSEMU" replay --machine gemini-tiny \
        --pattern gpcnet --timing --steps 2 --bytes 4K --quiet --model "$level" --mpi-costs off
    impacts >"$TMP/$level.imp"
    expect_eq "$level: three impacts" 3 "$(wc -l <"$TMP/$level.imp" | tr -d ' ')"
done
paste "$TMP/flow.imp" "$TMP/packet.imp" >"$TMP/both"
awk '$1 > 1.1 { n++ } END { exit n != 3 }' "$TMP/both" && pass ||
    failed "flow level: an impact not above 1.1 with congestors: $(cat "$TMP/both")"
awk '{ r = $1 / $2; if (r >= 1 / 1.6 && r <= 1.6) n++ } END { exit n != 3 }' "$TMP/both" && pass ||
    failed "flow / packet impact outside 1/1.6 .. 1.6: $(cat "$TMP/both")"
finish
