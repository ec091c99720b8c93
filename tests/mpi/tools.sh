#!/bin/sh
# tools.sh - the layer stacks with another PMPI tool (issue 8 item 1): with
# a TAU-like tool (tests/mpi/pmpi_tool.c) preloaded before or after the
# layer, or one of the two linked into the program and the other preloaded,
# every message is counted exactly once (the store equals the hand-written
# message list of tool_app.c) and the tool's own counts are what it counts
# alone.  The same for a Fortran program (mpif.h) whose calls go through the
# tool's Fortran wrappers: both preload orders, and the layer linked in.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

MPIRUN=${TORUSEMU_MPIRUN:-mpirun}
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
OURS="$top_builddir/.libs/libtorusemu_mpi.so"
TOOL="$TM/.libs/libpmpitool.so"
export OMPI_MCA_osc=sm,pt2pt
for f in "$OURS" "$TOOL" "$TM/tool_app"; do
    [ -e "$f" ] || {
        echo "$f not built: skipped"
        exit 77
    }
done

# run_with DESC MACHINE STORE PRELOAD PROGRAM: 4 ranks, a fresh session in
# STORE ("-": none) and LD_PRELOAD=PRELOAD ("-": nothing preloaded);
# stdout in $TMP/out
run_with() {
    desc=$1 machine=$2 store=$3 preload=$4 prog=$5
    set -- -x TORUSEMU_MPI_QUIET=1 -x OMPI_MCA_osc
    if [ "$store" != - ]; then
        rm -f "$store"
        "$TORUSEMU" create "$store" --machine "$machine" --ranks 4 >/dev/null ||
            failed "$desc: cannot create $store"
        set -- "$@" -x TORUSEMU_SESSION="$store"
    fi
    [ "$preload" = - ] || set -- "$@" -x LD_PRELOAD="$preload"
    # shellcheck disable=SC2086
    if env -u TORUSEMU_SESSION "$MPIRUN" $ROOT --oversubscribe -np 4 "$@" "$prog" \
        >"$TMP/out" 2>"$TMP/err"; then
        pass
    else
        # the ranks' own lines first: mpirun's closing banner, all that
        # the last lines held, does not say why a rank failed
        failed "$desc (exit $?): $(grep -v -e '^-*$' -e 'mpirun' -e 'may have caused' \
            -e 'terminated by signals' -e '-quiet on the' "$TMP/err" | head -n 20)"
    fi
}

# tool_lines FILE: the tool's report lines, sorted
tool_lines() {
    grep '^pmpi_tool rank' "$TMP/out" | sort >"$1"
}

# --------------------------------------------------------------------- C
# The messages of tool_app.c on 4 ranks (doc/mpi.md: the sender counts;
# dissemination barrier r -> r+1, r+2; binomial broadcast 0 -> 1, 0 -> 2,
# 2 -> 3; Blue Gene all-to-all pairwise, its blocks of kind alltoall (BG/Q's
# many-to-many protocol, doc/model.md); a get is a transaction from the
# origin to the target).
L="$TMP/expected"
: >"$L"
for r in 0 1 2 3; do
    {
        echo "$r $(((r + 1) % 4)) 1000"
        echo "$r $(((r + 2) % 4)) 64"
        for j in 0 1 2 3; do
            [ "$j" -eq "$r" ] || echo "$r $j 256 alltoall"
        done
        echo "$r $(((r + 1) % 4)) 0"
        echo "$r $(((r + 2) % 4)) 0"
        echo "$r $(((r + 1) % 4)) 128 put"
        echo "$r $(((r + 3) % 4)) 256 get"
    } >>"$L"
done
printf '0 1 1000\n0 2 1000\n2 3 1000\n' >>"$L"
# what the tool sees on every rank: MPI_Init; MPI_Send 1000 B + MPI_Isend
# 64 B; alltoall, ibcast, ibarrier, allreduce; put, get
want_tool="$TMP/want_tool"
for r in 0 1 2 3; do
    echo "pmpi_tool rank $r: init 1 send 2 bytes 1064 coll 4 rma 2"
done >"$want_tool"

S="$TMP/t.store"
M=nodeboard
run_with "layer alone" $M "$S" "$OURS" "$TM/tool_app"
expect_out "layer alone: data" '^tool_app: data ok$'
check "layer alone: exact counts" "$CHECK" expect "$S" "$L"
# the check can fail: the tool alone counts nothing in the store
run_with "tool alone" $M "$S" "$TOOL" "$TM/tool_app"
tool_lines "$TMP/alone"
cmp -s "$TMP/alone" "$want_tool" && pass || failed "tool alone: $(cat "$TMP/alone")"
check_fails "tool alone leaves no traffic" "$CHECK" expect "$S" "$L"

for how in "layer first|$OURS:$TOOL|tool_app" "tool first|$TOOL:$OURS|tool_app" \
    "layer linked, tool preloaded|$TOOL|tool_app_ours" \
    "tool linked, layer preloaded|$OURS|tool_app_tool"; do
    desc=${how%%|*}
    rest=${how#*|}
    preload=${rest%%|*}
    prog=${rest#*|}
    run_with "$desc" $M "$S" "$preload" "$TM/$prog"
    expect_out "$desc: data" '^tool_app: data ok$'
    tool_lines "$TMP/both"
    cmp -s "$TMP/both" "$want_tool" && pass || failed "$desc: tool counts $(cat "$TMP/both")"
    check "$desc: every message once" "$CHECK" expect "$S" "$L"
done

# --------------------------------------------------------------- Fortran
# mpif.h calls reach the tool's mpi_send_/mpi_isend_ (which call C
# MPI_Send ...) or go straight to Open MPI's bindings, which call PMPI_*.
F="$TM/fortran_mpifh"
if [ -x "$F" ]; then
    G=gemini-small
    run_with "Fortran, layer alone" $G "$TMP/f0.store" "$OURS" "$F"
    run_with "Fortran, tool alone" $G - "$TOOL" "$F"
    tool_lines "$TMP/falone"
    grep -q 'init 1 send [1-9]' "$TMP/falone" && pass ||
        failed "the tool saw no Fortran send: $(cat "$TMP/falone")"
    for order in "$OURS:$TOOL" "$TOOL:$OURS"; do
        run_with "Fortran, $order" $G "$S" "$order" "$F"
        tool_lines "$TMP/fboth"
        cmp -s "$TMP/fboth" "$TMP/falone" && pass ||
            failed "Fortran $order: tool counts $(cat "$TMP/fboth") alone $(cat "$TMP/falone")"
        check "Fortran $order: counts of the layer alone" "$CHECK" same "$TMP/f0.store" "$S"
    done
    # the layer linked into the Fortran program, the tool preloaded
    run_with "Fortran, layer linked, tool preloaded" $G "$S" "$TOOL" "$TM/fortran_mpifh_ours"
    tool_lines "$TMP/fboth"
    cmp -s "$TMP/fboth" "$TMP/falone" && pass ||
        failed "Fortran linked: tool counts $(cat "$TMP/fboth") alone $(cat "$TMP/falone")"
    check "Fortran linked: counts of the layer alone" "$CHECK" same "$TMP/f0.store" "$S"
else
    echo "no Fortran program: Fortran part skipped"
fi

finish
