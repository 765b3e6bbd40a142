#!/usr/bin/env bash
# Build (once) the Debian 12 tree the fstests VM boots, and print its path.
# It is the tree of tools/e2e/mkroot.sh plus what fstests needs at run time
# (the list below) and its test users (fsgqa, fsgqa2, 123456-fsgqa, group
# fsgqa). Cached under ${EXTOWN_CACHE:-/var/cache/extown}/fstests/root-KEY,
# KEY from this script and the e2e tree it starts from.
#
#   tests/fstests/mkroot.sh        last stdout line: the cached tree
#
# Needs root (chroot, apt-get) and a reachable Debian mirror (the tree's
# own /etc/apt/sources.list). Nothing of fstests is in the tree:
# tests/fstests/run.sh copies the fstests checkout into a copy of it.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { echo "fstests-mkroot: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# What fstests runs (xfsprogs: mkfs.xfs and xfs_io, which fstests uses on
# every filesystem), and the shared libraries of its compiled helpers.
packages=(
	xfsprogs e2fsprogs quota bc attr acl psmisc fio dbench gawk perl
	python3 procps kmod util-linux file xz-utils keyutils libcap2-bin
	libaio1 liburing2 libgdbm6 libacl1 libattr1 libuuid1 libssl3
	strace time hostname sed findutils coreutils
)

[ "$(id -u)" -eq 0 ] || die "must run as root (chroot, apt-get)"
base=$("$top/tools/e2e/mkroot.sh" | tail -n 1) || die "tools/e2e/mkroot.sh failed"
cache=${EXTOWN_CACHE:-/var/cache/extown}/fstests
key=$({
	cat "${BASH_SOURCE[0]}"
	echo "$base"
} | sha256sum | cut -c1-16)
root=$cache/root-$key
if [ -f "$root/.extown-complete" ]; then
	log "cached tree $root"
	echo "$root"
	exit 0
fi

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/tmp-root.XXXXXX")
cleanup() {
	umount "$tmp/proc" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
log "copying $base"
cp -a "$base/." "$tmp/"
in_root() { chroot "$tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
mount -t proc proc "$tmp/proc"
start=$SECONDS
log "apt-get install ${packages[*]}"
{
	in_root apt-get update &&
		in_root apt-get install -y --no-install-recommends "${packages[@]}"
} >"$cache/mkroot-apt.log" 2>&1 || die "apt-get in the tree failed: see $cache/mkroot-apt.log"
log "apt-get took $((SECONDS - start)) s"
umount "$tmp/proc"
in_root groupadd fsgqa
in_root useradd -m -g fsgqa fsgqa
in_root useradd -m fsgqa2
in_root useradd -m 123456-fsgqa
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
touch "$tmp/.extown-complete"

rm -rf "$root"
mv "$tmp" "$root"
trap - EXIT
for old in "$cache"/root-*; do
	[ "$old" = "$root" ] || rm -rf "$old"
done
log "tree ready: $root ($(du -sh "$root" | cut -f1))"
echo "$root"
