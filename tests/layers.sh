#!/bin/sh
# layers.sh - the directories of the tree depend on each other without a
# cycle (build-aux/dirgraph.sh; doc/architecture.md, "Directories"), and
# the check finds a cycle made by includes or by the build when there is
# one; the PAPI components reach clocks only through the backend interface.
. "${top_srcdir:-.}/tests/lib.sh"
DIRGRAPH="$top_srcdir/build-aux/dirgraph.sh"

expect_ok "the tree's directory graph" sh "$DIRGRAPH" "$top_srcdir"
expect_out "no cycle in the tree" "^dirgraph: [0-9]+ directories, [0-9]+ edges, no cycle$"
# the layers the architecture names, by their include or build edges
expect_ok "edges listed" sh "$DIRGRAPH" -v "$top_srcdir"
for e in "emu -> coll" "mpi -> coll" "mpi -> protocol" "utils -> protocol" \
    "utils -> workload" "workload -> include" "coll -> include" "mpi -> emu"; do
    expect_out "edge $e" "^$e  "
done
for e in "utils -> mpi" "emu -> mpi" "emu -> workload" "coll -> emu" "coll -> mpi"; do
    if grep -q "^$e  " "$TMP/out"; then failed "edge $e: $(grep "^$e  " "$TMP/out")"; else pass; fi
done

# a cycle of includes: a/x.c -> b/y.h -> a/z.h
mkdir -p "$TMP/inc/a" "$TMP/inc/b"
printf '#include "../b/y.h"\n' >"$TMP/inc/a/x.c"
printf '#include "z.h"\n' >"$TMP/inc/b/y.h"
: >"$TMP/inc/a/z.h"
: >"$TMP/inc/Makefile.am"
expect_ok "graph without a cycle" sh "$DIRGRAPH" "$TMP/inc/a"
expect_fail "include cycle" "directories depend on each other in a circle: a -> b -> a" \
    sh "$DIRGRAPH" "$TMP/inc"
grep -q '^  b -> a: b/y.h:1: #include "z.h"$' "$TMP/err" && pass ||
    failed "include edge not shown: $(cat "$TMP/err")"

# a cycle of the build: library a compiles a file of b, b links a's library
mkdir -p "$TMP/mk/a" "$TMP/mk/b"
: >"$TMP/mk/a/x.c"
: >"$TMP/mk/b/q.c"
cat >"$TMP/mk/Makefile.am" <<'EOF'
CORE = b/q.c
liba_la_SOURCES = a/x.c \
	$(CORE)
libb_la_SOURCES = b/q.c
EOF
printf 'libb_la_LIBADD = liba.la\n' >"$TMP/mk/b/local.mk"
expect_fail "build cycle" "in a circle: a -> b -> a" sh "$DIRGRAPH" "$TMP/mk"
grep -q "^  a -> b: Makefile.am:2: liba_la compiles b/q.c$" "$TMP/err" && pass ||
    failed "source edge not shown: $(cat "$TMP/err")"
grep -q "^  b -> a: b/local.mk:1: libb_la links liba.la$" "$TMP/err" && pass ||
    failed "link edge not shown: $(cat "$TMP/err")"

# two headers of one name: which one an include means is not clear
mkdir -p "$TMP/amb/a" "$TMP/amb/b" "$TMP/amb/c"
: >"$TMP/amb/a/dup.h"
: >"$TMP/amb/b/dup.h"
printf '\n#include "dup.h"\n' >"$TMP/amb/c/w.c"
: >"$TMP/amb/Makefile.am"
expect_fail "ambiguous include" 'c/w.c:2: "dup.h" names 2 files of the tree' \
    sh "$DIRGRAPH" "$TMP/amb"

# components read clocks through the backend (torus_backend_ops.rank_clock_ps),
# never by looking into the process themselves
found=$(cd "$top_srcdir" && grep -l 'dlsym\|TEMU_VT_CLOCK_SYMBOL' components/*/*.c |
    grep -v '^components/common/torus_backend_' || true)
expect_eq "components that look up clocks themselves" "" "$found"
finish
