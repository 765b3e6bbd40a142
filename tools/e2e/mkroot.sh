#!/usr/bin/env bash
# Build (once) the Debian root tree of a release that the end-to-end tests
# boot, and print its path. Cached: the tree is kept under
# ${EXTOWN_CACHE:-/var/cache/extown}/e2e/ keyed on the sha256 of this script
# (which holds the package list and every step) and the release's line of
# tools/releases, so an unchanged script answers in well under a second.
#
#   tools/e2e/mkroot.sh [RELEASE]  last stdout line: the cached tree
#
# RELEASE: a codename of tools/releases (default: its first line).
# The tree: debootstrap --variant=minbase RELEASE plus the packages below
# (the desktop's automounters GVfs and udiskie among them), the release's
# suites in /etc/apt/sources.list, users alice (1000:1000) and bob
# (1001:1001), a machine-id, the serial getty and timers that only slow a
# test boot masked. Nothing of the project is in it: tests/e2e/run.sh copies
# it and runs `make install DESTDIR=` into the copy.
# Mirror: EXTOWN_E2E_MIRROR, else the first Debian URI of the host's apt
# sources. Needs root (debootstrap, chroot); installs debootstrap itself
# (tools/e2e/install-deps.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=mkroot
[ $# -le 1 ] || usage
release=${1:-$(release_default)}
release_field "$release" version >/dev/null ||
	die "unknown release '$release' (tools/releases: $(releases_all | tr '\n' ' '))"

packages=(
	systemd systemd-sysv udev dbus libpam-systemd udisks2 polkitd
	e2fsprogs kmod util-linux mount
	# the desktop session's clients of udisks: GVfs (gio mount, the volume
	# monitor GNOME and Xfce use) on the user's session bus, and udiskie
	dbus-user-session gvfs gvfs-daemons libglib2.0-bin udiskie
)

# build TREE: debootstrap and the set-up below, into TREE
build() {
	local tmp=$1 mirror include unit start=$SECONDS
	mirror=$(release_mirror)
	include=$(
		IFS=,
		echo "${packages[*]}"
	)
	log "debootstrap $release (minbase + $include) from $mirror"
	debootstrap --variant=minbase --include="$include" "$release" "$tmp" "$mirror" ||
		die "debootstrap failed (its log: $tmp/debootstrap/debootstrap.log)"
	release_sources "$release" "$mirror" >"$tmp/etc/apt/sources.list"
	log "debootstrap took $((SECONDS - start)) s"

	in_root "$tmp" groupadd -g 1000 alice
	in_root "$tmp" useradd -m -u 1000 -g 1000 -s /bin/bash alice
	in_root "$tmp" groupadd -g 1001 bob
	in_root "$tmp" useradd -m -u 1001 -g 1001 -s /bin/bash bob
	echo extown-e2e >"$tmp/etc/hostname"
	printf '127.0.0.1 localhost\n127.0.1.1 extown-e2e\n' >"$tmp/etc/hosts"
	: >"$tmp/etc/fstab"
	# A machine-id makes this boot no "first boot" (systemd-firstboot would
	# prompt on the console).
	rm -f "$tmp/etc/machine-id"
	in_root "$tmp" systemd-machine-id-setup
	# Nothing reads the serial getty or waits for timers in a test boot
	# (tty1 is where alice logs in: tests/e2e/guest.sh).
	for unit in serial-getty@ttyS0.service console-getty.service \
		apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
		fstrim.timer systemd-timesyncd.service; do
		ln -sf /dev/null "$tmp/etc/systemd/system/$unit"
	done
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
}

need_root "debootstrap, chroot"
"$top/tools/e2e/install-deps.sh" >&2
cache_tree e2e "root-$release" "$(cache_key "${BASH_SOURCE[0]}" "$(grep "^$release\s" "$releases_table")")" build
