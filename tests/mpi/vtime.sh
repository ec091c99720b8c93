#!/bin/sh
# vtime.sh - `torusemu run --virtual-time`: MPI_Wtime (C and Fortran) and
# the program's own clocks (clock_gettime, gettimeofday, timespec_get,
# Fortran SYSTEM_CLOCK) are the rank's virtual clock.  A ping-pong reports the latency and bandwidth of
# its path as the timing model's parameters give them (derived here by
# hand, doc/virtual-time.md), whichever way the messages are sent and
# received; runs repeat exactly; wrong options are refused.  The exact
# figures are the network's alone (--mpi-costs off); the MPI software
# costs, on by default, are checked against a timed replay below.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/vt.store"
# every run here must keep its virtual times exact: none may need the
# launcher's 2 s stall rule (mpilib.sh, run_mpi)
VT_STRICT=1
PP="$TM/vt_pingpong"

# bgq:4x1x1x1x2 (node = 2a + e), rank 0 at a=0, rank 1 at a=2: k = 2 hops.
# BG/Q timing model (doc/model.md): router 35 ns, wire 5 ns, link 2 GB/s
# (500 ps per byte), node injection/ejection 20 GB/s (50 ps per byte).
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/k2.map"
K=2
# 8 bytes: one packet of a 32-byte header + one 32-byte chunk = 64 bytes.
# Its header leaves the first router 35 ns after injection began and each
# further hop adds wire + router; at the destination router the ejection
# starts router_ps after the header (its tail, 32 ns behind on the link,
# cannot be overtaken: 64 B eject in 3.2 ns) and ends 3.2 ns later.
ONE_8=$((35000 + (K - 1) * 40000 + 5000 + 35000 + 3200))
# 4096 bytes: eager, 8 packets of 544 bytes (header + 16 chunks), 272 ns
# each on a link, the bottleneck: the last packet leaves the first router
# 7 x 272 ns after the first (35 ns), reaches the last router (K-1) x 40 ns
# later, and its tail arrives 272 + 5 ns after that (the ejection, 27.2 ns,
# ends with the tail: cut-through onto the faster channel).
ONE_4096=$((35000 + 7 * 272000 + (K - 1) * 40000 + 272000 + 5000))

# same DESC EXPECTED ACTUAL
same() {
    if [ "$2" = "$3" ]; then pass; else failed "$1: expected '$2', got '$3'"; fi
}

# an empty message (the barrier's): one 32-byte header packet, 16 ns on a
# link, 1.6 ns to eject
ONE_0=$((35000 + (K - 1) * 40000 + 5000 + 35000 + 1600))

vt_run() {
    # vt_run DESC MACHINE NP MAPFILE PROGRAM ARGS...
    desc=$1 machine=$2 np=$3 map=$4
    shift 4
    run_mpi "$desc" "$S" "$machine" "$np" --map "$map" --virtual-time --cpu-scale 0 \
        --mpi-costs off --quiet -- "$@"
}

# MPI software costs (doc/virtual-time.md, "MPI software costs"): a live
# run charges every message what a timed replay charges (LogGP's o_s, o_r
# and g, the node's shared-memory path: temu_tm_config.mpi), by default.
# A bare ping-pong (3 round trips, no collective), traced live and
# replayed from its trace with --timing, brings rank 0 to the same
# picosecond on both sides: ranks on two nodes and on one node, 8 and 4096
# bytes (eager: the rendezvous replies leave at different times online and
# in a replay, above), Gemini and BG/Q.  By hand for one of them: BG/Q
# adds o_s + o_r = 2.0 us to every one-way time (Kumar et al., IPDPS 2012,
# emu/family_bgq.c), 6 x (ONE_8 + 2,000,000) ps over 3 round trips
# (before the costs reached live runs: 6 x ONE_8).
costs_pair() { # costs_pair MACHINE MAPFILE BYTES [MODE ITERATIONS RANK]: RANK's clock live and replayed
    mode=${4:-blocking} iters=${5:-3} who=${6:-0}
    rm -rf "$TMP/ctr"
    run_mpi "costs: live $1 $(basename "$2") $3 B $mode" "$S" "$1" 2 --ranks-per-node 2 \
        --map "$2" --virtual-time --cpu-scale 0 --quiet --trace "$TMP/ctr" -- "$PP" "$3" "$iters" \
        "$mode" bare
    live=$(sed -n "s/^rank $who end \\([0-9]*\\) ps\$/\\1/p" "$TMP/out")
    "$TORUSEMU" replay --machine "$1" --ranks-per-node 2 --map "$2" --trace "$TMP/ctr" --timing \
        --compute-scale 0 >"$TMP/crep" 2>&1
    rep=$(awk -v r="$who" '$1 == r && NF == 5 { printf "%.0f", $3 * 1e6 }' "$TMP/crep")
}
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n' >"$TMP/q-apart.map"
printf '0 0 0 0 0 0\n0 0 0 0 0 1\n' >"$TMP/q-node.map"
printf '0 0 0 0 0\n1 0 0 0 0\n' >"$TMP/g-apart.map"
printf '0 0 0 0 0\n0 0 0 0 1\n' >"$TMP/g-node.map"
for case in bgq:4x1x1x1x2,q gemini:4x4x4,g; do
    for where in apart node; do
        for bytes in 8 4096; do
            costs_pair "${case%,*}" "$TMP/${case#*,}-$where.map" "$bytes"
            same "costs: ${case%,*} $where $bytes B: live = replay (ps)" "${rep:-no replay}" \
                "${live:-no live}"
        done
    done
