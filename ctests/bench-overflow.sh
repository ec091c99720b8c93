#!/bin/sh
# bench-overflow.sh BUILDDIR PAPI_PREFIX - overflow costs (make
# bench-overflow; figures in doc/performance.md):
#   - torus_ovf_bench: crossing -> handler latency (raw watch signal and
#     PAPI handler, same and another process) and ns per injection with
#     nothing / a watch elsewhere / a watch on the route armed;
#   - callgrind: instructions the watch checks add to one injection when
#     nothing is armed (the annotated lines of the armed test, divided by
#     the injections), against all the injection's instructions.
set -u
B=${1:?usage: bench-overflow.sh BUILDDIR PAPI_PREFIX}
PREFIX=${2:?usage: bench-overflow.sh BUILDDIR PAPI_PREFIX}
BENCH="$PREFIX/share/papi/components/bgq_nwunit/tests/torus_ovf_bench"
N=20000
T=$(mktemp -d "${TMPDIR:-/tmp}/ovf-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset TORUSEMU_NODE TORUSEMU_RANK
"$B/torusemu" create "$T/q.store" --machine midplane >/dev/null || exit 1
TORUSEMU_SESSION="$T/q.store" TORUSEMU_NODE=128 "$BENCH" || exit 1

if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
    echo "callgrind: valgrind not installed, instruction counts skipped"
    exit 0
fi
valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$BENCH" inject-only "$N" \
    >"$T/cg.log" 2>&1 || { tail -n 5 "$T/cg.log"; exit 1; }
callgrind_annotate --auto=yes "$T/cg.out" >"$T/cg.txt" 2>/dev/null
# ir LINE [ZERO_OK]: Ir of a source line (first column, thousands
# separators dropped).  A line not in the annotated sources (renamed, or the
# sources not those of the build) is refused, and so is one that ran no
# instruction unless ZERO_OK: its 0 would read as "free".  The per-update
# test may be 0: the unwatched copy is meant to have none.
ir() {
    hit=$(grep -F -- "$1" "$T/cg.txt" | head -n 1)
    if [ -z "$hit" ]; then
        echo "bench-overflow: the source line '$1' is not in callgrind's annotation" >&2
        exit 1
    fi
    v=$(echo "$hit" | awk '{gsub(",", "", $1); print ($1 ~ /^[0-9]+$/) ? $1 : 0}')
    if [ "$v" -eq 0 ] && [ -z "${2:-}" ]; then
        echo "bench-overflow: the source line '$1' ran no instruction in callgrind's annotation" >&2
        exit 1
    fi
    echo "$v"
}
load=$(ir "return __atomic_load_n(&s->hdr->armed") || exit 1
branch=$(ir "if (TEMU_LIKELY(!armed))") || exit 1
per_update=$(ir "if (TEMU_UNLIKELY(armed) && (s->watch_bits" zero-ok) || exit 1
total=$(grep -E "PROGRAM TOTALS|^[0-9,]+ +\(100" "$T/cg.txt" | head -n 1 | awk '{gsub(",", "", $1); print $1}')
[ -n "$total" ] && [ "$total" -gt 0 ] || { echo "bench-overflow: no program total in callgrind's annotation" >&2; exit 1; }
awk -v n="$N" -v l="${load:-0}" -v b="${branch:-0}" -v u="${per_update:-0}" -v t="${total:-0}" 'BEGIN {
    printf "callgrind  %d injections (1 KiB, 5 hops, BG/Q), nothing armed:\n", n
    printf "callgrind  instructions per injection, all:            %8.1f\n", t / n
    printf "callgrind  load of the armed count:                    %8.1f\n", l / n
    printf "callgrind  branch to the unwatched copy:               %8.1f\n", b / n
    printf "callgrind  per-update watch tests left in that copy:   %8.1f\n", u / n
    printf "callgrind  added by overflow support, per injection:   %8.1f instructions\n", (l + b + u) / n
}'
