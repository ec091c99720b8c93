#!/bin/sh
# trace_print.sh - what `torusemu run --trace` records, as otf2-print
# (otf2-tools) shows it: tests/mpi/trace_p2p's sends and receives on its
# two split communicators, with the program's tags and sizes, the matched
# source of a wildcard receive and the request events of MPI_Isend and
# MPI_Irecv.  The expected records are the program's own description
# (trace_p2p.c), written out by hand below.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/mpilib.sh"

if ! command -v otf2-print >/dev/null 2>&1; then
    echo "otf2-print not found: test skipped"
    exit 77
fi

run_mpi "traced run" "$TMP/live.store" nodeboard 4 --trace "$TMP/t" -- "$TM/trace_p2p"
expect_ok "otf2-print definitions" otf2-print -G "$TMP/t/traces.otf2"
cp "$TMP/out" "$TMP/defs"
expect_ok "otf2-print events" otf2-print "$TMP/t/traces.otf2"
cp "$TMP/out" "$TMP/events"

# Each record as "event location [peer] [members of its communicator as
# world ranks] [tag] [length]": communicators are named by their group.
awk -v defs="$TMP/defs" -v times="$TMP/times" '
BEGIN {
    while ((getline line < defs) > 0) {
        n = split(line, f, " ")
        if (f[1] == "GROUP") {
            m = ""
            for (i = 2; i <= n; i++) if (f[i] == "(\"MPI") m = m (m == "" ? "" : ",") f[i - 1]
            members[f[2]] = m
        } else if (f[1] == "COMM") {
            g = line; sub(/.*Group: "[^"]*" </, "", g); sub(/>.*/, "", g)
            comm[f[2]] = members[g]
        }
    }
}
/^MPI_/ {
    peer = $0; c = $0; tag = $0; len = $0
    if (!sub(/.*(Sender|Receiver): /, "", peer)) peer = ""; else sub(/ .*/, "", peer)
    if (!sub(/.*Communicator: "[^"]*" </, "", c)) c = ""; else { sub(/>.*/, "", c); c = "[" comm[c] "]" }
    if (!sub(/.*Tag: /, "", tag)) tag = ""; else sub(/,.*/, "", tag)
    if (!sub(/.*Length: /, "", len)) len = ""; else sub(/,.*/, "", len)
    print $1, $2, peer, c, tag, len
    if (tag != "") print c, tag, ($1 ~ /SEND/ ? "send" : "recv"), $3 > times
}' "$TMP/events" | sed 's/ *$//' | sort >"$TMP/got"

# per communicator: its rank 0 ($1) and rank 1 ($2) as world ranks
for g in "2 0" "3 1"; do
    set -- $g
    cat <<WANT
MPI_SEND $1 1 [$1,$2] 42 1000
MPI_RECV $2 0 [$1,$2] 42 1000
MPI_ISEND $2 0 [$1,$2] 7 300
MPI_ISEND_COMPLETE $2
MPI_IRECV_REQUEST $1
MPI_IRECV $1 1 [$1,$2] 7 300
WANT
done | sort >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/got"; then
    pass
else
    failed "otf2-print records differ (want, got): $(diff "$TMP/want" "$TMP/got" | tr '\n' ' ')"
fi

# a message's send is stamped when its call began, its receive when the
# receiving call returned: the send comes first (one host, one clock)
if sort "$TMP/times" | awk '
    $3 == "recv" { r[$1 " " $2] = $4 }
    $3 == "send" { s[$1 " " $2] = $4 }
    END { for (k in s) { n++; if (!(k in r) || s[k] >= r[k]) bad = 1 }
          exit bad || n != 4 }'; then
    pass
else
    failed "a send is not stamped before its receive: $(sort "$TMP/times" | tr '\n' ' ')"
fi

# the replay matches each receive to its send and counts what the run did
expect_ok "replay" "$TORUSEMU" replay --machine nodeboard --trace "$TMP/t" \
    --keep "$TMP/rep.store" --quiet
check "replay equals the live run" "$CHECK" identical "$TMP/live.store" "$TMP/rep.store"
finish
