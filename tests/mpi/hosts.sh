#!/bin/sh
# hosts.sh - `torusemu run --split-hosts N` (doc/mpi.md, "Across hosts"):
# the same MPI programs run on one host and split over 2 and 3 hosts (a
# store per host, updates of another host's counters carried over Open
# MPI's TCP transport, the stores gathered at the end) leave identical
# stores; every rank reads through PAPI exactly what it reads on one host,
# also right after a send on another host returned; overflow handlers run
# as often; refusals and faults end cleanly, leaving nothing behind.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"
# every run in virtual time here must keep its virtual times exact, split
# or not: none may need the launcher's 2 s stall rule (mpilib.sh, run_mpi)
VT_STRICT=1

export OMPI_MCA_btl_tcp_if_include=lo # also for runs given --host (real hosts)
ONE_BTL=$OMPI_MCA_btl
MPIRUN_ROOT=""
[ "$(id -u)" -ne 0 ] || MPIRUN_ROOT=--allow-run-as-root
unset OMPI_MCA_btl # a split run chooses TCP itself (the launcher's --mca btl)

# dump_all STORE OUT: every counter (csv, zero rows too, Gemini per tile)
# and the totals line without the store's path.  BG/Q's L2 counters follow
# the buffers' addresses (doc/model.md), which differ from run to run even
# on one host: left out.
dump_all() {
    "$TORUSEMU" dump "$1" | sed -n '1s/^# session [^ ]*/# session/p' >"$2"
    "$TORUSEMU" dump --all --tiles --format csv "$1" | grep -v ',L2,' >>"$2"
}

# one_host DESC STORE MACHINE NP [options] -- PROGRAM ARGS: the reference
# run, on this host's shared memory as the other MPI tests run
one_host() {
    export OMPI_MCA_btl="$ONE_BTL"
    run_mpi "$@"
    unset OMPI_MCA_btl
}

# same_store DESC MACHINE NP HOSTS [options] -- PROGRAM ARGS: one host, then
# split over each of HOSTS ("2 3"): stores equal counter for counter
same_store() {
    what=$1 machine=$2 np=$3 hosts=$4
    shift 4
    one_host "$what, one host" "$TMP/one.store" "$machine" "$np" "$@"
    dump_all "$TMP/one.store" "$TMP/one.dump"
    [ "$(wc -l <"$TMP/one.dump")" -gt 2 ] && grep -q ',[1-9][0-9]*$' "$TMP/one.dump" && pass ||
        failed "$what: the single-host store counts nothing"
    for n in $hosts; do
        run_mpi "$what, $n hosts" "$TMP/split.store" "$machine" "$np" --split-hosts "$n" "$@"
        dump_all "$TMP/split.store" "$TMP/split.dump"
        if cmp -s "$TMP/one.dump" "$TMP/split.dump"; then
            pass
        else
            failed "$what: $n hosts' store differs: $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
        fi
    done
}

# ring + allreduce; Gemini (a router's two nodes on one host), BG/Q, BG/P
same_store "app on gemini" gemini-small 8 "2 3" -- "$EX/app" 4096 2
same_store "app on bgq" nodeboard 8 "2 3" -- "$EX/app" 1000 1
same_store "app on bgp" bgp-16 8 "2 3" -- "$EX/app" 5000 1
# several ranks per node; a row all-to-all crossing hosts
same_store "rowa2a" nodeboard 16 "2 3" --ranks-per-node 4 -- "$EX/rowa2a" --rows 2 --cols 8 \
    --bytes 4096
# every send mode, random placement; one-sided operations
same_store "p2p_modes" midplane 4 "2 3" --map random:11 -- "$TM/p2p_modes"
same_store "rma_ops" gemini-small 4 "2" -- "$TM/rma_ops" --bytes 512 --target 2 put get acc fop cas
# a window the program made with MPI_Win_create (Open MPI's osc pt2pt over
# TCP, which makes none under MPI_THREAD_MULTIPLE: the program keeps its
# own thread level, the agents talk on the layer's sockets), targets on
# another host than rank 0
same_store "rma_ops, MPI_Win_create" midplane 4 "2 3" -- "$TM/rma_ops" --bytes 512 --target 3 \
    --create put get acc getacc fop cas rput racc