done
costs_pair bgq:4x1x1x1x2 "$TMP/q-apart.map" 8
same "costs: bgq two hops 8 B by hand" "$((6 * (ONE_8 + 2000000)))" "${live:-none}"
# A rank's on-node copies follow one another (its CPU copies one message
# at a time; doc/virtual-time.md, "MPI software costs"): rank 0 posts 4
# sends of 4096 B to rank 1 on its node.  Gemini copies at 5 GB/s, 819,200
# ps each, longer than g (550,000): the last starts at 3 x 819,200 and is
# delivered 0.4 us + 819,200 ps later, rank 1's end, live and replayed
# (while copies overlapped: 3 x 550,000 + 1,219,200 = 2,869,200).
costs_pair gemini:4x4x4 "$TMP/g-node.map" 4096 burst 4 1
same "costs: gemini on-node burst: live = replay (ps)" "${rep:-no replay}" "${live:-no live}"
same "costs: gemini on-node burst by hand" "$((3 * 819200 + 400000 + 819200))" "${live:-none}"
costs_pair bgq:4x1x1x1x2 "$TMP/q-node.map" 4096 burst 4 1
same "costs: bgq on-node burst: live = replay (ps)" "${rep:-no replay}" "${live:-no live}"
expect_fail "costs: bad value" "--mpi-costs 'maybe': expected on or off" "$TORUSEMU" run \
    --machine bgq:4x1x1x1x2 -np 2 --virtual-time --mpi-costs maybe -- "$PP" 8 1 blocking
expect_fail "costs without --virtual-time" "--mpi-costs goes with --virtual-time" "$TORUSEMU" run \
    --machine bgq:4x1x1x1x2 -np 2 --mpi-costs off -- "$PP" 8 1 blocking
expect_fail "threads without --virtual-time" "--threads goes with --virtual-time" "$TORUSEMU" \
    run --machine bgq:4x1x1x1x2 -np 2 --threads 2 -- "$PP" 8 1 blocking
expect_fail "threads: more than the routers" "--threads 9: bgq:4x1x1x1x2 has 8 routers" \
    "$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 --virtual-time --threads 9 -- "$PP" 8 1 blocking
expect_fail "threads: the flow level" "--threads 2 goes with the packet level" "$TORUSEMU" run \
    --machine bgq:4x1x1x1x2 -np 2 --virtual-time --model flow --threads 2 -- "$PP" 8 1 blocking
expect_fail "threads: bad count" "--threads '0': expected 1..64" "$TORUSEMU" run \
    --machine bgq:4x1x1x1x2 -np 2 --virtual-time --threads 0 -- "$PP" 8 1 blocking

# iprobe, improbe and test poll (the receiver's clock does not move at
# --cpu-scale 0 while it polls, so each poll that finds nothing must let
# the model run on, else it waits forever for a reply that waits on the
# model); probe and mprobe block in the host's MPI like a receive.
for mode in blocking nonblocking wildcard sendrecv replace split persistent mprobe improbe \
    iprobe probe test; do
    vt_run "ping-pong 8 B $mode" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$PP" 8 5 "$mode"
    same "8 B $mode: round trip = 2 x the modelled latency" \
        "round trip $((2 * ONE_8)) ps" "$(grep '^round trip' "$TMP/out")"
    # BG/Q MPI_COMM_WORLD barrier: the class route, modelled as the
    # synchronisation only: both clocks = the later one (rank 0's)
    same "8 B $mode: barrier joins the clocks" \
        "rank 0 after barrier $((5 * 2 * ONE_8)) ps
rank 1 after barrier $((5 * 2 * ONE_8)) ps" "$(grep 'after barrier' "$TMP/out" | sort)"
    # MPI_Ibarrier is never on the class route: dissemination, one empty
    # message each way, both leave at the later clock + its latency
    same "8 B $mode: MPI_Ibarrier + MPI_Wait" \
        "rank 0 after ibarrier $((5 * 2 * ONE_8 + ONE_0)) ps
rank 1 after ibarrier $((5 * 2 * ONE_8 + ONE_0)) ps" "$(grep 'after ibarrier' "$TMP/out" | sort)"
done
same "tick is one picosecond" "tick 1e-12" "$(grep '^tick' "$TMP/out")"

# A poll that found nothing lets the model run the clock's picosecond
# (bound clock + 1); the next call's entry at the same clock must not take
# that back.  It did: a program polling in a loop spends nearly all its
# host time inside the calls, the model mostly read the entry's state
# (poll 0) and could not run, and on a loaded host both ranks of the
# improbe ping-pong above sat until the 2 s stall rule let them go (its
# clocks then may differ).  One rank, one empty poll of each kind, then an
# MPI_Wait whose generalized request's query reads the rank's state in the
# feed (tests/mpi/vt_pollstate.c).
for mode in iprobe improbe test testany testsome testall; do
    run_mpi "poll state: $mode" "$S" bgq:4x1x1x1x2 1 --virtual-time --cpu-scale 0 --quiet -- \
        "$TM/vt_pollstate" "$mode"
    same "poll state: $mode, then the next call's entry" "after the poll: poll 1
