#!/usr/bin/env bash
# Build the Debian packages of a source tree with one Debian release's own
# toolchain: in an overlay on the cached build tree of tools/build-root.sh
# RELEASE (never written to), chrooted, as the unprivileged user nobody (as
# a buildd does; as root in a chroot the unit tests that make user
# namespaces fail: the kernel refuses CLONE_NEWUSER to a chrooted process).
# Used by tests/package/run.sh and tests/dkms/run.sh.
#
#   tests/package/build-debs.sh [--nocheck] [--lintian] RELEASE SRC OUT [DPKG-BUILDPACKAGE-ARG...]
#
# --nocheck DEB_BUILD_OPTIONS=nocheck: dh_auto_test does not run the unit
#           tests
# SRC       an unpacked source tree (e.g. `git archive HEAD`); copied, not
#           changed
# OUT       gets what dpkg-buildpackage made (.deb, .dsc, .tar.*, .buildinfo,
#           .changes), build.log, toolchain.txt (the versions of dpkg-dev,
#           debhelper, dh-dkms, gcc, libc6, libmount-dev, lintian in the
#           tree) and, with --lintian, lintian.txt and lintian.log: that
#           release's `lintian -EIL +pedantic --show-overrides` on the
#           .changes
# DPKG-BUILDPACKAGE-ARG  default -us -uc (source and binary)
#
# Exit status 0: built; 1: dpkg-buildpackage failed (OUT/build.log); 2: no
# build tree (OUT/build-root.log) or the harness broke. Progress and times
# on stderr. Needs root (chroot, mount; debootstrap on the first use).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=build-debs
lintian=no opts="parallel=$(nproc)"
while [ $# -gt 0 ]; do
	case $1 in
	--lintian) lintian=yes ;;
	--nocheck) opts="$opts nocheck" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 3 ] || usage
rel=$1 src=$2 out=$3
shift 3
[ $# -gt 0 ] || set -- -us -uc
[ -f "$src/debian/control" ] || die "$src has no debian/control"
need_root "chroot, mount"
mkdir -p "$out"

t0=$SECONDS
if ! tree=$("$top/tools/build-root.sh" "$rel" 2>"$out/build-root.log" | tail -n 1) || [ ! -d "$tree" ]; then
	log "no $rel build tree from tools/build-root.sh (see $out/build-root.log)"
	exit 2
fi
log "$rel build tree $tree ($((SECONDS - t0)) s)"

ovl=$(mktemp -d "${TMPDIR:-/tmp}/extown-build-debs.XXXXXX")
root=$ovl/root
mounted=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
	done
	# never remove through a mount that is still there
	if ! grep -q " $ovl/" /proc/mounts; then rm -rf "$ovl"; fi
}
trap cleanup EXIT
mkdir -p "$ovl/upper" "$ovl/work" "$root"
mount -t overlay overlay -o "lowerdir=$tree,upperdir=$ovl/upper,workdir=$ovl/work" "$root" || {
	log "cannot mount an overlay on $tree"
	exit 2
}
mounted+=("$root")
mount -t proc proc "$root/proc" || exit 2
mounted+=("$root/proc")

mkdir -p "$root/build/extown"
cp -a "$src/." "$root/build/extown/"
chown -R 65534:65534 "$root/build"

# as_nobody CMD...: CMD in the tree as nobody:nogroup, in /build, with a
# clean environment
as_nobody() {
	chroot --userspec=65534:65534 "$root" /usr/bin/env -i HOME=/build \
		PATH=/usr/local/bin:/usr/bin:/bin LC_ALL=C.UTF-8 DEB_BUILD_OPTIONS="$opts" \
		sh -c 'cd /build && exec "$@"' as_nobody "$@"
}

# shellcheck disable=SC2016 # dpkg-query's ${...}
in_root "$root" dpkg-query -W -f='${Package} ${Version}\n' \
	dpkg-dev debhelper dh-dkms gcc libc6 libmount-dev lintian >"$out/toolchain.txt" 2>&1 || true
start=$SECONDS
rc=0
as_nobody sh -c 'cd extown && exec dpkg-buildpackage "$@"' dpkg-buildpackage "$@" >"$out/build.log" 2>&1 || rc=$?
log "$rel: DEB_BUILD_OPTIONS='$opts' dpkg-buildpackage $* took $((SECONDS - start)) s (status $rc)"
[ "$rc" -eq 0 ] || exit 1
find "$root/build" -maxdepth 1 -type f -exec cp {} "$out/" \;

if [ "$lintian" = yes ]; then
	start=$SECONDS
	changes=("$root"/build/*.changes)
	as_nobody lintian --version >>"$out/toolchain.txt" 2>&1 || true
	as_nobody lintian -EIL +pedantic --show-overrides --tag-display-limit 0 "${changes[0]##*/}" \
		>"$out/lintian.txt" 2>"$out/lintian.log" || true
	log "$rel: lintian took $((SECONDS - start)) s"
fi
exit 0
