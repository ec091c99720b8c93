#!/bin/sh
# dirgraph.sh [-v] [SRCDIR] - the directory graph of the source tree, and a
# check that it has no cycle (doc/architecture.md, "Directories").
#
# A directory (emu, coll, components/common, tests/mpi, ...) depends on
# another when one of its files
#   - includes one of the other's: `#include "name"` lines, resolved as the
#     compiler does for this tree: a path relative to the including file,
#     else a file of that name beside it, else the one file of that name
#     anywhere in the tree (include/ is a directory like the others: the
#     emulator's public API);
#   - is built into a target that compiles a file of the other (a _SOURCES
#     list of Makefile.am or a */local.mk naming it), or links a library
#     built from the other (_LIBADD, _LDADD naming its .la).  A target
#     belongs to the directory of its first source file; the files it
#     compiles from a subdirectory of that directory (emu/packet/ in
#     libtorusemu) are parts of it, not a layer it depends on.
# Exit 0 and a one-line summary when the graph has no cycle; exit 1 naming
# the directories of a cycle, each edge with the line that makes it.  -v
# also lists every edge.  Builds are not read: top directories starting
# with _ (_build*, distcheck's _inst), one holding config.status, and
# PAPI's tree (papi/).
set -eu
verbose=0
if [ "${1:-}" = -v ]; then
    verbose=1
    shift
fi
SRC=${1:-.}
cd "$SRC"

# the tree's C files, one relative path a line (top directories may be
# symbolic links, as in tests/docs.sh's clone)
dirs=""
for d in */; do
    d=${d%/}
    case $d in
    _* | papi | autom4te.cache) continue ;;
    esac
    [ -f "$d/config.status" ] || dirs="$dirs $d"
done
# shellcheck disable=SC2086
files=$(if [ -n "$dirs" ]; then find -H $dirs -name '*.[ch]' -type f; fi | LC_ALL=C sort)
# Makefile.am first: the fragments' += extend what it sets
makefiles=$(for m in Makefile.am $(LC_ALL=C ls */local.mk 2>/dev/null || true); do
    [ ! -f "$m" ] || echo "$m"
done)

