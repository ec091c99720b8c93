#!/bin/sh
# rowa2a.sh - McCraw 2013 section 4.2: all-to-all inside the rows of a 2-D
# process grid.  Under the default mapping the members of a row sit on
# different nodes and every chunk crosses the network; with each row placed
# on one node (Table 5(b)) nothing does.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/a2a.store"
# rows_list R C BYTES ITERS: the messages of the row all-to-alls, "SRC DST BYTES
# alltoall" (BG/Q and blocks above 256 bytes: one message per ordered pair,
# doc/mpi.md; BG/Q sends them by PAMI's many-to-many protocol, doc/model.md)
rows_list() {
    r=$1 c=$2 b=$3 it=$4
    k=0
    while [ "$k" -lt "$it" ]; do
        i=0
        while [ "$i" -lt "$r" ]; do
            j=0
            while [ "$j" -lt "$c" ]; do
                l=0
                while [ "$l" -lt "$c" ]; do
                    [ "$j" -ne "$l" ] && echo "$((i + r * j)) $((i + r * l)) $b alltoall"
                    l=$((l + 1))
                done
                j=$((j + 1))
            done
            i=$((i + 1))
        done
        k=$((k + 1))
    done
}

# BG/Q node board, 4 rows x 4 columns, 4 ranks per node (ABCDET: ranks 4n..4n+3
# on node n), 1 KiB per peer, 2 iterations
run_mpi "bgq rows default" "$S" nodeboard 16 --ranks-per-node 4 -- \
    "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024 --iters 2
expect_out "data ok" "data ok"
rows_list 4 4 1024 2 >"$TMP/rows.txt"
check "bgq rows default: exact counts" "$CHECK" expect "$S" "$TMP/rows.txt"
# first principles: row i has members on nodes 0..3 = (0,0,0,0,0) (0,0,0,0,1)
# (0,0,0,1,0) (0,0,0,1,1); ordered pairs cross 16 hops in all (popcount of
# the xor); 1024 B is 2 memory-FIFO packets + 32 chunks = 34 chunks per hop
# (the same eager or many-to-many); 4 rows x 2 iterations -> 4 * 16 * 34 * 2
# = 4352 chunks
check "bgq rows default: hops x chunks" "$CHECK" hops "$S" "$TMP/rows.txt"
grep -q "^chunks sent over all links: 4352 " "$TMP/cout" && pass ||
    failed "hops x chunks: $(cat "$TMP/cout"), want 4352"
# on the dynamic VC 0 (PAMI's many-to-many protocol), none on VC 1; with
# m2m-routing=deterministic (PAMI_M2M_ROUTING=DETERMINISTIC) all on VC 1
vc_sum() {
    "$TORUSEMU" dump "$1" --format csv | awk -F, -v c="SENT_CHUNKS_VC$2" '$6 == c { t += $7 }
        END { print t + 0 }'
}
expect_eq "bgq rows default: VC 0" 4352 "$(vc_sum "$S" 0)"
expect_eq "bgq rows default: VC 1" 0 "$(vc_sum "$S" 1)"
run_mpi "bgq rows deterministic m2m" "$S" nodeboard,m2m-routing=deterministic 16 \
    --ranks-per-node 4 -- "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024 --iters 2
check "bgq rows deterministic m2m: exact counts" "$CHECK" expect "$S" "$TMP/rows.txt"
expect_eq "deterministic m2m: VC 0" 0 "$(vc_sum "$S" 0)"
expect_eq "deterministic m2m: VC 1" 4352 "$(vc_sum "$S" 1)"

# each row on its own node: zero chunks on every network link
expect_ok "row map" "$EX/rowa2a" --rows 4 --cols 4 --map-out "$TMP/rows.map" --machine nodeboard
run_mpi "bgq rows co-located" "$S" nodeboard 16 --ranks-per-node 4 --map "$TMP/rows.map" -- \
    "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024 --iters 2
check "bgq rows co-located: quiet network" "$CHECK" quiet "$S"
grep -q "96 messages" "$TMP/err" && pass || failed "co-located: 96 messages expected in summary"
grep -q "busiest link: none" "$TMP/err" && pass || failed "co-located: busiest link should be none"
check_fails "the default run is not quiet" sh -c "
    '$TORUSEMU' run --quiet --machine nodeboard -np 16 --ranks-per-node 4 --keep '$TMP/d.store' \
        -- '$EX/rowa2a' --rows 4 --cols 4 >/dev/null 2>&1 && '$CHECK' quiet '$TMP/d.store'"

# Gemini, same grid: nodes 0..3 are two Geminis
run_mpi "gemini rows default" "$S" gemini-tiny 16 --ranks-per-node 4 -- \
    "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024
rows_list 4 4 1024 1 >"$TMP/rows1.txt"
check "gemini rows default: exact counts" "$CHECK" expect "$S" "$TMP/rows1.txt"
expect_ok "gemini row map" "$EX/rowa2a" --rows 4 --cols 4 --map-out "$TMP/grows.map" \
    --machine gemini-tiny
run_mpi "gemini rows co-located" "$S" gemini-tiny 16 --ranks-per-node 4 --map "$TMP/grows.map" \
    -- "$EX/rowa2a" --rows 4 --cols 4 --bytes 1024
check "gemini rows co-located: quiet network" "$CHECK" quiet "$S"

# 32 ranks: 4 rows x 8 columns, 8 per node, a row spans nodes 0..7
run_mpi "bgq 32 ranks" "$S" nodeboard 32 --ranks-per-node 8 -- \
    "$EX/rowa2a" --rows 4 --cols 8 --bytes 512
rows_list 4 8 512 1 >"$TMP/rows32.txt"
check "bgq 32 ranks: exact counts" "$CHECK" expect "$S" "$TMP/rows32.txt"
check "bgq 32 ranks: hops x chunks" "$CHECK" hops "$S" "$TMP/rows32.txt"

finish
