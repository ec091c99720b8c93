#!/bin/sh
# link.sh - the layer linked into a program (-ltorusemu_mpi) instead of
# preloaded: plain mpirun, the session named by TORUSEMU_SESSION; and a
# program run without any session works unchanged and counts nothing.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

MPIRUN=${TORUSEMU_MPIRUN:-mpirun}
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
S="$TMP/l.store"
printf '0 0 0 0 0 0\n1 0 0 0 0 0\n' >"$TMP/two.map"
expect_ok "create" "$TORUSEMU" create "$S" --machine midplane --ranks 2 --map "$TMP/two.map"
# shellcheck disable=SC2086
expect_ok "linked sonar" "$MPIRUN" $ROOT -np 2 -x TORUSEMU_SESSION="$S" "$TM/sonar_linked" --size 3000
check "linked: exact counts" "$CHECK" ping "$S" 0 1 3000

# no session: a warning on rank 0, normal output, nothing counted anywhere
# shellcheck disable=SC2086
expect_ok "no session" env -u TORUSEMU_SESSION "$MPIRUN" $ROOT -np 2 "$TM/sonar_linked" --size 8
grep -q "TORUSEMU_SESSION is not set: no emulated session; MPI traffic is not counted" "$TMP/err" &&
    pass || failed "no warning without a session: $(cat "$TMP/err")"
# shellcheck disable=SC2086
expect_ok "no session, quiet" env -u TORUSEMU_SESSION TORUSEMU_MPI_QUIET=1 "$MPIRUN" $ROOT -np 2 \
    "$TM/sonar_linked" --size 8
[ ! -s "$TMP/err" ] && pass || failed "TORUSEMU_MPI_QUIET still warns: $(cat "$TMP/err")"
# a store for fewer ranks than the job: refused with a reason, nothing counted
expect_ok "small store" "$TORUSEMU" create "$TMP/one.store" --machine midplane --ranks 1
# shellcheck disable=SC2086
expect_ok "job larger than the store" "$MPIRUN" $ROOT -np 2 -x TORUSEMU_SESSION="$TMP/one.store" \
    "$TM/sonar_linked" --size 8
grep -q "places 1 ranks but the job has 2; MPI traffic is not counted" "$TMP/err" && pass ||
    failed "no refusal: $(cat "$TMP/err")"

finish