{
    # part 1: "F path" for every C file
    printf '%s\n' "$files" | sed 's/^/F /'
    # part 2: "I file line name" for every #include "name"
    for f in $files; do
        awk -v f="$f" '/^[ \t]*#[ \t]*include[ \t]*"/ {
            s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s); print "I", f, FNR, s }' "$f"
    done
    # part 3: "M makefile line logical-line" for every make variable assignment
    for m in $makefiles; do
        awk -v m="$m" '
            { line = $0 }
            cont != "" { line = cont " " line }
            cont == "" { start = FNR }
            /\\$/ { cont = line; sub(/\\$/, "", cont); next }
            {
                cont = ""
                sub(/#.*/, "", line)
                if (line ~ /^[A-Za-z0-9_]+[ \t]*(\+|:)?=/) print "M", m, start, line
            }' "$m"
    done
} | awk -v verbose="$verbose" '
function dirof(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function base(p) { sub(/.*\//, "", p); return p }
# a/b/../c -> a/c
function norm(p, n, i, k, part, out) {
    n = split(p, part, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "." || part[i] == "") continue
        if (part[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
        out[++k] = part[i]
    }
    p = ""
    for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
}
function edge(a, b, why) {
    if (a == b || a == "" || b == "") return
    if (!((a, b) in has)) { has[a, b] = 1; why_of[a, b] = why; nout[a]++; out[a, nout[a]] = b; nedges++ }
    dirs[a] = 1; dirs[b] = 1
}
# $(VAR) expanded, recursively
function expand(s, depth, pre, name, rest) {
    if (depth > 20) return ""
    while (match(s, /\$\([A-Za-z0-9_]+\)/)) {
        pre = substr(s, 1, RSTART - 1); name = substr(s, RSTART + 2, RLENGTH - 3)
        rest = substr(s, RSTART + RLENGTH)
        s = pre " " expand(val[name], depth + 1) " " rest
    }
    return s
}
function canon(t) { gsub(/[^A-Za-z0-9_]/, "_", t); return t }
$1 == "F" { isfile[$2] = 1; nbase[base($2)]++; where[base($2)] = $2; dirs[dirof($2)] = 1; next }
$1 == "I" {
    f = $2; name = $4; d = dirof(f); t = ""
    if (name ~ /\//) { t = norm(d "/" name); if (!(t in isfile)) t = "" }
    else if ((d "/" name) in isfile) t = d "/" name
    else if (nbase[name] == 1) t = where[name]
    else if (nbase[name] > 1) { amb = amb sprintf("%s:%s: \"%s\" names %d files of the tree\n", f, $3, name, nbase[name]) }
    if (t != "") edge(d, dirof(t), f ":" $3 ": #include \"" name "\"")
    next
}
$1 == "M" {
    m = $2; ln = $3; $1 = $2 = $3 = ""; s = $0; sub(/^[ \t]+/, "", s)
    name = s; sub(/[ \t]*(\+|:)?=.*/, "", name)
    v = s; sub(/^[A-Za-z0-9_]+[ \t]*/, "", v); app = v ~ /^\+=/; sub(/^(\+|:)?=/, "", v)
    val[name] = app ? val[name] " " v : v
    if (name ~ /_SOURCES$/ && name !~ /^(nodist|EXTRA)_/) { src_at[name] = m ":" ln }
    if (name ~ /_(LIBADD|LDADD)$/) { lib_at[name] = m ":" ln }
    next
}
END {
    # targets: their home directory, and the directories of their sources
    for (v in src_at) {
        tgt = v; sub(/_SOURCES$/, "", tgt)
        n = split(expand(val[v], 0), w, /[ \t]+/)
        for (i = 1; i <= n; i++) {
            if (w[i] !~ /\.[ch]$/) continue
            if (!(tgt in home) || (w[i] ~ /\.c$/ && !(tgt in homec))) {
                home[tgt] = dirof(w[i]); if (w[i] ~ /\.c$/) homec[tgt] = 1
            }
        }
    }
    for (v in src_at) {
        tgt = v; sub(/_SOURCES$/, "", tgt)
        n = split(expand(val[v], 0), w, /[ \t]+/)
        for (i = 1; i <= n; i++) {
            # a library compiling the files of its own subdirectory
            # (emu/packet/ in libtorusemu) owns them: a part, not a layer
            if (w[i] ~ /\.c$/ && index(dirof(w[i]), home[tgt] "/") != 1) {
                edge(home[tgt], dirof(w[i]), src_at[v] ": " tgt " compiles " w[i])
            }
        }
    }
    for (v in lib_at) {
        tgt = v; sub(/_(LIBADD|LDADD)$/, "", tgt)
        if (!(tgt in home)) continue
        n = split(expand(val[v], 0), w, /[ \t]+/)
        for (i = 1; i <= n; i++) {
            if (w[i] ~ /\.la$/ && (canon(w[i]) in home)) {
                edge(home[tgt], home[canon(w[i])], lib_at[v] ": " tgt " links " w[i])
            }
        }
    }
    if (amb != "") {
        printf "dirgraph: ambiguous includes (rename one of the files):\n%s", amb > "/dev/stderr"
        exit 1
    }
    if (verbose) for (k in has) { split(k, ab, SUBSEP); printf "%s -> %s    (%s)\n", ab[1], ab[2], why_of[k] | "sort" }
    close("sort")
    # depth-first search for a cycle: state 1 on the stack, 2 done
    # in name order, so that the cycle reported is the same on every awk
    nd = 0
    for (d in dirs) {
        for (i = ++nd; i > 1 && order[i - 1] > d; i--) order[i] = order[i - 1]
        order[i] = d
    }
    for (i = 1; i <= nd; i++) if (!state[order[i]] && dfs(order[i])) exit 1
    printf "dirgraph: %d directories, %d edges, no cycle\n", nd, nedges
}
function dfs(a, i, b, j, nx) {
    state[a] = 1; stack[++sp] = a
    for (i = 1; i <= nout[a]; i++) {
        b = out[a, i]
        if (state[b] == 1) {
            for (j = 1; stack[j] != b; j++) ;
            printf "dirgraph: directories depend on each other in a circle:" > "/dev/stderr"
            for (; j <= sp; j++) printf " %s ->", stack[j] > "/dev/stderr"
            printf " %s\n", b > "/dev/stderr"
            for (j = 1; stack[j] != b; j++) ;
            for (; j <= sp; j++) {
                nx = j < sp ? stack[j + 1] : b
                printf "  %s -> %s: %s\n", stack[j], nx, why_of[stack[j], nx] > "/dev/stderr"
            }
            return 1
        }
        if (!state[b] && dfs(b)) return 1
    }
    state[a] = 2; sp--
    return 0
}'
