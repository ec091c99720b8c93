#!/bin/sh
# install-papi.sh install|uninstall PAPI_PREFIX DESTDIR PREFIX BINDIR LIBDIR
#                 INCLUDEDIR MANDIR PKGDATADIR PATCHELF
#
# Install the PAPI built with the papi-torus components (PAPI_PREFIX, the
# build tree's papi/prefix) into the project's installation: its programs
# into BINDIR, libpapi and libsde into LIBDIR, its headers, papi*.pc (prefix
# rewritten) and man pages.  The programs and libraries were linked with run
# paths into the build tree; PATCHELF sets them to LIBDIR, where libtorusemu
# is installed too.  DESTDIR is prepended to every path written (staged
# installs).  The list of installed files goes to PKGDATADIR/papi.files for
# `uninstall`, which removes exactly those files.
set -eu
[ $# -eq 10 ] || { echo "install-papi.sh: 10 arguments expected" >&2; exit 2; }
action=$1 papi=$2 dest=$3 prefix=$4 bindir=$5 libdir=$6 includedir=$7 mandir=$8
pkgdatadir=$9 patchelf=${10}
manifest="$dest$pkgdatadir/papi.files"

if [ "$action" = uninstall ]; then
    [ -f "$manifest" ] || exit 0
    while IFS= read -r f; do
        rm -f "$dest$f"
    done <"$manifest"
    rm -f "$manifest"
    exit 0
fi

[ "$action" = install ] || { echo "install-papi.sh: install or uninstall" >&2; exit 2; }
[ -x "$papi/bin/papi_avail" ] || {
    echo "install-papi.sh: no PAPI in $papi (make papi)" >&2
    exit 1
}
if [ "$patchelf" = no ] || [ -z "$patchelf" ]; then
    echo "install-papi.sh: patchelf is needed to install PAPI (Debian: apt-get install patchelf)" >&2
    exit 1
fi
mkdir -p "$dest$bindir" "$dest$libdir/pkgconfig" "$dest$includedir" "$dest$mandir/man1" \
    "$dest$mandir/man3" "$dest$pkgdatadir"
list=$(mktemp "${TMPDIR:-/tmp}/install-papi.XXXXXX")
trap 'rm -f "$list"' EXIT

# put FILE DIR: copy FILE (symlinks kept as links) into DIR, record it
put() {
    cp -P "$1" "$dest$2/"
    echo "$2/$(basename "$1")" >>"$list"
}
# ELF files get the installation's run path
relink() {
    if [ ! -L "$1" ] && head -c 4 "$1" | grep -q ELF; then
        "$patchelf" --set-rpath "$libdir" "$1"
    fi
}

for f in "$papi"/bin/*; do
    put "$f" "$bindir"
    relink "$dest$bindir/$(basename "$f")"
done
for f in "$papi"/lib/libpapi.* "$papi"/lib/libsde.*; do
    [ -e "$f" ] || continue
    put "$f" "$libdir"
    relink "$dest$libdir/$(basename "$f")"
done
for f in "$papi"/include/*; do
    put "$f" "$includedir"
done
for f in "$papi"/lib/pkgconfig/papi*.pc; do
    sed -e "s|^prefix=.*|prefix=$prefix|" -e "s|^libdir=.*|libdir=$libdir|" \
        -e "s|^includedir=.*|includedir=$includedir|" "$f" >"$dest$libdir/pkgconfig/$(basename "$f")"
    echo "$libdir/pkgconfig/$(basename "$f")" >>"$list"
done
for sec in 1 3; do
    for f in "$papi"/share/man/man$sec/*; do
        [ -e "$f" ] || continue
        put "$f" "$mandir/man$sec"
    done
done
cp "$list" "$manifest"
echo "install-papi.sh: PAPI with the papi-torus components installed in $dest$prefix" \
    "($(wc -l <"$list") files)"