mode 0 in_mpi 1 poll 1 clock-moved 0" "$(cat "$TMP/out")"
done

vt_run "ping-pong 4096 B" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$PP" 4096 3 blocking
same "4096 B: round trip" "round trip $((2 * ONE_4096)) ps" "$(grep '^round trip' "$TMP/out")"
BW=$(awk -v t="$ONE_4096" 'BEGIN { printf "%.6f", 1000 * 4096 / t }')
same "4096 B: bandwidth = bytes / one-way time" "bandwidth $BW GB/s" \
    "$(grep '^bandwidth' "$TMP/out")"

# one hop less: 40 ns less each way
printf '0 0 0 0 0 0\n1 0 0 0 0 0\n' >"$TMP/k1.map"
vt_run "ping-pong 8 B, 1 hop" bgq:4x1x1x1x2 2 "$TMP/k1.map" "$PP" 8 2 blocking
same "8 B, 1 hop" "round trip $((2 * (ONE_8 - 40000))) ps" "$(grep '^round trip' "$TMP/out")"

# Fortran MPI_WTIME / MPI_WTICK (Open MPI's bindings call PMPI_Wtime)
if [ -x "$TM/vt_wtime" ]; then
    vt_run "Fortran ping-pong" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_wtime"
    same "Fortran MPI_WTIME" "fortran round trip $((2 * ONE_8)) ps" \
        "$(grep '^fortran round' "$TMP/out")"
    same "Fortran MPI_WTICK" "fortran tick 1.0E-12" "$(grep '^fortran tick' "$TMP/out")"
    # SYSTEM_CLOCK (libgfortran reads clock_gettime(CLOCK_MONOTONIC): the
    # program's own clock): the same round trip, counted from 0 ps at the
    # end of MPI_Init, in whole counts (rounded down)
    rate=$(sed -n 's/^fortran system_clock .* counts at \([0-9]*\) per second$/\1/p' "$TMP/out")
    counts=$(awk -v ps=$((2 * ONE_8)) -v r="${rate:-0}" 'BEGIN { printf "%d", ps * r / 1e12 }')
    same "Fortran SYSTEM_CLOCK" "fortran system_clock $counts counts at $rate per second" \
        "$(grep '^fortran system_clock' "$TMP/out")"
    expect_ok "Fortran SYSTEM_CLOCK counts the round trip ($counts at $rate/s)" test "$counts" -gt 0
fi

# Gemini (no collective network): the barrier's dissemination messages take
# their modelled time after the later clock: both ranks leave together,
# later than rank 0's clock after the ping-pong.  Four ranks, two of them
# only in the barrier; the same run twice gives the same times.
printf '0 0 0 0 0\n3 1 2 1 0\n1 1 1 0 0\n2 3 0 1 0\n' >"$TMP/g.map"
vt_run "Gemini ping-pong" gemini:4x4x4 4 "$TMP/g.map" "$PP" 1000 4 wildcard
sort "$TMP/out" >"$TMP/g1"
vt_run "Gemini ping-pong again" gemini:4x4x4 4 "$TMP/g.map" "$PP" 1000 4 wildcard
sort "$TMP/out" >"$TMP/g2"
expect_ok "the same run twice: identical virtual times" cmp "$TMP/g1" "$TMP/g2"
rtt=$(sed -n 's/^round trip \([0-9]*\) ps$/\1/p' "$TMP/g1")
after=$(sed -n 's/^rank 0 after barrier \([0-9]*\) ps$/\1/p' "$TMP/g1")
n_equal=$(grep -c "after barrier $after ps" "$TMP/g1")
same "Gemini: the four ranks leave the barrier together" 4 "$n_equal"
expect_ok "Gemini: the barrier takes modelled time ($after > 4 x $rtt)" \
    test "$after" -gt $((4 * rtt))

# computation: rank 1's CPU time between its two MPI_Wtime calls, x F; the
# loop rank 1 measured lies inside that interval, and the rest of it (two
# clock reads and the return from MPI_Wtime) is far below a millisecond of
# CPU.  Rank 0 waits in the barrier meanwhile: time inside MPI calls does
# not count, so its clock is (nearly) 0 until the barrier joins it to rank 1's.
for f in 1 2 0.5; do
    run_mpi "CPU time x $f" "$S" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --virtual-time \
        --cpu-scale "$f" --quiet -- "$TM/vt_cpu" 20
    cp "$TMP/out" "$TMP/cpu.out"
    cpu=$(sed -n 's/^cpu //p' "$TMP/cpu.out")
    virt=$(sed -n 's/^virtual //p' "$TMP/cpu.out")
    lo=$(awk -v c="$cpu" -v f="$f" 'BEGIN { printf "%.0f", c * f }')
    hi=$(awk -v c="$cpu" -v f="$f" 'BEGIN { printf "%.0f", (c + 1e9) * f }')
    expect_ok "CPU x $f: virtual $virt within [$lo, $hi]" \
        sh -c "[ \"$virt\" -ge \"$lo\" ] && [ \"$virt\" -le \"$hi\" ]"
    r0=$(sed -n 's/^rank 0 after barrier //p' "$TMP/cpu.out")
    r1=$(sed -n 's/^rank 1 after barrier //p' "$TMP/cpu.out")
    expect_ok "CPU x $f: rank 1 read its clock after the barrier" test -n "$r1"
    # both leave the barrier at rank 1's clock; each then reads its clock
    # after a little CPU time of its own (microseconds: the call's first
    # resolution by the dynamic linker): within a millisecond, x F
    d=$(awk -v a="$r0" -v b="$r1" -v f="$f" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 1e9 * f) }')
    same "CPU x $f: the barrier joins rank 0's clock ($r0) to rank 1's ($r1)" 1 "$d"
    expect_ok "CPU x $f: rank 1's clock covers its computation" test "$r1" -ge "$virt"
    # the program's CLOCK_MONOTONIC around the loop alone (no MPI call
    # inside): it adds the CPU time itself, as MPI_Wtime does (ns, rounded
    # down: 1 ns of slack below)
    mono=$(sed -n 's/^monotonic //p' "$TMP/cpu.out")
    mlo=$(awk -v c="$cpu" -v f="$f" 'BEGIN { printf "%.0f", c * f / 1000 - 1 }')
    mhi=$(awk -v c="$cpu" -v f="$f" 'BEGIN { printf "%.0f", (c + 1e9) * f / 1000 }')
    expect_ok "CPU x $f: clock_gettime measured $mono ns within [$mlo, $mhi]" \
        sh -c "[ \"$mono\" -ge \"$mlo\" ] && [ \"$mono\" -le \"$mhi\" ]"
