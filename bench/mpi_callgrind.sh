# mpi_callgrind.sh - common set-up of the MPI instruction-count benchmarks
# (sourced with $B the build directory and $NAME the benchmark's name):
# valgrind must be there; mpi_setup.sh; $CG runs a rank under callgrind,
# writing $T/<CFG>.<rank>; cg_per_call reads a figure from such a file
# (callgrind_lookup.sh).
command -v valgrind >/dev/null || {
    echo "$NAME: valgrind not installed" >&2
    exit 1
}
# shellcheck source=bench/mpi_setup.sh
. "$(dirname "$0")/mpi_setup.sh"
# shellcheck source=bench/callgrind_lookup.sh
. "$(dirname "$0")/callgrind_lookup.sh"
export TORUSEMU_MPI_QUIET=1
# shellcheck disable=SC2034
CG="valgrind --tool=callgrind --callgrind-out-file=$T/%q{CFG}.%q{OMPI_COMM_WORLD_RANK}"
