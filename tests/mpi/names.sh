#!/bin/sh
# names.sh - node identity: processor names are the emulated nodes' names and
# the shared-memory split groups ranks by emulated node (tests/mpi/names
# checks each rank against the session), so programs that find "nodes"
# themselves, as GPCNeT does, see the emulated machine.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/n.store"
# Gemini: 8 ranks, 2 per node: 4 nodes, the two nodes of Gemini 0 and of Gemini 1
run_mpi "gemini names" "$S" gemini-tiny 8 --ranks-per-node 2 -- "$TM/names"
n=$(grep -c " ok$" "$TMP/out")
[ "$n" -eq 8 ] && pass || failed "gemini: $n ranks ok, want 8: $(cat "$TMP/err")"
expect_out "gemini cname of node 0" "^rank 0 c0-0c0s0n0 ranks-on-node 2 ok$"
expect_out "gemini cname of node 1" "^rank 2 c0-0c0s0n1 ranks-on-node 2 ok$"
d=$(sed -n 's/^rank [0-9]* \([^ ]*\) .*/\1/p' "$TMP/out" | sort -u | wc -l)
[ "$d" -eq 4 ] && pass || failed "gemini: $d distinct names, want 4"

# BG/Q: 8 ranks, 4 per node (ABCDET), placed at random: 2 nodes
run_mpi "bgq names" "$S" midplane 8 --ranks-per-node 4 --map random:3 -- "$TM/names"
n=$(grep -c "ranks-on-node 4 ok$" "$TMP/out")
[ "$n" -eq 8 ] && pass || failed "bgq: $n ranks ok, want 8: $(cat "$TMP/err")"
d=$(sed -n 's/^rank [0-9]* \(R[0-9][0-9]-M[01]-N[0-9][0-9]-J[0-9][0-9]\) .*/\1/p' "$TMP/out" |
    sort -u | wc -l)
[ "$d" -eq 2 ] && pass || failed "bgq: $d distinct location strings, want 2"

# BG/P, one rank per node
run_mpi "bgp names" "$S" bgp-16 4 -- "$TM/names"
n=$(grep -c "ranks-on-node 1 ok$" "$TMP/out")
[ "$n" -eq 4 ] && pass || failed "bgp: $n ranks ok, want 4: $(cat "$TMP/err")"

finish