done

# The layer's own work is not computation: with tests/mpi/fake_cpu.c
# preloaded after the layer, the thread CPU clock the layer reads moves
# only by 1 ms at each pthread_mutex_lock.  One rank, 10 MPI calls, 3 of
# its own locks before each (tests/mpi/vt_lockcpu.c): 30 ms of virtual
# time, exactly.  The layer's locking at a call's return (the feed's lock
# in tmpi_vt_leave, mpi/rank_vtime.c) counted as compute: 40 ms.
# (LD_PRELOAD for these runs alone: set and restored around run_mpi)
preload=${LD_PRELOAD-}
for locks in 3 0; do
    export LD_PRELOAD="$TM/.libs/libfakecpu.so${preload:+:$preload}"
    run_mpi "fake CPU clock, $locks locks" "$S" bgq:4x1x1x1x2 1 --virtual-time --cpu-scale 1 \
        --mpi-costs off --quiet -- "$TM/vt_lockcpu" 10 "$locks"
    if [ -n "$preload" ]; then LD_PRELOAD=$preload; else unset LD_PRELOAD; fi
    same "10 calls, $locks locks of the program's before each: only those count" \
        "virtual $((10 * locks * 1000000000))" "$(cat "$TMP/out")"
done

# The program's own clocks (tests/mpi/vt_clocks.c; doc/virtual-time.md,
# "The program's own clocks"): 50 round trips of 8 bytes on the two-hop
# path, timed with MPI_Wtime (ps), clock_gettime and timespec_get (ns) and
# gettimeofday (us).  The clocks start at the host's at the end of MPI_Init
# in whole microseconds and add the virtual clock rounded down to a
# nanosecond; the loop starts at 0 ps (--cpu-scale 0), so each measures the
# 50 x 236,400 ps = 11,820,000 ps exactly, gettimeofday rounded down to
# 11 us.  A 20 ms nanosleep takes no virtual time (it is not computation),
# while libevent's monotonic timer (Open MPI's helper: host time) sees at
# least 20 ms.
CK="$TM/vt_clocks"
N=50
PS=$((N * 2 * ONE_8))
NS=$((PS / 1000))
own_clocks="MPI_Wtime $PS ps
CLOCK_MONOTONIC $NS ns
CLOCK_MONOTONIC_RAW $NS ns
CLOCK_MONOTONIC_COARSE $NS ns
CLOCK_BOOTTIME $NS ns
CLOCK_REALTIME $NS ns
CLOCK_REALTIME_COARSE $NS ns
gettimeofday $((PS / 1000000)) us
timespec_get $NS ns
sleep CLOCK_MONOTONIC 0 ns"
# libevent_sleep DESC: libevent's timer saw the 20 ms nanosleep (or is absent)
libevent_sleep() {
    ev=$(sed -n 's/^sleep libevent \([0-9]*\) us$/\1/p' "$TMP/clk")
    if grep -q '^libevent absent$' "$TMP/clk"; then
        pass
    else
        expect_ok "$1: libevent's monotonic timer measured the sleep (${ev:-?} us >= 20000)" \
            test "${ev:-0}" -ge 20000
    fi
}
# forward DESC: CLOCK_MONOTONIC never went back across MPI_Init and MPI_Finalize
forward() {
    same "$1: CLOCK_MONOTONIC monotonic" "CLOCK_MONOTONIC across MPI_Init forward
CLOCK_MONOTONIC across MPI_Finalize forward" "$(grep across "$TMP/clk")"
}
vt_run "own clocks" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$CK" 8 $N 20
cp "$TMP/out" "$TMP/clk"
same "own clocks: every wall clock measures the virtual round trips" "$own_clocks" \
    "$(sed -n '1,10p' "$TMP/clk")"
libevent_sleep "own clocks"
forward "own clocks"
# --host-clocks: MPI_Wtime alone is virtual; the program's clocks see the host
run_mpi "own clocks, --host-clocks" "$S" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --virtual-time \
    --cpu-scale 0 --mpi-costs off --host-clocks --quiet -- "$CK" 8 $N 20
