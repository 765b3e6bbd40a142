#!/usr/bin/env bash
# Build the mount.ext4 helper out of tree, configured as it is installed
# (--prefix=/usr --sysconfdir=/etc, -Werror): the one way the test suites,
# the benchmarks and the hardening check build it.
#
#   tools/build-helper.sh [--src TREE] [--install DESTDIR] BUILDDIR
#
# --src TREE         build that checkout (default: this one), e.g. a
#                    `git worktree` of an older commit
# --install DESTDIR  then `make install DESTDIR=DESTDIR` (the whole
#                    userspace: the setuid helper, its links, man pages,
#                    udev rules)
# autoreconf runs in TREE only when configure is missing or older than
# configure.ac / Makefile.am. The build output goes to BUILDDIR/build.log.
# Last stdout line: the path of the built mount.ext4. Exit 1 (with the
# log's last lines on stderr) when a step fails, 2 on usage errors.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG='build-helper'

src=$top dest=''
while [ $# -gt 1 ]; do
	case $1 in
	--src) src=$(cd "$2" && pwd); shift 2 ;;
	--install) dest=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
mkdir -p "$1"
build=$(cd "$1" && pwd)
log=$build/build.log
: >"$log"
{
	if [ ! -x "$src/configure" ] || [ "$src/configure.ac" -nt "$src/configure" ] ||
		[ "$src/Makefile.am" -nt "$src/Makefile.in" ]; then
		(cd "$src" && autoreconf -fi)
	fi
	if [ ! -f "$build/Makefile" ] || [ "$src/configure" -nt "$build/Makefile" ]; then
		(cd "$build" && "$src/configure" --prefix=/usr --sysconfdir=/etc --enable-werror)
	fi
	make -C "$build" -j"$(nproc)" mount.ext4
	if [ -n "$dest" ]; then
		make -C "$build" -j"$(nproc)" install DESTDIR="$dest"
	fi
} >>"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	die "cannot build mount.ext4 from $src (see $log)"
}
echo "$build/mount.ext4"
