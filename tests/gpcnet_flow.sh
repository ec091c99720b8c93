#!/bin/sh
# gpcnet_flow.sh - GPCNeT's Congestion Impact on the flow level beside the
# packet level's (issue 24, item 6): the `gpcnet` pattern on gemini-tiny,
# 2 iterations, 4 KiB bandwidth messages, under both levels.  The flow
# level must show congestion where the packet level does (every impact
# above 1.1) and each of its three mean impacts must lie within a factor
# 1.6 of the packet level's.  Measured (flow / packet, mean impacts Lat,
# BW+Sync, Allreduce) on main after the source queue and the exact re-solve
# met (2026-12-02): 1.400/2.050, 1.433/1.156, 1.163/1.892 (ratios 0.68,
# 1.24, 0.61); the source queue alone gave 1.410, 1.429, 1.319, the exact
# re-solve alone 1.427, 1.505, 1.331; then 10 iterations 0.62, 1.15,
# 0.87; -np 20 --ranks-per-node 2 0.85, 1.17, 1.39 (2026-12-03: 10
# iterations 0.61, 1.14, 0.83; -np 20 --ranks-per-node 2 0.82, 1.15,
# 1.10).  With each canary test in its own congested run and each
# congestor group's rounds started together (GPCNeT's congested phase per
# test and congestor()'s allreduce per measurement, gpcnet_impact.c;
# 2026-12-03): 1.257/1.548, 1.383/1.108, 1.479/1.153 (ratios 0.81, 1.25,
# 1.28).  The flow level has no queue behind a congestor's packets for an
# 8-byte message (only its share of the channels' bandwidth), so its
# latency impact is the lowest ratio; 1.6 covers the extremes measured
# (0.62, 1.39) with the rounding of a calibration change, not more.  The
# Allreduce ratio was 0.61, below it, before a group's rounds started
# together (the packet level's Allreduce impact then 1.892, 2.183 with a
# run per test, 1.153 with the rounds paced): measured message by message
# then (doc/model.md, "Known gaps"), on the packet level four of the
# allreduce's 16 messages waited up to 1,070 ns in router 4's input queue
# behind a PUT incast's packets bound for node 8's saturated ejection
# channel (head-of-line blocking; tests/test_flow.c keeps that case); the
# flow level's messages added 733 ns of network time in all, the packet
# level's 3,040.  Now all three ratios are asserted within 1.6.  Both
# levels run with --mpi-costs off:
# the test compares the network levels, and the MPI software costs (the
# same on both, doc/virtual-time.md) dilute every impact towards 1 (with
# them on, the packet level's own Allreduce impact is 1.07 here).
#
# An impact is a ratio of two of the level's own figures, so a flow level
# whose links ran at half speed, or whose routes were a hop short, would
# keep its impacts; the isolated figures (no congestor) show it: each of
# the three isolated means (latency, bandwidth per rank, allreduce time)
# must lie within 10 % of the packet level's.  Measured (flow / packet):
# Lat 0.2037 / 0.2085 us (-2.3 %), BW+Sync 2879 / 2774 MiB/s (+3.8 %),
# Allreduce 0.6581 / 0.6571 us (+0.2 %).  With every channel of the flow
# level at 0.8 x its speed (links and NICs, tried by hand) the impact checks
# still passed and the isolated bandwidth was 21 % low (2183 / 2774 MiB/s).
. "${top_srcdir:-.}/tests/lib.sh"

# the three mean impacts of a replay's output, one per line
impacts() {
    awk -F, '$1 ~ /^(p2p_lat_us|p2p_bw_sync_mibs_per_rank|allreduce_us)$/ { print $4 }' "$TMP/out"
}
# the three isolated means, one per line
isolated() {
    awk -F, '$1 ~ /^(p2p_lat_us|p2p_bw_sync_mibs_per_rank|allreduce_us)$/ { print $2 }' "$TMP/out"
}

for level in packet flow; do
    expect_ok "gpcnet under the $level level" "$TORUSEMU" replay --machine gemini-tiny \
        --pattern gpcnet --timing --steps 2 --bytes 4K --quiet --model "$level" --mpi-costs off \
        --format csv
    impacts >"$TMP/$level.imp"
    isolated >"$TMP/$level.iso"
    expect_eq "$level: three impacts" 3 "$(wc -l <"$TMP/$level.imp" | tr -d ' ')"
    if grep -q "level's work" "$TMP/err"; then
        failed "$level: --quiet still printed the model's work: $(cat "$TMP/err")"
    else pass; fi
done
# without --quiet the replay says on stderr what the model did over its
# four runs (what bench_gpcnet_flow.sh reads): figures, not blanks, and
# packet-hops only where packets move hop by hop
expect_ok "gpcnet's work, packet level" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern gpcnet --timing --steps 1 --bytes 4K --model packet --mpi-costs off
grep -Eq "^torusemu: the packet level's work over the 4 timing runs: [1-9][0-9]* events, [1-9][0-9]* packet-hops, [1-9][0-9]* train-hops$" \
    "$TMP/err" && pass || failed "packet level: no work line: $(cat "$TMP/err")"
expect_ok "gpcnet's work, flow level" "$TORUSEMU" replay --machine gemini-tiny \
    --pattern gpcnet --timing --steps 1 --bytes 4K --model flow --mpi-costs off
grep -Eq "^torusemu: the flow level's work over the 4 timing runs: [1-9][0-9]* flows started and rate solutions, [1-9][0-9]* per-flow rate updates$" \
    "$TMP/err" && pass || failed "flow level: no work line: $(cat "$TMP/err")"
paste "$TMP/flow.imp" "$TMP/packet.imp" >"$TMP/both"
awk '$1 > 1.1 { n++ } END { exit n != 3 }' "$TMP/both" && pass ||
    failed "flow level: an impact not above 1.1 with congestors: $(cat "$TMP/both")"
awk '{ r = $1 / $2; if (r >= 1 / 1.6 && r <= 1.6) n++ } END { exit n != 3 }' "$TMP/both" &&
    pass || failed "flow / packet impact outside 1/1.6 .. 1.6: $(cat "$TMP/both")"
paste "$TMP/flow.iso" "$TMP/packet.iso" >"$TMP/iso"
awk '{ r = $1 / $2; if (r >= 0.9 && r <= 1.1) n++ } END { exit n != 3 }' "$TMP/iso" && pass ||
    failed "flow / packet isolated figure outside 0.9 .. 1.1: $(cat "$TMP/iso")"
finish
