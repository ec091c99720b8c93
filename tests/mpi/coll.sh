#!/bin/sh
# coll.sh - every collective (tests/mpi/coll_check): correct results and the
# exact counts of its documented decomposition, on each system, with one and
# several ranks per node.  coll_check's own checks are added to this test's.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

S="$TMP/c.store"
for cfg in "gemini-tiny 8 1" "nodeboard 8 1" "bgp-16 8 1" "nodeboard 16 2" "gemini-small 16 4"; do
    # shellcheck disable=SC2086
    set -- $cfg
    run_mpi "coll_check on $1, $2 ranks" "$S" "$1" "$2" --ranks-per-node "$3" -- "$TM/coll_check"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$TMP/out")
    if [ -z "$line" ]; then
        failed "coll_check on $1 printed no result: $(tail -n 5 "$TMP/err")"
        continue
    fi
    p=${line%% passed*}
    f=${line#*passed, }
    f=${f%% failed}
    npass=$((npass + p))
    nfail=$((nfail + f))
    [ "$f" -eq 0 ] || grep '^FAIL' "$TMP/err" | head -n 20 >&2
    [ "$p" -ge 300 ] && pass || failed "coll_check on $1 ran only $p checks"
done

finish
