#!/bin/sh
# arch-doc.sh - doc/architecture.md names every source file of the layers
# (*.c and *.h under include/, emu/, coll/, protocol/, mpi/, workload/,
# utils/ and components/) by its path, so a newcomer finds each one there;
# and no two of them share a file name.
. "${top_srcdir:-.}/tests/lib.sh"
LAYERS="include emu coll protocol mpi workload utils components"

# the layers' source files; the generated event tables
# components/<c>/<c>_table.[ch] (an in-tree build's) are not sources
sources() {
    (
        cd "$top_srcdir" || exit 1
        for d in $LAYERS; do
            [ ! -d "$d" ] || find "$d" -name '*.[ch]' -type f
        done | awk '{ n = split($0, p, "/") }
            !(n == 3 && p[1] == "components" && (p[3] == p[2] "_table.c" || p[3] == p[2] "_table.h"))' |
            LC_ALL=C sort
    )
}

# unnamed DOC: the source files DOC does not name as `path`, one a line
unnamed() {
    sources | while read -r f; do
        grep -qF "\`$f\`" "$1" || echo "$f"
    done
}

DOC="$top_srcdir/doc/architecture.md"
n=$(sources | wc -l)
[ "$n" -gt 100 ] && pass || failed "only $n source files found under $LAYERS"
expect_eq "source files doc/architecture.md does not name" "" "$(unnamed "$DOC" | tr '\n' ' ')"
# the check sees a file the page leaves out
grep -vF '`emu/store.c`' "$DOC" >"$TMP/arch.md"
expect_eq "a page without emu/store.c" "emu/store.c" "$(unnamed "$TMP/arch.md")"

clash=$(sources | sed 's#.*/##' | sort | uniq -d | tr '\n' ' ')
expect_eq "file names used by two source files" "" "$clash"
finish
