#!/bin/sh
# installcheck.sh BINDIR LIBDIR MANDIR VERSION MPICC - what `make
# installcheck` (and so `make distcheck`) checks in an installed papi-torus:
# the programs run from BINDIR, a program builds with `pkg-config --cflags
# --libs torusemu` (and torusemu-mpi) and runs, the man pages are there, and
# the installed PAPI lists the components and finds libpapi and libtorusemu
# in LIBDIR, not in the build tree.
. "${top_srcdir:-.}/tests/lib.sh"
bindir=$1 libdir=$2 mandir=$3 version=$4 mpicc=$5
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

expect_ok "installed torusemu --version" "$bindir/torusemu" --version
expect_out "installed version" "^torusemu \(papi-torus\) $version$"
expect_ok "pkg-config torusemu" pkg-config --modversion torusemu
expect_out "pkg-config version" "^$version$"

# a program against the installed library, flags from pkg-config only
cat >"$TMP/app.c" <<'PROG'
#include <torusemu.h>
#if TEMU_VERSION_NUMBER < TEMU_VERSION_ENCODE(0, 1, 0)
#error "TEMU_VERSION_NUMBER"
#endif
int main(void)
{
    temu_machine m;
    if (temu_machine_parse("midplane", &m, NULL) != TEMU_OK) {
        return 1;
    }
    printf("%s %lld nodes\n", TEMU_VERSION, (long long)m.nnodes);
    return 0;
}
PROG
# shellcheck disable=SC2046
expect_ok "cc with pkg-config torusemu" sh -c "cc -o '$TMP/app' '$TMP/app.c' \
    \$(pkg-config --cflags --libs torusemu) -Wl,-rpath,\$(pkg-config --variable=libdir torusemu)"
expect_ok "program runs" "$TMP/app"
expect_out "program output" "^$version 512 nodes$"
expect_ok "ldd app" ldd "$TMP/app"
expect_out "libtorusemu from libdir" "libtorusemu\.so\.0 => $libdir/libtorusemu\.so\.0"

# the MPI layer: linked by pkg-config torusemu-mpi, run by the installed
# launcher (which finds the layer beside itself, in ../lib)
if [ -n "$mpicc" ] && [ "$mpicc" != no ]; then
    cat >"$TMP/mpiapp.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
PROG
    expect_ok "mpicc with pkg-config torusemu-mpi" sh -c "'$mpicc' -o '$TMP/mpiapp' \
        '$TMP/mpiapp.c' \$(pkg-config --libs torusemu-mpi) \
        -Wl,-rpath,\$(pkg-config --variable=libdir torusemu-mpi)"
    expect_ok "ldd mpiapp" ldd "$TMP/mpiapp"
    expect_out "layer linked from libdir" "libtorusemu_mpi\.so\.0 => $libdir/"
    expect_ok "installed torusemu run" "$bindir/torusemu" run --machine gemini-tiny -np 2 \
        --keep "$TMP/run.store" -- "$TMP/mpiapp"
    expect_ok "dump the run" "$bindir/torusemu" dump "$TMP/run.store"
    expect_out "one message of 4 bytes counted" "messages 1  bytes 4$"
fi

# man pages, one per command
for page in torusemu torusemu-machine torusemu-route torusemu-interconnect torusemu-create \
    torusemu-inject torusemu-dump torusemu-reset torusemu-demo torusemu-run torusemu-plot \
    torusemu-series torusemu-analyze torusemu-stalls; do
    if [ -f "$mandir/man1/$page.1" ]; then
        expect_ok "man $page" sh -c "MANWIDTH=80 man -l '$mandir/man1/$page.1' 2>/dev/null"
        expect_out "man $page NAME" "^ +$page +- +[a-z]"
    else
        failed "no man page $mandir/man1/$page.1"
    fi
done

# the installed PAPI: our components, libraries resolved in libdir
expect_ok "installed papi_component_avail" "$bindir/papi_component_avail"
for c in gemini_tile bgp_torus bgq_nwunit bgq_l2unit bgq_iounit bgq_cnkunit; do
    expect_out "component $c" "Name: +$c "
done
expect_ok "ldd papi_avail" ldd "$bindir/papi_avail"
expect_out "libpapi from libdir" "libpapi\.so\.[0-9.]+ => $libdir/libpapi"
expect_ok "ldd libpapi" ldd "$libdir/libpapi.so"
expect_out "libtorusemu of libpapi from libdir" "libtorusemu\.so\.0 => $libdir/libtorusemu"
expect_ok "pkg-config papi" pkg-config --cflags papi
expect_out "papi.pc names the installed headers" "^-I${libdir%/lib}/include *$"
finish