cp "$TMP/out" "$TMP/clk"
same "--host-clocks: MPI_Wtime still virtual" "MPI_Wtime $PS ps" "$(sed -n 1p "$TMP/clk")"
slept=$(sed -n 's/^sleep CLOCK_MONOTONIC \([0-9]*\) ns$/\1/p' "$TMP/clk")
expect_ok "--host-clocks: CLOCK_MONOTONIC measured the host's sleep (${slept:-?} ns)" \
    test "${slept:-0}" -ge 20000000
mono=$(sed -n 's/^CLOCK_MONOTONIC \([0-9]*\) ns$/\1/p' "$TMP/clk")
expect_ok "--host-clocks: the host's round trips took time (${mono:-?} ns)" test "${mono:-0}" -gt 0
libevent_sleep "--host-clocks"
forward "--host-clocks"
# without --virtual-time every clock is the host's
run_mpi "own clocks, no virtual time" "$S" bgq:4x1x1x1x2 2 --map "$TMP/k2.map" --quiet -- \
    "$CK" 8 $N 20
cp "$TMP/out" "$TMP/clk"
slept=$(sed -n 's/^sleep CLOCK_MONOTONIC \([0-9]*\) ns$/\1/p' "$TMP/clk")
expect_ok "no virtual time: CLOCK_MONOTONIC measured the sleep (${slept:-?} ns)" \
    test "${slept:-0}" -ge 20000000
wt=$(sed -n 's/^MPI_Wtime \([0-9]*\) ps$/\1/p' "$TMP/clk")
mono=$(sed -n 's/^CLOCK_MONOTONIC \([0-9]*\) ns$/\1/p' "$TMP/clk")
expect_ok "no virtual time: MPI_Wtime (${wt:-?} ps) and CLOCK_MONOTONIC (${mono:-?} ns) > 0" \
    test "${wt:-0}" -gt 0 -a "${mono:-0}" -gt 0

# The online timing model (Gemini): four ranks send 64 KiB each to rank 0
# at once.  Rank 0 sees stall counters in the store while the job still
# runs; the same run twice leaves the same counters, stalls included; the
# volume counters are those of a run without virtual time.
stall_sums() { # stall_sums STORE: "CREDIT_STALL n INQ_STALL m" over all tiles
    "$TORUSEMU" dump "$1" --format csv --tiles |
        awk -F, '$6 == "CREDIT_STALL" { c += $7 } $6 == "INQ_STALL" { q += $7 }
                 END { printf "CREDIT_STALL %d INQ_STALL %d", c, q }'
}
CG="$TM/vt_congest"
for i in 1 2; do
    run_mpi "incast $i" "$TMP/incast$i.store" gemini:4x4x4 5 --virtual-time --cpu-scale 0 \
        --quiet -- "$CG" 65536 incast
    same "incast $i: rank 0 sees stalls while the job runs" "stalls during the run" "$(cat "$TMP/out")"
done
total=$("$TORUSEMU" dump "$TMP/incast1.store" --format csv --tiles |
    awk -F, '$6 ~ /STALL/ { s += $7 } END { print s + 0 }')
expect_ok "incast: stall counters above 0 ($total)" test "$total" -gt 0
"$TORUSEMU" dump "$TMP/incast1.store" --format csv --all --tiles >"$TMP/incast1.csv"
"$TORUSEMU" dump "$TMP/incast2.store" --format csv --all --tiles >"$TMP/incast2.csv"
expect_ok "incast twice: every counter equal, stalls included" cmp "$TMP/incast1.csv" "$TMP/incast2.csv"
# the online model in 3 regions on 3 threads (--threads, doc/model.md,
# "Parallel engine"): the same counters, stalls included
run_mpi "incast, --threads 3" "$TMP/incast3.store" gemini:4x4x4 5 --virtual-time --cpu-scale 0 \
    --threads 3 --quiet -- "$CG" 65536 incast
"$TORUSEMU" dump "$TMP/incast3.store" --format csv --all --tiles >"$TMP/incast3.csv"
expect_ok "incast, --threads 3: every counter as with one thread" \
    cmp "$TMP/incast1.csv" "$TMP/incast3.csv"
run_mpi "incast without virtual time" "$TMP/plain.store" gemini:4x4x4 5 --quiet -- "$CG" 65536 incast
"$TORUSEMU" dump "$TMP/plain.store" --format csv --all --tiles | grep -v STALL >"$TMP/plain.csv"
grep -v STALL "$TMP/incast1.csv" >"$TMP/incast1-volume.csv"
expect_ok "incast: the volume counters are those of a plain run" \
    cmp "$TMP/plain.csv" "$TMP/incast1-volume.csv"
same "plain run: no stalls (no model)" "CREDIT_STALL 0 INQ_STALL 0" "$(stall_sums "$TMP/plain.store")"
# Online versus a timed replay of the same run's trace (replay --timing,
# compute gaps x 0 as the live clocks' CPU time x 0): the same messages, so
# the volume counters are equal exactly.  The stalls come from the same
# model fed the same incast at the same virtual times, and both clocks take
# the model's deliveries; they differ in when a few packets leave: the
# rendezvous replies (Gemini GET requests: online with the message, in the
# replay when it has arrived) and the barrier's messages (online from each
# member's clock at the call, in the replay round by round), a few small
# packets against 256 KiB of incast: within 1 % (both sides are
# deterministic, so the bound cannot fail by chance; measured: credit
# stalls equal, inq stalls 0.23 % apart).
run_mpi "incast traced" "$TMP/live.store" gemini:4x4x4 5 --virtual-time --cpu-scale 0 --quiet \
    --trace "$TMP/tr" -- "$CG" 65536 incast 1
