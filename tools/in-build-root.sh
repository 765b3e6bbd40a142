#!/usr/bin/env bash
# Run a command of this checkout inside a throw-away copy of a release's
# build tree (tools/build-root.sh RELEASE), so that the release's compiler
# and libmount build and run it: the unit and fuzz suites run this way for
# every release of tools/releases besides the host's own.
#
#   tools/in-build-root.sh RELEASE CMD [ARG...]
#
# In a private mount namespace: an overlay over the cached tree (which is
# never written), the checkout copied into it at its own path (without
# build/ and .git), the host's $top/build/RELEASE bound on its build/ (so
# logs, fuzz corpora and crash files stay on the host), /proc, /dev and
# /sys. CMD (a path of the checkout, or a command of the tree) runs with the
# tree as its root (pivot_root, not chroot: user namespaces work there) and
# in_root's clean environment plus EXTOWN_RELEASE=RELEASE and the
# EXTOWN_FUZZ_SECONDS, EXTOWN_FUZZ_JOBS and EXTOWN_KEEP of the caller.
# Everything is gone when CMD ends; its exit status is this script's.
# Needs root.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=in-build-root
[ $# -ge 2 ] || usage
release=$1
shift
need_root "chroot and mounts"

if [ -z "${EXTOWN_BUILD_ROOT_TREE:-}" ]; then
	tree=$("$top/tools/build-root.sh" "$release" | tail -n 1) ||
		die "no build tree for $release (tools/build-root.sh $release failed)"
	[ -d "$tree/usr" ] || die "tools/build-root.sh $release printed '$tree', not a tree"
	EXTOWN_BUILD_ROOT_TREE=$tree exec unshare --mount --propagation private "$0" "$release" "$@"
fi

# in the private mount namespace from here
tree=$EXTOWN_BUILD_ROOT_TREE
w=$(mktemp -d "${TMPDIR:-/var/tmp}/extown-root-$release.XXXXXX")
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	umount -R "$w/root" 2>/dev/null || umount -R -l "$w/root" 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT
mkdir -p "$w/upper" "$w/work" "$w/root" "$top/build/$release"
mount -t overlay overlay -o "lowerdir=$tree,upperdir=$w/upper,workdir=$w/work" "$w/root"
mkdir -p "$w/root$top"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$w/root$top" -xf -
mkdir -p "$w/root$top/build"
mount --bind "$top/build/$release" "$w/root$top/build"
mount -t proc proc "$w/root/proc"
mount --rbind /dev "$w/root/dev"
mount --rbind /sys "$w/root/sys"
# The tree becomes the root of a mount namespace of its own (pivot_root in
# a nested one, so that this script keeps the host's root for its clean-up),
# not a chroot: the kernel refuses user namespaces, which idmapped mounts
# need, to a chrooted process.
rc=0
# shellcheck disable=SC2016 # expanded by the inner bash
unshare --mount --propagation private -- bash -c '
	set -e
	cd "$1"
	mkdir -p .host
	pivot_root . .host
	cd /
	umount -l /.host
	rmdir /.host
	# the checkout, as on the host (libudev under umockdev-wrapper finds
	# nothing when the working directory is /)
	cd "$2"
	shift 2
	exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' in-build-root "$w/root" "$top" \
	EXTOWN_RELEASE="$release" \
	EXTOWN_FUZZ_SECONDS="${EXTOWN_FUZZ_SECONDS:-}" EXTOWN_FUZZ_JOBS="${EXTOWN_FUZZ_JOBS:-}" \
	EXTOWN_KEEP="${EXTOWN_KEEP:-}" TMPDIR=/tmp "$@" || rc=$?
exit "$rc"
