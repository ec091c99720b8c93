#!/bin/sh
# papi-build.sh SRCDIR PAPIDIR TORUSLIB GENDIR COMPONENT... - build PAPI 7.0.0
# from Debian's source package with the papi-torus components compiled in,
# and install it (libpapi, utilities, component tests) into PAPIDIR/prefix.
#
#   SRCDIR    the project's source tree (components/ lives there)
#   PAPIDIR   cache directory, normally $(builddir)/papi
#   TORUSLIB  directory holding the built libtorusemu.so* (libtool's .libs)
#   GENDIR    directory holding the generated <c>/<c>_table.[ch]
#
# Everything is cached in PAPIDIR: the source is fetched and unpacked once,
# configure runs again only when the component list changes, and make is
# incremental, so a rebuild with unchanged components does nothing.
# The source comes from `apt-get source papi` through a private sources list
# (deb.debian.org bookworm main deb-src) and private apt state directories:
# the machine's apt configuration is not touched.  See doc/papi-build.md.
set -eu
# PAPI's own install honours DESTDIR: a staged `make install DESTDIR=...` of
# papi-torus (which exports it) must not move this build-tree PAPI
unset DESTDIR

PAPI_VERSION=7.0.0
PAPI_DEBIAN=7.0.0-2

die() {
    echo "papi-build: $*" >&2
    exit 1
}

[ $# -ge 5 ] || die "usage: papi-build.sh SRCDIR PAPIDIR TORUSLIB GENDIR COMPONENT..."
SRC=$(cd "$1" && pwd)
mkdir -p "$2"
P=$(cd "$2" && pwd)
TORUSLIB=$(cd "$3" && pwd)
GEN=$(cd "$4" && pwd)
shift 4
COMPONENTS="$*"
TREE="$P/papi-$PAPI_VERSION"
PREFIX="$P/prefix"
LOG="$P/build.log"

# ---------------------------------------------------------------- fetch
if [ ! -f "$P/source.stamp" ]; then
    A="$P/apt"
    rm -rf "$A" "$TREE" "$P/dl"
    mkdir -p "$A/parts" "$A/lists/partial" "$A/cache/archives/partial" "$P/dl"
    cat >"$A/parts/papi-torus-src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    APTOPTS="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$A/parts \
-o Dir::State::Lists=$A/lists -o Dir::Cache=$A/cache -o APT::Sandbox::User=root"
    echo "papi-build: fetching the Debian source of papi $PAPI_DEBIAN (private apt lists in $A)"
    # shellcheck disable=SC2086
    if ! apt-get $APTOPTS update >"$P/fetch.log" 2>&1; then
        tail -n 5 "$P/fetch.log" >&2
        die "cannot fetch PAPI $PAPI_VERSION: 'apt-get update' of the private deb-src list failed (log: $P/fetch.log)"
    fi
    # shellcheck disable=SC2086
    if ! (cd "$P/dl" && apt-get $APTOPTS source "papi=$PAPI_DEBIAN") >>"$P/fetch.log" 2>&1; then
        tail -n 5 "$P/fetch.log" >&2
        die "cannot fetch PAPI $PAPI_VERSION: 'apt-get source papi=$PAPI_DEBIAN' failed (log: $P/fetch.log)"
    fi
    [ -d "$P/dl/papi-$PAPI_VERSION/src" ] || die "apt-get source left no papi-$PAPI_VERSION/src tree"
    mv "$P/dl/papi-$PAPI_VERSION" "$TREE"
    rm -rf "$P/dl" "$A"
    touch "$P/source.stamp"
fi

# ------------------------------------------------- libtorusemu and paths
mkdir -p "$PREFIX/lib"
for f in "$TORUSLIB"/libtorusemu.so*; do
    [ -e "$f" ] || die "no libtorusemu.so in $TORUSLIB (build the project first)"
    cp -P "$f" "$PREFIX/lib/"
done
COMMON="$TREE/src/components/torus_common"
rm -rf "$COMMON"
cp -as "$SRC/components/common" "$COMMON"
cat >"$COMMON/torus_paths.mk.new" <<EOF
# written by papi-build.sh
TORUS_INCDIR = $SRC/include
TORUS_LIBDIR = $PREFIX/lib
TORUS_PREFIX = $PREFIX
EOF
mv "$COMMON/torus_paths.mk.new" "$COMMON/torus_paths.mk"

# ------------------------------------------------------ shadow components
# cp -as: real directories, every file a symlink.  A symlinked directory
# would build the library but silently drop the component's tests
# (PAPI 7.0.0 configure finds component tests with find, which does not enter a symlink).
for c in $COMPONENTS; do
    [ -f "$SRC/components/$c/Rules.$c" ] || die "component $c has no components/$c/Rules.$c"
    [ -f "$GEN/$c/${c}_table.c" ] || die "no generated table $GEN/$c/${c}_table.c"
    rm -rf "$TREE/src/components/$c"
    cp -as "$SRC/components/$c" "$TREE/src/components/$c"
    # -f: in an in-tree build the copy above already linked them
    ln -sf "$GEN/$c/${c}_table.c" "$GEN/$c/${c}_table.h" "$TREE/src/components/$c/"
done

# ------------------------------------------------------------- configure
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
want="$COMPONENTS|$PREFIX|$MULTIARCH"
if [ ! -f "$TREE/src/Makefile" ] || [ "$(cat "$P/configure.stamp" 2>/dev/null)" != "$want" ]; then
    echo "papi-build: configure PAPI with: $COMPONENTS"
    if ! (cd "$TREE/src" && ./configure --prefix="$PREFIX" --with-components="$COMPONENTS" \
        --with-perf-events --with-shlib-tools --with-pfm-incdir=/usr/include \
        --with-pfm-libdir="/usr/lib/$MULTIARCH" LDFLAGS="-Wl,-rpath,$PREFIX/lib") \
        >"$P/configure.log" 2>&1; then
        tail -n 20 "$P/configure.log" >&2
        die "PAPI configure failed (log: $P/configure.log)"
    fi
    echo "$want" >"$P/configure.stamp"
fi

# ------------------------------------------------------- make, install
echo "papi-build: make (log: $LOG)"
if ! make -C "$TREE/src" -j2 >"$LOG" 2>&1; then
    grep -E "error|Error" "$LOG" | head -n 30 >&2
    die "PAPI make failed (log: $LOG)"
fi
if ! make -C "$TREE/src" install-all >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" >&2
    die "PAPI make install-all failed (log: $LOG)"
fi
# share/papi/run_tests.sh runs every executable in components/*/tests
# except those listed in run_tests_exclude.txt: keep out the programs
# there that are tools and benchmarks, not tests (they do not speak PAPI's
# test protocol; ctests/run_tests.sh checks the rest does)
EXCLUDE="$PREFIX/share/papi/run_tests_exclude.txt"
for tool in gemini_tile/tests/torus_count gemini_tile/tests/torus_bench \
    bgq_nwunit/tests/torus_ovf_bench; do
    grep -qx "components/$tool" "$EXCLUDE" 2>/dev/null || echo "components/$tool" >>"$EXCLUDE"
done
"$PREFIX/bin/papi_component_avail" >"$P/component_avail.txt" 2>&1 || true
for c in $COMPONENTS; do
    grep -q "Name: *$c " "$P/component_avail.txt" ||
        die "papi_component_avail does not list $c (see $P/component_avail.txt)"
done
echo "papi-build: PAPI $PAPI_VERSION with $COMPONENTS installed in $PREFIX"