# collectives of every kind on world, split and Cartesian communicators
same_store "coll_trace" nodeboard 8 "2 3" -- "$TM/coll_trace"
# 4 threads of each rank sending at once (each thread its own acknowledgements)
same_store "threads" midplane 2 "2" -- "$TM/threads"
# real hosts (here: --host localhost, so the launcher makes no host store):
# each host's first rank makes its store, rank 0 gathers them over MPI
same_store "app, stores made by the ranks" gemini-small 8 "2 3" --host localhost:8 -- \
    "$EX/app" 4096 2

# --- PAPI in the ranks: each rank reads what it reads on one host ---------
# bgq:8x1x1x1x1, one rank per node: rank 0's 4096 bytes to rank 5 pass
# the nodes of ranks 7 and 6 (A-), on another host than rank 0 when split;
# the ring and the all-to-all cross every host boundary
if [ -x "$TM/hosts_read" ]; then
    for args in "" "--overflow 100"; do
        # shellcheck disable=SC2086
        one_host "hosts_read $args, one host" "$TMP/one.store" bgq:8x1x1x1x1 8 -- \
            "$TM/hosts_read" $args
        sort "$TMP/out" >"$TMP/one.read"
        # the chain's message passed node 6: its read grew after the send
        awk '$3 == 6 && $4 == "PEVT_NW_USER_PP_SENT" { v[$1] = $5 }
             END { exit !(v["chain"] > v["all"]) }' "$TMP/one.read" && pass ||
            failed "hosts_read $args: rank 6 saw nothing of the chain's message"
        for n in 2 3; do
            # shellcheck disable=SC2086
            run_mpi "hosts_read $args, $n hosts" "$TMP/split.store" bgq:8x1x1x1x1 8 \
                --split-hosts "$n" -- "$TM/hosts_read" $args
            sort "$TMP/out" >"$TMP/split.read"
            if cmp -s "$TMP/one.read" "$TMP/split.read"; then
                pass
            else
                failed "hosts_read $args, $n hosts: $(diff "$TMP/one.read" "$TMP/split.read" | head -n 6)"
            fi
        done
    done
    # floor(count / 100) handler calls per rank, on one host as on three
    awk '$1 == "all" && $4 == "PEVT_NW_USER_PP_SENT" { n[$3] = $5 }
         $1 == "chain" && $4 == "PEVT_NW_USER_PP_SENT" { n[$3] = $5 }
         $1 == "ovf" { c[$3] = $5 }
         END { for (r in c) if (c[r] != int(n[r] / 100)) { print "rank " r ": " c[r] " calls, " n[r] " chunks"; bad = 1 }
               exit bad }' "$TMP/split.read" >"$TMP/ovf" && pass || failed "overflow calls: $(cat "$TMP/ovf")"
else
    echo "hosts_read not built (no PAPI): PAPI reads not checked"
fi

# --- sampled and traced: the launcher samples the hosts' stores as one
# (tests/mpi/run_sample.sh's checks): the series starts empty, its last
# snapshot is the kept store, which is the single-host store; a trace of a
# split run replays to its store, every counter (BG/Q L2 slices included)
rowa2a="$EX/rowa2a --rows 4 --cols 4 --bytes 1024 --iters 20"
# shellcheck disable=SC2086
one_host "sampled, one host" "$TMP/one.store" gemini-tiny 16 --ranks-per-node 4 -- $rowa2a
dump_all "$TMP/one.store" "$TMP/one.dump"
# shellcheck disable=SC2086
run_mpi "sampled, 2 hosts" "$TMP/split.store" gemini-tiny 16 --ranks-per-node 4 --split-hosts 2 \
    --sample 5ms --series "$TMP/r.tser" -- $rowa2a
