#!/usr/bin/env bash
# Build (once) the Debian 12 root tree the end-to-end tests boot, and print
# its path. Cached: the tree is kept under ${EXTOWN_CACHE:-/var/cache/extown}/e2e/
# keyed on the sha256 of this script (which holds the package list and every
# step), so an unchanged script answers in well under a second.
#
#   tools/e2e/mkroot.sh            last stdout line: the cached tree
#
# The tree: debootstrap --variant=minbase bookworm plus the packages below,
# users alice (1000:1000) and bob (1001:1001), a machine-id, gettys and
# timers that only slow a test boot masked. Nothing of the project is in it:
# tests/e2e/run.sh copies it and runs `make install DESTDIR=` into the copy.
# Mirror: EXTOWN_E2E_MIRROR, else the first Debian URI of the host's apt
# sources. Needs root (debootstrap, chroot); installs debootstrap itself
# (tools/e2e/install-deps.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
T_LOG=mkroot

packages=(
	systemd systemd-sysv udev dbus libpam-systemd udisks2 polkitd
	e2fsprogs kmod util-linux mount
)

# build TREE: debootstrap and the set-up below, into TREE
build() {
	local tmp=$1 mirror=${EXTOWN_E2E_MIRROR:-} include unit start=$SECONDS
	if [ -z "$mirror" ]; then
		# deb822 (URIs: ...) or one-line (deb URI suite ...) sources
		mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
		[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $2 !~ /security/ && $3 ~ /^bookworm/ { print $2; exit }')
	fi
	[ -n "$mirror" ] || die "no Debian mirror found in the apt sources; set EXTOWN_E2E_MIRROR"
	include=$(
		IFS=,
		echo "${packages[*]}"
	)
	log "debootstrap bookworm (minbase + $include) from $mirror"
	debootstrap --variant=minbase --include="$include" bookworm "$tmp" "$mirror" ||
		die "debootstrap failed (its log: $tmp/debootstrap/debootstrap.log)"
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
	# Nothing reads a getty or waits for timers in a test boot.
	for unit in getty@tty1.service serial-getty@ttyS0.service console-getty.service \
		apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
		fstrim.timer systemd-timesyncd.service; do
		ln -sf /dev/null "$tmp/etc/systemd/system/$unit"
	done
	rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
}

need_root "debootstrap, chroot"
"$top/tools/e2e/install-deps.sh" >&2
cache_tree e2e root "$(cache_key "${BASH_SOURCE[0]}")" build
