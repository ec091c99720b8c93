#!/bin/sh
# docs-check.sh - the docs test (tests/docs.sh) catches what it is for: a
# command that fails, a stale sample output, a make target that does not
# exist; it honours the skip marker and accepts a current sample.
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
finish
