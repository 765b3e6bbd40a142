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
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
T_LOG='fstests-mkroot'

# What fstests runs (xfsprogs: mkfs.xfs and xfs_io, which fstests uses on
# every filesystem), and the shared libraries of its compiled helpers.
packages=(
	xfsprogs e2fsprogs quota bc attr acl psmisc fio dbench gawk perl
	python3 procps kmod util-linux file xz-utils keyutils libcap2-bin
	libaio1 liburing2 libgdbm6 libacl1 libattr1 libuuid1 libssl3
	strace time hostname sed findutils coreutils
)

# build TREE BASE: BASE's tree plus the packages and users fstests needs
build() {
	local tmp=$1 base=$2 start=$SECONDS
	log "copying $base"
	cp -a "$base/." "$tmp/"
	rm -f "$tmp/.extown-complete"
	cache_mount -t proc proc "$tmp/proc"
	log "apt-get install ${packages[*]}"
	{
		in_root "$tmp" apt-get update &&
			in_root "$tmp" apt-get install -y --no-install-recommends "${packages[@]}"
	} >"$tmp.apt.log" 2>&1 || die "apt-get in the tree failed: see $tmp.apt.log"
	rm -f "$tmp.apt.log"
	log "apt-get took $((SECONDS - start)) s"
	cache_umount_all
	in_root "$tmp" groupadd fsgqa
	in_root "$tmp" useradd -m -g fsgqa fsgqa
	in_root "$tmp" useradd -m fsgqa2
	in_root "$tmp" useradd -m 123456-fsgqa
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
}

need_root "chroot, apt-get"
base=$("$top/tools/e2e/mkroot.sh" bookworm | tail -n 1) || die "tools/e2e/mkroot.sh failed"
cache_tree fstests root "$(cache_key "${BASH_SOURCE[0]}" "$base")" build "$base"
