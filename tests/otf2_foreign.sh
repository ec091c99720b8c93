#!/bin/sh
# otf2_foreign.sh - `torusemu replay --trace` of an OTF2 archive another
# tool wrote with the OTF2 library (tests/otf2_foreign, standing in for
# Score-P): the store equals the messages the trace implies, injected one
# by one; unsupported records and incomplete traces are refused by name.
. "${top_srcdir:-.}/tests/lib.sh"
W="$top_builddir/tests/otf2_foreign"
CHECK="$top_builddir/tests/mpi/tmpi_check"

expect_ok "write a foreign trace" "$W" "$TMP/f"
cp "$TMP/out" "$TMP/expect"
expect_ok "replay it" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/f" \
    --keep "$TMP/f.store"
if grep -q "8 ranks on gemini:2x2x2 (gemini-tiny), 1 per node; trace" "$TMP/err" &&
    grep -q "replayed 8 sends, 7 one-sided operations, 12 collective calls" "$TMP/err"; then
    pass
else
    failed "summary: $(cat "$TMP/err")"
fi
expect_ok "the store is the implied messages" "$CHECK" expect "$TMP/f.store" "$TMP/expect"
# the anchor file names the archive too
expect_ok "replay by anchor file" "$TORUSEMU" replay --machine gemini-tiny \
    --trace "$TMP/f/traces.otf2" --quiet

expect_ok "write with an unsupported record" "$W" "$TMP/u" --unsupported
expect_fail "unsupported record named" "unsupported record NonBlockingCollectiveRequest" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/u"
expect_ok "write with a receive missing" "$W" "$TMP/m" --unmatched
expect_fail "unmatched send named" "1 sends and 0 receives left unmatched, e.g. 1 send(s) from rank 4 to rank 5" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/m"
# a linear all-to-all of 1,024 ranks, every receive posted first: 1,047,552
# messages matched through hashed queues (quadratic matching would not end
# within the test's time)
expect_ok "write a 1,024-rank linear all-to-all" "$W" "$TMP/l" --linear 1024
expect_ok "replay it" "$TORUSEMU" replay --machine gemini-small --ranks-per-node 8 \
    --trace "$TMP/l"
grep -q "replayed 1047552 sends" "$TMP/err" && grep -q "1047552 messages, 67043328 bytes" "$TMP/err" &&
    pass || failed "linear all-to-all: $(cat "$TMP/err")"

# crafted torusemu attributes (issue 22): a collective's lists are checked
# against its operation and communicator and refused naming the record, the
# rank and the attribute; valid lists replay exactly, MPI_PROC_NULL (-1)
# neighbours sending nothing
expect_ok "write valid neighbour lists" "$W" "$TMP/nb" --coll neighbor
cp "$TMP/out" "$TMP/nb.expect"
expect_ok "replay them" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/nb" \
    --keep "$TMP/nb.store"
expect_ok "the store is the neighbours' messages" "$CHECK" expect "$TMP/nb.store" "$TMP/nb.expect"
# refused CASE MESSAGE: rank 3's lists of --coll CASE are refused with MESSAGE
refused() {
    expect_ok "write --coll $1" "$W" "$TMP/c-$1" --coll "$1"
    expect_fail "--coll $1 refused" "$2" "$TORUSEMU" replay --machine gemini-tiny \
        --trace "$TMP/c-$1"
}
rec="OTF2 trace: MpiCollectiveEnd(ALLTOALLV) of rank 3 at tick 1001:"
refused alltoallv-neighbors "$rec torusemu:neighbors on alltoallv, which has no neighbours"
refused alltoallv-short \
    "$rec torusemu:blocks has 2 entries where alltoallv on a communicator of 8 ranks takes 8"
