# mpi_setup.sh - common set-up of the MPI benchmarks (sourced with $B the
# build directory): the program, the launcher, a private directory $T with
# the two placements (BG/Q midplane and Gemini torus, ranks one hop apart),
# mpirun's root option, Open MPI settings for one host and median().
PROG="$B/bench/bench_mpi"
TORUSEMU="$B/torusemu"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo
printf '0 0 0 0 0 0\n0 0 0 0 1 0\n' >"$T/bgq.map"
printf '0 0 0 0 0\n1 0 0 0 0\n' >"$T/gem.map"

# median KIND SIZE FILE
median() {
    awk -v k="$1" -v s="$2" '$1 == k && $2 == s { print $3 }' "$3" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
