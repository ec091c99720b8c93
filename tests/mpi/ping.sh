#!/bin/sh
# ping.sh - Pedretti 2013's sonar: one message of B bytes between two ranks k
# hops apart leaves exact counts on every link of its route and of the
# return route, and nothing elsewhere (tmpi_check ping derives them from
# the protocol rules of doc/model.md).
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/ping.store"

# BG/Q midplane: rank 0 at (0,0,0,0,0), rank 1 at (2,1,0,0,1): 4 hops
printf '0 0 0 0 0 0\n2 1 0 0 1 0\n' >"$TMP/bgq.map"
# 8 B: one packet; 4096 B: eager, 8 packets; 4097 B: rendezvous; 100000 B:
# rendezvous whose data is labelled dynamic (VC 0: > 64 KiB, 3 dimensions);
# 65536 B: exactly 64 KiB is still deterministic (VC 1), 65537 B is not
for b in 8 4096 4097 65536 65537 100000; do
    run_mpi "bgq ping $b" "$S" midplane 2 --map "$TMP/bgq.map" -- "$EX/sonar" --size "$b"
    check "bgq ping $b counts" "$CHECK" ping "$S" 0 1 "$b"
done
# the check can fail: a ping of another size does not match
check_fails "bgq ping check detects a wrong size" "$CHECK" ping "$S" 0 1 99999
# reversed direction, rank 1 -> rank 0
run_mpi "bgq ping 1 -> 0" "$S" midplane 2 --map "$TMP/bgq.map" -- "$EX/sonar" --src 1 --dst 0 \
    --size 2048
check "bgq ping 1 -> 0 counts" "$CHECK" ping "$S" 1 0 2048

# BG/Q 64-node sub-block bgq:2x2x4x2x2,torus=00101: the longest dimension
# goes first and a mesh one before a torus one as long (a torus of 4 counts
# 2 hops, a mesh of 2 counts 2), so D before C: rank 1 at (0,0,1,1,0)
printf '0 0 0 0 0 0\n0 0 1 1 0 0\n' >"$TMP/bgq64.map"
run_mpi "bgq-64 ping" "$S" bgq-64 2 --map "$TMP/bgq64.map" -- "$EX/sonar" --size 4096
check "bgq-64 ping counts (D before C)" "$CHECK" ping "$S" 0 1 4096

# Gemini 4x4x4: rank 0 on Gemini (0,0,0), rank 1 on node 1 of Gemini (2,1,3):
# X tie (+), Y 1, Z 1 (-): 4 hops; eager PUT, rendezvous GET, BTE PUT
printf '0 0 0 0 0\n2 1 3 1 0\n' >"$TMP/gem.map"
for b in 16 1000 8192 600000; do
    run_mpi "gemini ping $b" "$S" gemini-small 2 --map "$TMP/gem.map" -- "$EX/sonar" --size "$b"
    check "gemini ping $b counts" "$CHECK" ping "$S" 0 1 "$b"
done
# compression (Pedretti 2013 V.A): a zeroed 1 MiB message carries ~1/3 of the phits
run_mpi "gemini ping zero" "$S" gemini-small 2 --map "$TMP/gem.map" -- "$EX/sonar" \
    --size 1M --payload zero
check "gemini zeroed 1 MiB counts" "$CHECK" ping "$S" 0 1 1048576 zero
check_fails "gemini zeroed is not random" "$CHECK" ping "$S" 0 1 1048576 random
# two nodes of one Gemini: only the host tiles see the message
run_mpi "gemini same router" "$S" gemini-tiny 2 -- "$EX/sonar" --size 4096
check "gemini same-router counts" "$CHECK" ping "$S" 0 1 4096

# BG/P 8x8x8: eager below 1200 bytes, rendezvous above
printf '0 0 0 0\n3 2 7 0\n' >"$TMP/bgp.map"
for b in 1000 5000; do
    run_mpi "bgp ping $b" "$S" bgp-midplane 2 --map "$TMP/bgp.map" -- "$EX/sonar" --size "$b"
    check "bgp ping $b counts" "$CHECK" ping "$S" 0 1 "$b"
done

# the sonar sweep with --report: one line per size, 8 B .. 4 MiB
run_mpi "sonar sweep" "$S" gemini-small 2 --map "$TMP/gem.map" -- "$EX/sonar" --report
n=$(grep -c '^ ' "$TMP/out")
[ "$n" -eq 20 ] && pass || failed "sonar --report printed $n sizes, want 20"
# 1 MiB by BTE PUT: 16384 + 3 control transactions, 105 bytes per full one
expect_out "sonar 1 MiB line" "^ +1048576 +1573020 +9 "

finish