dump_all "$TMP/split.store" "$TMP/split.dump"
cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass || failed "sampled: stores differ"
"$TORUSEMU" series "$TMP/r.tser" | grep -q '^snapshot 0 at 0 ps: 0 counters changed$' && pass ||
    failed "sampled: the first snapshot is not empty"
n=$("$TORUSEMU" series --summary --format=csv "$TMP/r.tser" | sed -n '2s/.*,host,\([0-9]*\),1$/\1/p')
last=$("$TORUSEMU" series --all --format=csv "$TMP/r.tser" |
    awk -F, -v k=$((${n:-1} - 1)) 'NR > 1 && $1 == k { s += $(NF - 1) } END { print s + 0 }')
store=$("$TORUSEMU" dump --all --format=csv "$TMP/split.store" | awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
[ "${n:-0}" -ge 2 ] && [ "$last" = "$store" ] && [ "$store" -gt 0 ] && pass ||
    failed "sampled: $n snapshots, the last sums to $last, the store to $store"
# sampled on real hosts (--host: the launcher sees only host 0's machine):
# the agents keep the launcher's copies of the hosts' stores in step every
# 5 ms (mpi/host_copy.c), the last snapshot is the kept store, which is the
# single-host store; rma_ops pauses 1 s after its operations (and counts
# nothing more), so snapshots before the last already hold every count,
# host 1's (router 1: rank 0's operations on rank 3's window) included
rma="$TM/rma_ops --bytes 512 --target 3 --pause 1000 put get acc"
# shellcheck disable=SC2086
one_host "sampled rma_ops, one host" "$TMP/one.store" gemini-small 4 -- $rma
dump_all "$TMP/one.store" "$TMP/one.dump"
# shellcheck disable=SC2086
run_mpi "sampled rma_ops, 2 real hosts" "$TMP/split.store" gemini-small 4 --split-hosts 2 \
    --host localhost:4 --sample 5ms --series "$TMP/h.tser" -- $rma
dump_all "$TMP/split.store" "$TMP/split.dump"
cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass ||
    failed "sampled on real hosts: stores differ: $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
"$TORUSEMU" dump --all --format=csv "$TMP/split.store" |
    awk -F, 'NR > 1 && $1 == 1 && $NF > 0 { n++ } END { exit !(n > 0) }' && pass ||
    failed "sampled on real hosts: host 1's router counts nothing"
store=$("$TORUSEMU" dump --all --format=csv "$TMP/split.store" | awk -F, 'NR > 1 { s += $NF } END { print s + 0 }')
# snapshots whose counters sum to the store's, and whether the last does
full=$("$TORUSEMU" series --all --format=csv "$TMP/h.tser" |
    awk -F, -v want="$store" 'NR > 1 { s[$1] += $(NF - 1); if ($1 > last) last = $1 }
        END { for (k in s) if (s[k] == want) n++; print n + 0, (s[last] == want) }')
[ "${full% *}" -ge 2 ] && [ "${full#* }" = 1 ] && [ "$store" -gt 0 ] && pass ||
    failed "sampled on real hosts: $full (snapshots at the store's sum, last one at it)"
# a stranger on the layer's ports (mpi/host_wire.c): while the ranks pause,
# every rank's port gets a connection that does not start with the run's
# key and sends what an agent would take for 32 counter updates of +1000
# from rank 0; each is closed and said, the store is the single-host one
le64() {
    _v=$1 _s=""
    for _ in 1 2 3 4 5 6 7 8; do
        _s="$_s\\x$(printf %02x $((_v & 255)))"
        _v=$((_v >> 8))
    done
    printf '%s' "$_s"
}
forged="$(le64 81)$(le64 65)$(le64 0)"
for i in $(seq 0 31); do forged="$forged$(le64 "$i")$(le64 1000)"; done
ports_told() { [ "$(find "$TMP/ports" -name 'port.*' 2>/dev/null | wc -l)" -eq 4 ]; }
rma="$TM/rma_ops --bytes 512 --target 3 put get acc"
# shellcheck disable=SC2086
one_host "stranger: one host" "$TMP/one.store" gemini-small 4 -- $rma
dump_all "$TMP/one.store" "$TMP/one.dump"
rm -rf "$TMP/ports" && mkdir "$TMP/ports"
rm -f "$TMP/split.store"
# shellcheck disable=SC2086
TORUSEMU_HOSTS_WIRE_PORTS="$TMP/ports" "$TORUSEMU" run --machine gemini-small -np 4 \
    --split-hosts 2 --keep "$TMP/split.store" --mpirun-arg -x \
    --mpirun-arg TORUSEMU_HOSTS_WIRE_PORTS -- $rma --pause 5000 >"$TMP/out" 2>"$TMP/err" &
job=$!
if poll 1200 ports_told; then
    for f in "$TMP"/ports/port.*; do
        bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "$2" >&3' _ "$(cat "$f")" "$forged" ||
            failed "stranger: no connection to port $(cat "$f")"
    done
    pass
else
    failed "stranger: the ranks never told their ports: $(tail -n 3 "$TMP/err")"
fi
wait $job && pass || failed "stranger: the run failed: $(tail -n 5 "$TMP/err")"
grep -q "closed a connection to the layer's port: it did not present this run's key" "$TMP/err" &&
    pass || failed "stranger: no connection was refused: $(tail -n 5 "$TMP/err")"
dump_all "$TMP/split.store" "$TMP/split.dump"
cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass ||
    failed "stranger: the store differs: $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
run_mpi "traced, 3 hosts" "$TMP/split.store" nodeboard 8 --split-hosts 3 --trace "$TMP/trace" \
    -- "$TM/coll_trace"
expect_ok "traced: replay" "$TORUSEMU" replay --machine nodeboard -np 8 --trace "$TMP/trace" \
    --keep "$TMP/replay.store" --quiet
"$TORUSEMU" dump --all --format csv "$TMP/split.store" >"$TMP/split.dump"
"$TORUSEMU" dump --all --format csv "$TMP/replay.store" >"$TMP/replay.dump"
cmp -s "$TMP/split.dump" "$TMP/replay.dump" && pass ||
    failed "traced: the replay differs: $(diff "$TMP/split.dump" "$TMP/replay.dump" | head -n 6)"

# --- virtual time: the online model (a thread of the launcher, its feed in
# host 0's shared memory) sees every host's ranks: host 1's ranks use their
# host's copy of the feed, which the agents relay over TCP (mpi/host_feed.c);
# deliveries, clocks and the store (the model's stall counters too) as on
# one host
export TORUSEMU_HOSTS_FEED_STATS=1
STATS="--mpirun-arg -x --mpirun-arg TORUSEMU_HOSTS_FEED_STATS"
# vt_split DESC RELAYED MACHINE NP [options] -- PROGRAM ARGS: split over 2
# hosts (options may add --host), clocks and store equal to the one-host
# run's ($TMP/one.read, $TMP/one.dump); host 1's agent relayed exactly
# RELAYED ("N records, ... M takes"): its ranks' messages and receives took
# the inter-host path, not the launcher's feed
vt_split() {
    what=$1 relayed=$2 machine=$3 np=$4
    shift 4
    # shellcheck disable=SC2086
    run_mpi "$what" "$TMP/split.store" "$machine" "$np" --split-hosts 2 $STATS "$@"
    sort "$TMP/out" >"$TMP/split.read"
    dump_all "$TMP/split.store" "$TMP/split.dump"
    cmp -s "$TMP/one.read" "$TMP/split.read" && pass ||
        failed "$what: clocks differ: $(diff "$TMP/one.read" "$TMP/split.read" | head -n 6)"
    cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass ||
        failed "$what: stores differ: $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
    n_rec=${relayed%% *} n_take=$(echo "$relayed" | awk '{ print $(NF - 1) }')
    grep -q "host 1 feed relay: $n_rec records, [1-9][0-9]* states, $n_take takes" "$TMP/err" &&
        pass || failed "$what: host 1 did not relay $relayed: $(grep relay "$TMP/err")"
}
# same_vt DESC RELAYED MACHINE NP [options] -- PROGRAM ARGS: one host, then 2
same_vt() {
    what=$1 relayed=$2
    shift 2
    one_host "$what, one host" "$TMP/one.store" "$@"
    sort "$TMP/out" >"$TMP/one.read"
    dump_all "$TMP/one.store" "$TMP/one.dump"
    grep -q ' ps$\| us$\|[0-9]' "$TMP/one.read" && pass || failed "$what: printed no time"
    vt_split "$what, 2 hosts" "$relayed" "$@"
}
# an incast of 4 x 64 KiB (tests/mpi/vtime.sh derives its times): rank 0
# alone on one node (host 0), the senders on another (host 1): their 4
# messages relayed up, the receiver on host 0 takes them itself
printf '1 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 1\n0 0 0 0 0 2\n0 0 0 0 0 3\n' >"$TMP/incast.map"
same_vt "vt_incast" "4 records, 0 takes" bgq:4x1x1x1x2 5 --ranks-per-node 4 \
    --map "$TMP/incast.map" --virtual-time --cpu-scale 0 --quiet -- "$TM/vt_incast" 65536
# a ping-pong two hops apart, each rank its own host: rank 1's 3 pongs and
# its barrier's message, its 3 receives' takes
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/k2.map"
same_vt "vt_pingpong" "4 records, 3 takes" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --virtual-time \
    --cpu-scale 0 --quiet -- "$TM/vt_pingpong" 4096 3 blocking
# real hosts (--host: host 1 makes its copy of the feed itself)
vt_split "vt_pingpong, 2 real hosts" "4 records, 3 takes" bgq:4x1x1x1x2 2 --host localhost:2 \
    --map "$TMP/k2.map" --virtual-time --cpu-scale 0 --quiet -- "$TM/vt_pingpong" 4096 3 blocking
# windows the program made with MPI_Win_create, in virtual time
# (tests/mpi/vt_sync.c; tests/mpi/vtime.sh derives the clocks): the
# window's collectives, and rank 0 locking and unlocking the window of rank
# 1 (on host 1) while rank 1 waits for the model's delivery; host 1
# relays rank 1's 3 takes
for mode in wincreate lock; do
    same_vt "vt_sync $mode" "0 records, 3 takes" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" \
        --virtual-time --cpu-scale 0 --quiet -- "$TM/vt_sync" "$mode"
done
# congestion across hosts (tests/mpi/vtime.sh's canary): the congestors on
# host 0 send 3 x 8 x 64 KiB to rank 5 on host 1, whose links the canaries
# (ranks 0 and 1, one per host) share: host 1 relays rank 1's 4 pongs and 4
# allreduce messages, and 28 takes (rank 5's 24, rank 1's 4 pings)
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n0 0 0 0 0 1\n0 0 0 0 0 2\n0 0 0 0 0 3\n2 0 0 0 0 1\n' >"$TMP/canary.map"
same_vt "vt_canary" "8 records, 28 takes" bgq:4x1x1x1x2 6 --ranks-per-node 4 \
    --map "$TMP/canary.map" --virtual-time --cpu-scale 0 --quiet -- "$TM/vt_canary" congested 4 \
    65536 8
# a host too loaded to run its agent (the test hook holds host 1's first
# record up 2.5 s, longer than the model's 2 s stall rule): the model
# waits for the news instead of letting the ranks go, so the clocks are
# still the single-host run's and no warning says they may not repeat
export TORUSEMU_HOSTS_FEED_HOLD_MS=2500
vt_split "vt_canary, host 1's agent held up" \
    "8 records, 28 takes" bgq:4x1x1x1x2 6 --ranks-per-node 4 --map "$TMP/canary.map" \
    --virtual-time --cpu-scale 0 --quiet -- "$TM/vt_canary" congested 4 65536 8
if grep -q 'virtual time:' "$TMP/err"; then
    failed "held-up relay: $(grep 'virtual time:' "$TMP/err")"
else
    pass
fi
unset TORUSEMU_HOSTS_FEED_HOLD_MS
unset TORUSEMU_HOSTS_FEED_STATS

# --- refusals -------------------------------------------------------------
expect_fail "more hosts than nodes with ranks" \
    "split-hosts 3: 3 hosts need at least 3 Gemini routers holding ranks; the mapping uses 2" \
    "$TORUSEMU" run --machine gemini-small -np 4 --split-hosts 3 -- "$EX/app"
expect_fail "--split-hosts 0" "expected a number of hosts from 1 to 4096" \
    "$TORUSEMU" run --machine gemini-small -np 4 --split-hosts 0 -- "$EX/app"

# --- faults: nothing hangs, nothing is left behind --------------------------
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*[ZX]' "/proc/$1/status"; }
gone() { ! alive "$1"; }
# ours: what this project's launcher made in a temporary directory
ours() { find "$1" -name 'torusemu-*' 2>/dev/null; }

# one host's ranks killed (gemini-small, 2 hosts: ranks 2 and 3 on host 1):
# the job ends with an error and every host's store goes; in virtual time
# host 1's copy of the model's feed too (made before the kill)
for vt in "" --virtual-time; do
    rm -rf "$TMP/ranks" "$TMP/tmpdir"
    mkdir "$TMP/ranks" "$TMP/tmpdir"
    # shellcheck disable=SC2086
    TMPDIR="$TMP/tmpdir" "$TORUSEMU" run --machine gemini-small -np 4 --split-hosts 2 $vt -- \
        "$TM/hold" "$TMP/ranks" >"$TMP/out" 2>"$TMP/err" &
    job=$!
    if poll 1200 started "$TMP/ranks" 4; then
        pass
        pids=$(cat "$TMP"/ranks/rank.*)
        [ "$(ours "$TMP/tmpdir" | wc -l)" -ge 2 ] && pass ||
            failed "kill $vt: the run's stores are not in its TMPDIR: $(ls -R "$TMP/tmpdir")"
        if [ -n "$vt" ]; then
            [ -n "$(find "$TMP/tmpdir" -name host1.feed)" ] && pass ||
                failed "kill $vt: no copy of the feed for host 1: $(ls -R "$TMP/tmpdir")"
        fi
        kill -KILL "$(cat "$TMP/ranks/rank.2")" "$(cat "$TMP/ranks/rank.3")"
        poll 600 gone $job && pass || {
            failed "kill $vt: the launcher still runs 60 s later"
            kill -TERM $job
        }
        wait $job && failed "kill $vt: the run succeeded" || pass
        for p in $pids; do
            poll 300 gone "$p" || failed "kill $vt: rank pid $p still runs"
        done
        [ -z "$(ours "$TMP/tmpdir")" ] && pass || failed "kill $vt: left behind: $(ours "$TMP/tmpdir")"
    else
        failed "kill $vt: the ranks never started: $(cat "$TMP/err")"
        kill -TERM $job
        wait $job
    fi
done

# a host that cannot be reached at start: mpirun says so at once; nothing left
rm -rf "$TMP/tmpdir"
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" expect_fail "unreachable host" "the application failed" \
    "$TORUSEMU" run --machine gemini-small -np 4 --split-hosts 2 \
    --mpirun-args "--host nosuchhost.invalid:4" -- "$EX/app"
[ -z "$(ours "$TMP/tmpdir")" ] && pass || failed "unreachable: left behind: $(ours "$TMP/tmpdir")"

# under a launcher of the user's own: the run's store, TORUSEMU_HOSTS and
# TORUSEMU_HOST_STORES in the ranks' environment; the ranks make the hosts'
# stores, rank 0 gathers them into the run's store, nothing is left
"$TORUSEMU" create "$TMP/base.store" --machine gemini-small --ranks 8 --replace >/dev/null
expect_ok "by hand, 2 hosts" \
    mpirun $MPIRUN_ROOT --oversubscribe -np 8 --mca btl self,tcp \
    -x TORUSEMU_SESSION="$TMP/base.store" -x TORUSEMU_HOSTS=2 -x TORUSEMU_HOST_STORES="$TMP/hs" \
    -x LD_PRELOAD="$top_builddir/.libs/libtorusemu_mpi.so" "$EX/app" 4096 2
dump_all "$TMP/base.store" "$TMP/split.dump"
one_host "app on gemini again, one host" "$TMP/one.store" gemini-small 8 -- "$EX/app" 4096 2
dump_all "$TMP/one.store" "$TMP/one.dump"
cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass ||
    failed "by hand: $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
[ ! -e "$TMP/hs" ] && pass || failed "by hand: left behind: $(ls -R "$TMP/hs")"
# with a PMPI tool preloaded after the layer or before it (TAU's way): the
# tool's MPI_Finalize may still send, so the agents stop in the innermost
# finalize (mpi/pmpi_env.c)
TOOL="$TM/.libs/libpmpitool.so"
OURS="$top_builddir/.libs/libtorusemu_mpi.so"
# by_hand DESC HOSTS PRELOAD: examples/app on 4 ranks of a midplane
# into a fresh $TMP/base.store, HOSTS 1 on this host's shared memory
by_hand() {
    "$TORUSEMU" create "$TMP/base.store" --machine midplane --ranks 4 --replace >/dev/null
    if [ "$2" = 1 ]; then
        set -- "$1" -x TORUSEMU_SESSION="$TMP/base.store" -x LD_PRELOAD="$3" --mca btl "$ONE_BTL"
    else
        set -- "$1" -x TORUSEMU_SESSION="$TMP/base.store" -x LD_PRELOAD="$3" --mca btl self,tcp \
            -x TORUSEMU_HOSTS="$2" -x TORUSEMU_HOST_STORES="$TMP/hs"
    fi
    desc=$1
    shift
    expect_ok "$desc" mpirun $MPIRUN_ROOT --oversubscribe -np 4 "$@" "$EX/app" 4096 2
}
if [ -e "$TOOL" ]; then
    for order in "$OURS:$TOOL" "$TOOL:$OURS"; do
        by_hand "app under a tool, one host" 1 "$order"
        dump_all "$TMP/base.store" "$TMP/one.dump"
        by_hand "app under a tool, 2 hosts" 2 "$order"
        dump_all "$TMP/base.store" "$TMP/split.dump"
        cmp -s "$TMP/one.dump" "$TMP/split.dump" && pass ||
            failed "app under a tool ($order): $(diff "$TMP/one.dump" "$TMP/split.dump" | head -n 6)"
    done
fi

# a host whose store cannot be made: its ranks abort the job with the
# reason (the other hosts would wait for its agent)
expect_fail "a host's store cannot be made" "cannot make the hosts' store directory '$TMP/none/hs'" \
    mpirun $MPIRUN_ROOT --oversubscribe -np 4 --mca btl self,tcp \
    -x TORUSEMU_SESSION="$TMP/base.store" -x TORUSEMU_HOSTS=2 -x TORUSEMU_HOST_STORES="$TMP/none/hs" \
    -x LD_PRELOAD="$top_builddir/.libs/libtorusemu_mpi.so" "$EX/app"

finish