expect_ok "replay --timing of the incast's trace" "$TORUSEMU" replay --machine gemini:4x4x4 \
    --trace "$TMP/tr" --timing --compute-scale 0 --keep "$TMP/rep.store" --quiet
"$TORUSEMU" dump "$TMP/live.store" --format csv --all --tiles | grep -v STALL >"$TMP/live.csv"
"$TORUSEMU" dump "$TMP/rep.store" --format csv --all --tiles | grep -v STALL >"$TMP/rep.csv"
expect_ok "online vs replay: volume counters equal" cmp "$TMP/live.csv" "$TMP/rep.csv"
live=$(stall_sums "$TMP/live.store")
rep=$(stall_sums "$TMP/rep.store")
close=$(echo "$live $rep" | awk '{
    ok = $2 > 0 && $4 > 0
    for (i = 2; i <= 4; i += 2) { d = $i - $(i + 4); if (d < 0) d = -d; ok = ok && d * 100 <= $(i + 4) }
    print ok }')
same "online ($live) vs replay ($rep): stalls within 1 %" 1 "$close"

# BG/Q: the receive-FIFO occupancy and message-unit pending requests the
# model fills, seen during the run
run_mpi "BG/Q incast" "$TMP/qincast.store" bgq:4x1x1x1x2 4 --virtual-time --cpu-scale 0 \
    --quiet -- "$CG" 65536 incast
same "BG/Q incast: rank 0 sees FIFO occupancy and pending MU requests while the job runs" \
    "stalls during the run
message-unit requests pending during the run" "$(cat "$TMP/out")"
# nothing competes: one 8-byte message and the two-rank barrier
run_mpi "one message alone" "$TMP/alone.store" gemini:4x4x4 2 --virtual-time --cpu-scale 0 \
    --quiet -- "$CG" 8 alone 0
same "one message alone: no stall" "CREDIT_STALL 0 INQ_STALL 0" "$(stall_sums "$TMP/alone.store")"

# Congestion in the clocks (doc/virtual-time.md, "Synchronisation"): with
# the online model a receive completes at the model's delivery.  BG/Q, four
# ranks per node: ranks 1-4 on node a=0 send 64 KiB each to rank 0 on node
# a=1 (one hop) at virtual time 0.  A 64 KiB send is a rendezvous (>= 4097
# bytes): a request-to-send of 2 chunks and 128 data packets of 17 chunks
# (header + 512 bytes), all on the link a=0 -> a=1: 2178 x 32 bytes at
# 2 GB/s = 34.848 us per message.  The injection (20 GB/s) outruns the link,
# so the link sends the four messages back to back in the model's order at
# equal times (rank order): message j's last packet leaves the router 35 ns
# + j x 34.848 us after the sends and reaches node a=1 5 ns later (its
# ejection at 20 GB/s ends with its tail).  Rank 0 takes them in rank order;
# each MPI_Send (rendezvous) returns at its message's delivery.  Without the
# feedback all four would arrive at the uncongested 34.888 us.
printf '1 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 1\n0 0 0 0 0 2\n0 0 0 0 0 3\n' >"$TMP/incast.map"
PER_MSG=$(((2 + 128 * 17) * 32 * 500))
want=""
for j in 1 2 3 4; do
    d=$((35000 + j * PER_MSG + 5000))
    want="$want
from $j at $d ps
sent $j at $d ps"
done
want=$(echo "$want" | sed '/^$/d' | sort)
for i in 1 2; do
    run_mpi "incast in the clocks $i" "$S" bgq:4x1x1x1x2 5 --ranks-per-node 4 \
        --map "$TMP/incast.map" --virtual-time --cpu-scale 0 --mpi-costs off --quiet -- \
        "$TM/vt_incast" 65536
    sort "$TMP/out" >"$TMP/vincast$i"
done
same "incast: each receive completes at the model's delivery" "$want" "$(cat "$TMP/vincast1")"
expect_ok "incast twice: identical virtual times" cmp "$TMP/vincast1" "$TMP/vincast2"
# one region per router (8 threads): the same virtual times
run_mpi "incast in the clocks, --threads 8" "$S" bgq:4x1x1x1x2 5 --ranks-per-node 4 \
    --map "$TMP/incast.map" --virtual-time --cpu-scale 0 --mpi-costs off --threads 8 --quiet -- \
    "$TM/vt_incast" 65536
sort "$TMP/out" >"$TMP/vincast8"
expect_ok "incast, --threads 8: identical virtual times" cmp "$TMP/vincast1" "$TMP/vincast8"
last=$(sed -n 's/^from 4 at \([0-9]*\) ps$/\1/p' "$TMP/vincast1")
expect_ok "incast: the last arrives no earlier than 4 messages' bytes over the link" \
    test "${last:-0}" -ge $((4 * PER_MSG))

