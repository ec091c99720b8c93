#!/bin/sh
# docs-check.sh - the docs test (tests/docs.sh) catches what it is for: a
# command that fails, a stale sample output, a make target that does not
# exist; it honours the skip marker and accepts a current sample.  And
# `make demo`, the README's first command, builds every example program a
# doc runs (examples/ and sampler/ programs under the build directory).
. "${top_srcdir:-.}/tests/lib.sh"
DOCS="$top_srcdir/tests/docs.sh"
cat >"$TMP/page.md" <<'MD'
# A page

```sh
_build/torusemu machine mira
```

<!-- doc-test: output -->
```
...
routing    deterministic, dimension order C D B A E...
```

```sh
_build/torusemu machine nosuchmachine
```

```sh
_build/torusemu machine midplane
```

<!-- doc-test: output -->
```
a line the command never prints
```

<!-- doc-test: skip needs a real Blue Gene -->
```sh
false
```

```sh
make no-such-target
```

```c
this C fragment is not run
```
MD
expect_fail "docs test on a page with mistakes" "a command failed" sh "$DOCS" "$TMP/page.md"
# the two good blocks and the current sample pass; the three mistakes are
# named with the line of their block
grep -q "^4 passed, 3 failed" "$TMP/out" && pass || failed "want 4 passed (blocks found, 2 blocks, 1 sample), 3 failed: $(tail -n 1 "$TMP/out")"
grep -q "page.md:3: " "$TMP/err" && failed "the current sample was refused" || pass
grep -q "page.md:13: a command failed" "$TMP/err" && pass || failed "failing command not named: $(cat "$TMP/err")"
grep -q "page.md:17: the sample output shown after it is stale: no line 'a line the command never prints'" \
    "$TMP/err" && pass || failed "stale sample not named: $(cat "$TMP/err")"
grep -q "page.md:31: a command failed" "$TMP/err" && grep -q "'make no-such-target': no such target in the build" "$TMP/err" && pass || failed "missing make target not named"
grep -q "^skip .*page.md:27: needs a real Blue Gene" "$TMP/out" && pass || failed "skip marker not honoured: $(cat "$TMP/out")"

# demo_builds_examples FILE...: every example program FILE runs (a path
# _build/examples/NAME, $B/sampler/NAME ..., or `make examples/NAME`) is a
# prerequisite of the build's demo target; names each one that is not.
# Prints the programs found on stdout.
demo_builds_examples() {
    demo=$(cd "$top_builddir" && env -u MAKEFLAGS -u MAKELEVEL make -pq demo 2>/dev/null |
        sed -n 's/^demo: *//p' | head -n 1)
    [ -n "$demo" ] || { echo "no demo target in $top_builddir/Makefile" >&2; return 1; }
    # "FILE PROGRAM" once per pair
    grep -oHE '(_build|\$B|\$\{B\})/(examples|sampler)/[A-Za-z0-9_]+|make (examples|sampler)/[A-Za-z0-9_]+' "$@" |
        sed -E 's#^([^:]*):(_build/|\$B/|\$\{B\}/|make )#\1 #' | sort -u >"$TMP/demo-progs"
    rc=0
    while read -r file prog; do
        echo "$prog"
        case " $demo " in
        *" $prog "*) ;;
        *)
            echo "$(basename "$file"): runs $prog, which 'make demo' does not build" >&2
            rc=1
            ;;
        esac
    done <"$TMP/demo-progs"
    return $rc
}
expect_ok "make demo builds every example the docs run" demo_builds_examples \
    "$top_srcdir/README.md" "$top_srcdir"/doc/*.md
# (the docs run some: a check that finds none checks nothing)
expect_out "examples the docs run" "^examples/rowa2a$"
cat >"$TMP/demo.md" <<'MD'
```sh
_build/examples/rowa2a --rows 2
make examples/no_such_example
B=_build; $B/sampler/no_such_sampler --check
```
MD
expect_fail "a doc that runs an example make demo does not build" \
    "demo.md: runs examples/no_such_example, which 'make demo' does not build" \
    demo_builds_examples "$TMP/demo.md"
grep -q "demo.md: runs sampler/no_such_sampler, which 'make demo' does not build" "$TMP/err" &&
    pass || failed "\$B/sampler/... not checked: $(cat "$TMP/err")"
grep -q "rowa2a" "$TMP/err" && failed "examples/rowa2a refused: $(cat "$TMP/err")" || pass
finish