refused alltoallv-long "$rec torusemu:blocks has 9 entries where alltoallv"
refused alltoallv-negative "$rec torusemu:blocks entry 3 is -8, not a byte count"
refused alltoallv-garbage "$rec torusemu:blocks is not a list of integers one space apart"
refused alltoallv-offs-alone "$rec torusemu:offs without torusemu:blocks"
rec="OTF2 trace: MpiCollectiveEnd(ALLTOALL) of rank 3 at tick 1001:"
refused neighbor-range "$rec torusemu:neighbors entry 1 is 9, outside -1..7"
refused neighbor-wrap "$rec torusemu:neighbors entry 1 is 4294967297, outside -1..7"
refused neighbor-offs-short "$rec torusemu:offs has 2 entries where neighbor_alltoall with 3 \
out-neighbours (torusemu:neighbors) takes 3"
rec="OTF2 trace: MpiCollectiveEnd(BCAST) of rank 3 at tick 1001:"
refused bcast-blocks "$rec torusemu:blocks on bcast, which takes one size (torusemu:bytes)"
refused op-unknown "$rec torusemu:op is 99, not a collective torusemu knows (0..16)"
expect_fail "refused in a timed replay too" "torusemu:neighbors on alltoallv" \
    "$TORUSEMU" replay --machine gemini-tiny --timing --trace "$TMP/c-alltoallv-neighbors"

# every definition numbered from 0xfffff000 (issue 22): the reader's tables
# grow with the definitions present, not with the largest id (which asked
# for 32 GiB), so the replay fits in 200 MB of address space
expect_ok "write huge definition ids" "$W" "$TMP/h" --coll neighbor --huge-ids
cp "$TMP/out" "$TMP/h.expect"
limited() { sh -c 'ulimit -v 200000 && exec "$@"' limited "$@"; }
if limited "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/nb" --quiet 2>/dev/null; then
    expect_ok "replay them in 200 MB" limited "$TORUSEMU" replay --machine gemini-tiny \
        --trace "$TMP/h" --keep "$TMP/h.store"
else # a sanitizer's shadow memory needs more address space than that
    echo "otf2_foreign.sh: no 200 MB address-space limit here (sanitizers?): not enforced" >&2
    expect_ok "replay them" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/h" \
        --keep "$TMP/h.store"
fi
expect_ok "the same messages" "$CHECK" expect "$TMP/h.store" "$TMP/h.expect"

# virtual time counts picoseconds in 64 bits (found by fuzz/otf2_archive:
# 1.9e16 ns x 1000 overflowed): a record beyond 106 days, or earlier than
# its rank's one before, is refused in a timed replay; counting ignores time
expect_ok "write a record 115 days on" "$W" "$TMP/far" --gaps far
expect_fail "beyond virtual time refused" "OTF2 trace: rank 0 has a record at tick \
10000000000007, 1e+07 s after the first tick: virtual time reaches 107 days" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/far" --timing
expect_ok "counted whatever its time" "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/far"
expect_ok "write a record back in time" "$W" "$TMP/back" --gaps back
expect_fail "going back refused" "OTF2 trace: rank 0 has a record at tick 12 after one at tick \
17 (a location's records go forward in time)" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/back" --timing

# an anchor file announcing 2^32 - 1 properties in 70 bytes (found by
# fuzz/otf2_archive): OTF2 would reserve 64 GiB and take half a minute
# before refusing it; the reader refuses it first, naming the count
mkdir "$TMP/a" && cp -R "$TMP/nb/traces" "$TMP/nb/traces.def" "$TMP/a/"
{
    printf '\003\102OTF2\000\003\002\003\000\002'            # byte order, magic, versions
    printf '\000\000\020\000\000\000\000\000\000\000\100\000\000\000\000\000' # chunk sizes
    printf '\001\001\010\000\000\000\000\000\000\000\030\000\000\000\000\000\000\000'
    printf '\000\000\000\377\377\377\377'   # machine, creator, description; properties
    printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\002'
} >"$TMP/a/traces.otf2"
expect_fail "a property count the anchor cannot hold" \
    "not an OTF2 archive (its anchor announces 4294967295 properties in 70 bytes)" \
    "$TORUSEMU" replay --machine gemini-tiny --trace "$TMP/a"
finish
