# callgrind_lookup.sh - the figure the instruction-count benchmarks read
# from a callgrind output file (sourced by bench/mpi_callgrind.sh and by
# tests/callgrind_lookup.sh).
#
# cg_per_call FILE FUNCTION CALLS: print the inclusive instructions of the
# function named FUNCTION (an awk regular expression matched against the
# whole name) divided by CALLS; refuse (message on stderr, status 1) when
# no function of that name is in the listing or its total is 0.
#
# callgrind_annotate shortens the file names of function *definitions*
# (fl= lines) that lie under its working directory but not those of call
# targets (cfi= lines), so run under an ancestor of the sources (the
# source root, a home directory) it splits one function in two entries and
# the first one matched is a part of it (534 instructions per MPI_Isend of
# the layer instead of 857).  Run from /, under which no name is shortened
# (callgrind_annotate strips "$PWD/", here "//"), the figures are the same
# from any working directory.
cg_per_call() {
    cg_file=$1 cg_fn=$2 cg_calls=$3
    case $cg_file in
    /*) ;;
    *) cg_file=$(pwd)/$cg_file ;;
    esac
    if ! cg_list=$(cd / && callgrind_annotate --inclusive=yes --threshold=100 "$cg_file" 2>&1); then
        echo "callgrind lookup: callgrind_annotate failed on $cg_file: $cg_list" >&2
        return 1
    fi
    # the first entry of that name (listing by inclusive cost, highest first)
    cg_total=$(printf '%s\n' "$cg_list" | awk -v f="$cg_fn" '
        $1 ~ /^[0-9,]+$/ && $0 ~ (":" f "( \\[|$)") { gsub(",", "", $1); print $1; exit }')
    if [ -z "$cg_total" ]; then
        echo "callgrind lookup: $cg_file: no function named '$cg_fn' in the listing" >&2
        return 1
    fi
    if [ "$cg_total" -eq 0 ] || [ "$cg_calls" -le 0 ]; then
        echo "callgrind lookup: $cg_file: '$cg_fn' has $cg_total instructions over $cg_calls calls: impossible" >&2
        return 1
    fi
    awk -v t="$cg_total" -v n="$cg_calls" 'BEGIN { print t / n }'
}
