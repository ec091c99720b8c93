#!/bin/sh
# callgrind_lookup.sh - the figure the instruction-count benchmarks read
# from a callgrind output (bench/callgrind_lookup.sh, used by
# bench/bench_mpi_instr.sh and bench/bench_vtime_instr.sh) is the same from
# any working directory, and an impossible one is refused.
#
# The fixture (tests/fixtures/callgrind/isend.tmpl, @DIR@ replaced by a
# scratch directory) is what callgrind writes for the layer's MPI_Isend:
# 10 calls from main costing 2,000 instructions in all, 700 of its own in
# mpi/pmpi_p2p.c, 300 inlined from mpi/tmpi.h and 1,000 in libmpi's
# PMPI_Isend.  Run under @DIR@ (as from the source root), callgrind_annotate
# splits the function and the lookup used to find 1,700 (170 a call).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/bench/callgrind_lookup.sh"

if ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "callgrind_annotate not found (Debian: valgrind; build-aux/setup.sh installs it): skipped"
    exit 77
fi

FX="$top_srcdir/tests/fixtures/callgrind/isend.tmpl"
DIR="$TMP/src"
mkdir -p "$DIR/mpi" "$DIR/bench"
sed "s|@DIR@|$DIR|g" "$FX" >"$TMP/isend.out"

# from the directory the sources are under, from its parent, from /tmp
# (relative file name) and from /
expect_eq "MPI_Isend from the sources' directory" 200 \
    "$(cd "$DIR" && cg_per_call "$TMP/isend.out" 'P?MPI_Isend' 10)"
expect_eq "MPI_Isend from their parent" 200 \
    "$(cd "$TMP" && cg_per_call isend.out 'P?MPI_Isend' 10)"
expect_eq "MPI_Isend from /" 200 "$(cd / && cg_per_call "$TMP/isend.out" 'P?MPI_Isend' 10)"
# libmpi's PMPI_Isend alone, and the whole name only (not a prefix)
expect_eq "PMPI_Isend from the sources' directory" 100 \
    "$(cd "$DIR" && cg_per_call "$TMP/isend.out" PMPI_Isend 10)"

# refused: a function that is not there, a name that is only a prefix, a
# total of 0, a file that is not callgrind's
expect_fail "a function not in the file" "no function named 'MPI_Irecv' in the listing" \
    cg_per_call "$TMP/isend.out" MPI_Irecv 10
expect_fail "a prefix of a name" "no function named 'MPI_Isen' in the listing" \
    cg_per_call "$TMP/isend.out" MPI_Isen 10
sed 's/^11 2000$/11 0/; s/^58 [0-9]*$/58 0/; s/^188 300$/188 0/; s/^\* 1000$/* 0/; s/^0 1000$/0 0/; s/^summary: .*/summary: 100/' \
    "$TMP/isend.out" >"$TMP/zero.out"
expect_fail "a total of 0" "'MPI_Isend' has 0 instructions over 10 calls: impossible" \
    cg_per_call "$TMP/zero.out" MPI_Isend 10
echo "not a callgrind file" >"$TMP/junk.out"
expect_fail "not a callgrind file" "callgrind lookup: " cg_per_call "$TMP/junk.out" MPI_Isend 10
finish