# A congestion benchmark in miniature (tests/mpi/vt_canary.c): canaries
# (ranks 0 and 1, two hops apart as in the ping-pong above) time a ping-pong
# and a two-rank MPI_Allreduce while congestors (ranks 2-4, on rank 0's
# node) send 8 x 64 KiB each, one after another, to rank 5 on rank 1's node:
# the canaries' packets queue behind theirs.  Isolated (the congestors
# silent) the canaries see exactly the uncongested figures: a round trip of
# 2 x ONE_8 and an allreduce of ONE_8 (each sends one 8-byte message to the
# other; both leave at the later arrival).  Congested, a canary packet that
# waits behind even one congestor message (34.8 us on the link) takes over
# 100 x a round trip: the bound asserted, 1.5 x, cannot be missed unless the
# clocks ignore the congestion.
printf '0 0 0 0 0 0\n2 0 0 0 0 0\n0 0 0 0 0 1\n0 0 0 0 0 2\n0 0 0 0 0 3\n2 0 0 0 0 1\n' >"$TMP/canary.map"
canary() { # canary MODE: the canaries' figures into $TMP/canary.MODE.N
    run_mpi "canary $1" "$S" bgq:4x1x1x1x2 6 --ranks-per-node 4 --map "$TMP/canary.map" \
        --virtual-time --cpu-scale 0 --mpi-costs off --quiet -- "$TM/vt_canary" "$1" 4 65536 8
}
canary isolated
same "canary isolated: uncongested figures" "pingpong $((2 * ONE_8)) ps
allreduce $ONE_8 ps" "$(cat "$TMP/out")"
canary congested
cp "$TMP/out" "$TMP/canary1"
canary congested
cp "$TMP/out" "$TMP/canary2"
expect_ok "canary congested twice: identical" cmp "$TMP/canary1" "$TMP/canary2"
pp=$(sed -n 's/^pingpong \([0-9]*\) ps$/\1/p' "$TMP/canary1")
ar=$(sed -n 's/^allreduce \([0-9]*\) ps$/\1/p' "$TMP/canary1")
expect_ok "canary ping-pong congested ($pp ps) >= 1.5 x isolated" \
    test "${pp:-0}" -ge $((3 * ONE_8))
expect_ok "canary allreduce congested ($ar ps) >= 1.5 x isolated" \
    test "${ar:-0}" -ge $((3 * ONE_8 / 2))

# Calls collective in the host's MPI that move no modelled traffic
# (tests/mpi/vt_sync.c): rank 0 sends 8 bytes and enters the call at once,
# rank 1 first waits for the model's delivery of the message.  Declared to
# the model, rank 0's wait there does not hold the model back, and both
# leave at the later clock: round j ends at j x ONE_8 on rank 0 (its own
# clock stays 0 at --cpu-scale 0).  Undeclared, rank 0 would print 0 and
# the launcher warn that it let a blocked rank go after 2 s.
for mode in comm topo win wincreate; do
    vt_run "collective without traffic: $mode" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_sync" "$mode"
    same "$mode: each round joins rank 0's clock to the delivery" "round 0 $ONE_8 ps
round 1 $((2 * ONE_8)) ps
round 2 $((3 * ONE_8)) ps" "$(cat "$TMP/out")"
    expect_ok "$mode: no rank let go by the 2 s valve, no late message" \
        sh -c "! grep -q 'virtual time:' '$TMP/err'"
done
# lock: rank 0's unlock needs rank 1 to make progress in the host's MPI
# while rank 1 waits for the model (the waiting drives the host's MPI);
# without that both wait forever (rank 0 is not blocked in a call the
# valve knows), hence the time limit.  Every round ends in a barrier (BG/Q:
# the clocks joined), so again j x ONE_8.
if timeout 300 "$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 --map "$TMP/k2.map" --virtual-time \
    --cpu-scale 0 --mpi-costs off --quiet -- "$TM/vt_sync" lock >"$TMP/out" 2>"$TMP/err"; then
    pass
else
    failed "lock: the run did not end (exit $?): $(tail -n 3 "$TMP/err")"
fi
same "lock: passive-target rounds, exact clocks" "round 0 $ONE_8 ps
round 1 $((2 * ONE_8)) ps
round 2 $((3 * ONE_8)) ps" "$(cat "$TMP/out")"
expect_ok "lock: no rank let go by the 2 s valve" sh -c "! grep -q 'virtual time:' '$TMP/err'"
# eager: a blocking send of 6,000 bytes, eager on the emulated Gemini
# (8,192) but rendezvous in Open MPI's shared-memory transport by default
# (4,096), held rank 0 in the host's MPI_Send while rank 1 waited for the
# model's delivery of the 8 bytes before it; only the 2 s valve let rank 0
# go (three times, four late messages).  The launcher raises the host's
# eager limit to the machine's: exact clocks (rank 0's eager sends return
# at its clock, 0 at --cpu-scale 0), no valve, no late message.
printf '0 0 0 0 0\n1 0 0 0 0\n' >"$TMP/g-eager.map"
vt_run "eager on the machine, eager on the host" gemini:4x4x4 2 "$TMP/g-eager.map" "$TM/vt_sync" eager
same "eager: rank 0's clock" "round 0 0 ps
round 1 0 ps
round 2 0 ps" "$(cat "$TMP/out")"
expect_ok "eager: no rank let go by the 2 s valve, no late message" \
    sh -c "! grep -q 'virtual time:' '$TMP/err'"

