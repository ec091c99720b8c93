#!/bin/sh
# store_users.sh - the store between users (issue 9, doc/store.md): root
# creates stores in a directory another user (nobody) can write, as with
# /dev/shm; nobody plants symlinks and files there, reads and injects.  And
# a store that does not fit its file system.  Needs root to act as the
# other user (runuser); skipped (77) otherwise.
. "${top_srcdir:-.}/tests/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v runuser >/dev/null; then
    echo "needs root, the user nobody and runuser: skipped"
    exit 77
fi
as_nobody() { runuser -u nobody -- "$@"; }
if ! as_nobody "$TORUSEMU" machine --presets >/dev/null 2>&1; then
    echo "nobody cannot run $TORUSEMU (build tree not readable): skipped"
    exit 77
fi

# a directory everybody may write, without the sticky bit (so the kernel's
# protected_symlinks / protected_regular do not step in: our code must)
SHARED=$(mktemp -d "${TMPDIR:-/tmp}/temu-shared.XXXXXX")
trap 'rm -rf "$TMP" "$SHARED"' EXIT
chmod 0777 "$SHARED"

# nobody plants a symlink to a file of root's: root's create refuses it
echo "root's data" >"$TMP/victim"
as_nobody ln -s "$TMP/victim" "$SHARED/link.store"
expect_fail "create over nobody's symlink" "already exists" \
    "$TORUSEMU" create "$SHARED/link.store" --machine gemini-tiny
[ "$(cat "$TMP/victim")" = "root's data" ] && pass || failed "root's file was overwritten"

# nobody pre-creates the store file, writable by nobody: not reused
as_nobody sh -c "umask 0 && echo planted >'$SHARED/pre.store'"
expect_fail "create over nobody's file" "already exists" \
    "$TORUSEMU" create "$SHARED/pre.store" --machine gemini-tiny
[ "$(stat -c %U "$SHARED/pre.store")" = nobody ] && [ "$(cat "$SHARED/pre.store")" = planted ] &&
    pass || failed "nobody's file was taken over"

# root's store is root's alone by default
"$TORUSEMU" create "$SHARED/r.store" --machine nodeboard >/dev/null
"$TORUSEMU" inject "$SHARED/r.store" --src 0 --dst 5 --bytes 1000 >/dev/null
expect_fail "nobody cannot read a 0600 store" "cannot open session store .*Permission denied" \
    as_nobody "$TORUSEMU" dump "$SHARED/r.store"
# read permission is enough to dump (read-only attach)
chmod 0644 "$SHARED/r.store"
expect_ok "nobody dumps a readable store" as_nobody "$TORUSEMU" dump "$SHARED/r.store"
expect_out "dump as nobody" "messages 1  bytes 1000"
expect_fail "nobody cannot inject into it" "Permission denied" \
    as_nobody "$TORUSEMU" inject "$SHARED/r.store" --src 0 --dst 5 --bytes 1000
# --group: the file's group may inject
"$TORUSEMU" create "$SHARED/g.store" --machine nodeboard --group >/dev/null
chgrp "$(id -gn nobody)" "$SHARED/g.store"
expect_ok "group member injects" as_nobody "$TORUSEMU" inject "$SHARED/g.store" --src 0 --dst 5 \
    --bytes 1000
expect_ok "dump group store" "$TORUSEMU" dump "$SHARED/g.store"
expect_out "group injection counted" "messages 1  bytes 1000"

# a store larger than its file system: a clear error at creation and no
# file, not a store that kills its first writer with SIGBUS (a 1 MiB tmpfs
# in a private mount namespace; a midplane's store is 10,297,344 bytes)
if unshare -m sh -c "mount --make-rprivate / && mount -t tmpfs -o size=1m temu '$SHARED' &&
        '$TORUSEMU' create '$SHARED/full.store' --machine midplane; rc=\$?;
        ls -A '$SHARED' >'$TMP/left'; exit \$rc" >"$TMP/out" 2>"$TMP/err"; then
    failed "create on a full tmpfs succeeded"
elif grep -q "mount" "$TMP/err"; then
    echo "cannot mount a small tmpfs here: full-file-system case not checked"
else
    grep -q "cannot allocate the 10297344 bytes of session store '$SHARED/full.store': No space left on device" \
        "$TMP/err" && pass || failed "full tmpfs: $(cat "$TMP/err")"
    [ ! -s "$TMP/left" ] && pass || failed "full tmpfs: files left: $(cat "$TMP/left")"
fi

finish
