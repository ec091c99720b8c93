#!/bin/sh
# docs.sh - every command shown in README.md and doc/*.md runs as written.
#
# The shell blocks (```sh) of the docs are run one by one, each as a script
# (`sh -e`), in a scratch directory laid out like a fresh clone after the
# README's first command: the source files, and _build (this build tree).
# A block fails the test when a command in it fails.
#
# Markers, HTML comments on the line before a block's opening fence:
#   <!-- doc-test: skip REASON -->   the block is not run (it needs a real
#                                    machine, or is a fragment); the reason
#                                    is printed
#   <!-- doc-test: output -->        on a plain ``` block: the output the
#                                    previous shell block must print.  Its
#                                    lines must appear in that order in the
#                                    output (stdout and stderr together),
#                                    other lines may come between; a line
#                                    "..." is only a visual gap, and a line
#                                    ending in "..." matches any line that
#                                    starts with the text before it
# A line of a shell block that runs `make TARGET` is checked, not run: the
# target must exist in the build's Makefile (`make -n`), since the test runs
# inside `make check` and make targets are tested on their own (the README's
# `make check` is this very run).
#
#   docs.sh [FILE.md...]     default: README.md and doc/*.md
. "${top_srcdir:-.}/tests/lib.sh"
SRC=$(cd "$top_srcdir" && pwd)
BUILD=$(cd "$top_builddir" && pwd)
CLONE="$TMP/clone"
mkdir -p "$CLONE"
for f in "$SRC"/* "$SRC"/.[!.]*; do
    [ -e "$f" ] || continue
    case "$(basename "$f")" in
    _build* | .git) ;;
    *) ln -s "$f" "$CLONE/$(basename "$f")" ;;
    esac
done
ln -s "$BUILD" "$CLONE/_build"

# make TARGET... inside a block: the targets must exist
mkdir -p "$TMP/bin"
cat >"$TMP/bin/make" <<EOF
#!/bin/sh
# doc-test stand-in for make: checks that the targets exist in the build
for t in "\$@"; do
    case "\$t" in -*|*=*) continue ;; esac
    /usr/bin/make -s -n -C "$BUILD" "\$t" >/dev/null 2>&1 ||
        { echo "doc-test: 'make \$t': no such target in the build" >&2; exit 1; }
done
echo "doc-test: make \$*: target exists (not run inside make check)"
EOF
chmod +x "$TMP/bin/make"

# extract FILE: write $TMP/blocks/N.{sh,where,skip,out} for every block
extract() {
    awk -v dir="$TMP/blocks" -v file="$1" -v start="$(ls "$TMP/blocks" 2>/dev/null | wc -l)" '
    BEGIN { n = start; mark = ""; inblock = 0 }
    /^[ \t]*<!-- doc-test: / {
        mark = $0
        sub(/^[ \t]*<!-- doc-test: */, "", mark)
        sub(/ *-->.*$/, "", mark)
        next
    }
    !inblock && /^[ \t]*```/ {
        lang = $0
        sub(/^[ \t]*```/, "", lang)
        kind = ""
        if (lang == "sh") {
            n++
            kind = "sh"
            out = sprintf("%s/%04d.sh", dir, n)
            printf "%s:%d\n", file, FNR > sprintf("%s/%04d.where", dir, n)
            if (mark ~ /^skip/) {
                reason = mark
                sub(/^skip */, "", reason)
                print reason > sprintf("%s/%04d.skip", dir, n)
            }
            printf "" > out
        } else if (mark == "output" && n > start) {
            kind = "out"
            out = sprintf("%s/%04d.out", dir, n)
            printf "" > out
        }
        mark = ""
        inblock = 1
        next
    }
    inblock && /^[ \t]*```/ { inblock = 0; kind = ""; next }
    inblock && kind != "" { print > out; next }
    /[^ \t]/ { mark = "" }
    ' "$1"
}

# in_order EXPECTED ACTUAL: every line of EXPECTED (but "...") appears in
# ACTUAL, in order; prints the first one that does not
in_order() {
    awk '
    function trim(s) { sub(/[ \t]+$/, "", s); return s }
    NR == FNR { if (trim($0) != "..." && trim($0) != "") want[++n] = trim($0); next }
    k < n {
        w = want[k + 1]; line = trim($0)
        if (w ~ /\.\.\.$/) {
            p = substr(w, 1, length(w) - 3)
            if (substr(line, 1, length(p)) == p) k++
        } else if (line == w) k++
    }
    END { if (k < n) { print want[k + 1]; exit 1 } }
    ' "$1" "$2"
}

mkdir -p "$TMP/blocks"
if [ $# -eq 0 ]; then
    set -- "$SRC/README.md" "$SRC"/doc/*.md
fi
for md in "$@"; do
    extract "$md"
done
nblocks=$(ls "$TMP/blocks"/*.sh 2>/dev/null | wc -l)
[ "$nblocks" -gt 0 ] && pass || failed "no shell blocks found in $*"

for b in "$TMP/blocks"/*.sh; do
    n=${b%.sh}
    where=$(sed "s|^$SRC/||" "$n.where")
    if [ -f "$n.skip" ]; then
        echo "skip $where: $(cat "$n.skip")"
        continue
    fi
    # mpirun as root and on more ranks than cores, as `torusemu run` allows
    if (cd "$CLONE" && PATH="$TMP/bin:$PATH" TMPDIR="$TMP" OMPI_ALLOW_RUN_AS_ROOT=1 \
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
        sh -e "$b") >"$n.log" 2>&1; then
        pass
        if [ -f "$n.out" ]; then
            if missing=$(in_order "$n.out" "$n.log"); then
                pass
            else
                failed "$where: the sample output shown after it is stale: no line '$missing' in:
$(cat "$n.log")"
            fi
        fi
    else
        failed "$where: a command failed:
$(sed 's/^/    /' "$b")
output:
$(tail -n 20 "$n.log")"
    fi
done
finish