# One-sided transactions (tests/mpi/vt_rma.c) complete at the model's
# delivery of both directions: a put of 8 (4096) bytes is the same packets
# as an eager message of that size, so each flush ends ONE_8 (ONE_4096)
# after the last; a get of 8 bytes sends a remote get (one packet: the
# 32-byte header and a 64-byte descriptor, 96 bytes, 48 ns on a link) to
# rank 1 and the data back, both at the get (the online model sends a
# transaction's replies with it, doc/virtual-time.md); the descriptor's
# tail, reaching rank 1's node 35 + (K-1) x 40 + 5 + 48 ns after the get,
# is the later.  With fences both ranks leave each fence at the put's
# completion.  Before, one-sided transactions took no virtual time.
GET_8=$((35000 + (K - 1) * 40000 + 5000 + 48000))
vt_run "put 8 B, flush" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_rma" put 8 3
same "put 8 B: each flush at the put's delivery" "round 0 $ONE_8 ps
round 1 $((2 * ONE_8)) ps
round 2 $((3 * ONE_8)) ps" "$(cat "$TMP/out")"
vt_run "put 4096 B, flush" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_rma" put 4096 2
same "put 4096 B: each flush at the put's delivery" "round 0 $ONE_4096 ps
round 1 $((2 * ONE_4096)) ps" "$(cat "$TMP/out")"
vt_run "get 8 B, flush" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_rma" get 8 2
same "get 8 B: each flush when request and data have arrived" "round 0 $GET_8 ps
round 1 $((2 * GET_8)) ps" "$(cat "$TMP/out")"
vt_run "put 8 B, fence" bgq:4x1x1x1x2 2 "$TMP/k2.map" "$TM/vt_rma" fence 8 2
same "fence: both ranks leave at the put's completion" "rank 0 round 0 $ONE_8 ps
rank 0 round 1 $((2 * ONE_8)) ps
rank 1 round 0 $ONE_8 ps
rank 1 round 1 $((2 * ONE_8)) ps" "$(sort "$TMP/out")"

# Under the online model the ranks' MPI yields while it waits (it leaves the
# core to the model thread it waits for, doc/performance.md), unless the
# user set otherwise; without virtual time nothing is set.  The summary
# gives the model thread's CPU time.  (mpilib.sh sets the variable for the
# other tests.)
YIELD='echo "yield=${OMPI_MCA_mpi_yield_when_idle:-unset}"'
unset OMPI_MCA_mpi_yield_when_idle
run_mpi "online model: yield in MPI's waits" "$S" gemini:4x4x4 1 --virtual-time --cpu-scale 0 \
    -- sh -c "$YIELD"
same "online model: mpi_yield_when_idle" "yield=1" "$(cat "$TMP/out")"
cp "$TMP/err" "$TMP/summary"
expect_ok "online model: the summary gives the model thread's CPU time" \
    grep -q "the model thread used [0-9]*\.[0-9]* s of host CPU" "$TMP/summary"
# the summary's last arrival: after the 5 round trips of the ping-pong
# (5 x 2 x ONE_8), not the model clock's end-of-run sentinel (INT64_MAX ps)
rm -f "$S"
"$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 --map "$TMP/k2.map" --virtual-time --cpu-scale 0 \
    --keep "$S" -- "$PP" 8 5 blocking >"$TMP/out" 2>"$TMP/err"
last=$(sed -n 's/.*the last packet in at \([0-9.]*\) us.*/\1/p' "$TMP/err")
expect_ok "summary run: no rank let go, no late message" sh -c "! grep -q 'run: virtual time:' '$TMP/err'"
expect_ok "summary: last packet in at ${last:-?} us, after the round trips, finite" \
    awk -v t="${last:-0}" -v lo="$((10 * ONE_8))" 'BEGIN { exit !(t * 1e6 >= lo && t < 100) }'
run_mpi "no virtual time: Open MPI's default" "$S" gemini:4x4x4 1 -- sh -c "$YIELD"
same "no virtual time: mpi_yield_when_idle not set" "yield=unset" "$(cat "$TMP/out")"
export OMPI_MCA_mpi_yield_when_idle=0
run_mpi "online model, yield chosen by the user" "$S" gemini:4x4x4 1 --virtual-time \
    --cpu-scale 0 -- sh -c "$YIELD"
same "online model: the user's mpi_yield_when_idle kept" "yield=0" "$(cat "$TMP/out")"
export OMPI_MCA_mpi_yield_when_idle=1

# refusals
expect_fail "--cpu-scale without --virtual-time" "goes with --virtual-time" "$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 \
    --cpu-scale 0 -- "$PP" 8 1 blocking
expect_fail "--host-clocks without --virtual-time" "goes with --virtual-time" "$TORUSEMU" run \
    --machine bgq:4x1x1x1x2 -np 2 --host-clocks -- "$PP" 8 1 blocking
expect_fail "--cpu-scale -1" "expected a factor" "$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 --virtual-time \
    --cpu-scale -1 -- "$PP" 8 1 blocking
expect_fail "--cpu-scale x" "expected a factor" "$TORUSEMU" run --machine bgq:4x1x1x1x2 -np 2 --virtual-time \
    --cpu-scale x -- "$PP" 8 1 blocking
finish
