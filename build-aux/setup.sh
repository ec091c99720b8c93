#!/bin/sh
# setup.sh [BUILD_DIR [TARGET]] - everything a fresh Debian 12 machine needs: the
# Debian packages the project builds and tests with, autoreconf, configure
# in BUILD_DIR (default _build, out of tree) and make.  Idempotent: a second
# run only rebuilds what changed.  TARGET is the make target that follows
# (fuzz adds clang and libFuzzer).
set -eu
cd "$(dirname "$0")/.."
SRC=$(pwd)
BUILD=${1:-_build}

PACKAGES="build-essential autoconf automake libtool pkg-config check
libopenmpi-dev openmpi-bin gfortran libpfm4-dev dpkg-dev help2man patchelf gnuplot-nox graphviz
libopen-trace-format2-dev otf2-tools valgrind"
# `make fuzz` (fuzz/local.mk) needs clang and its libFuzzer runtime
if [ "${2:-}" = fuzz ]; then
    PACKAGES="$PACKAGES clang libclang-rt-14-dev"
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    log=/tmp/papi-torus-apt.log
    # shellcheck disable=SC2086
    if ! $SUDO apt-get install -y -q $missing >"$log" 2>&1; then
        $SUDO apt-get update -q >>"$log" 2>&1 || true
        # shellcheck disable=SC2086
        $SUDO apt-get install -y -q $missing >>"$log" 2>&1 || {
            echo "setup: apt-get failed; see $log" >&2
            exit 1
        }
    fi
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    echo "setup: autoreconf"
    autoreconf -fi >/tmp/papi-torus-autoreconf.log 2>&1 || {
        cat /tmp/papi-torus-autoreconf.log >&2
        exit 1
    }
fi
mkdir -p "$BUILD"
cd "$BUILD"
if [ ! -f Makefile ] || [ "$SRC/configure" -nt config.status ]; then
    echo "setup: configure ($BUILD)"
    "$SRC/configure" --quiet
fi
make -j2 --no-print-directory >/dev/null
