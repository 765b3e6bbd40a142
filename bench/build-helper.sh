#!/usr/bin/env bash
# Build the mount.ext4 helper out of tree for the benchmarks, configured as
# it is installed (--prefix=/usr --sysconfdir=/etc). Runs autoreconf only
# when configure is missing or older than configure.ac / Makefile.am.
#
#   bench/build-helper.sh BUILDDIR
#
# Last stdout line: the path of the built mount.ext4. The build output
# goes to BUILDDIR/build.log.
set -euo pipefail

[ $# -eq 1 ] || {
	echo "usage: $0 BUILDDIR" >&2
	exit 2
}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$1"
build=$(cd "$1" && pwd)
{
	if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] ||
		[ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
		(cd "$top" && autoreconf -fi)
	fi
	(cd "$build" && "$top/configure" --prefix=/usr --sysconfdir=/etc) &&
		make -C "$build" -j"$(nproc)" mount.ext4
} >"$build/build.log" 2>&1 || {
	echo "bench: cannot build mount.ext4 (see $build/build.log)" >&2
	exit 1
}
echo "$build/mount.ext4"
