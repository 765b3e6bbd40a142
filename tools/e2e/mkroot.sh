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
log() { echo "mkroot: $*" >&2; }
die() {
	log "$*"
	exit 1
}

packages=(
	systemd systemd-sysv udev dbus libpam-systemd udisks2 polkitd
	e2fsprogs kmod util-linux mount
)

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot)"
"$top/tools/e2e/install-deps.sh" >&2

cache=${EXTOWN_CACHE:-/var/cache/extown}/e2e
key=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
root=$cache/root-$key
if [ -f "$root/.extown-complete" ]; then
	log "cached tree $root"
	echo "$root"
	exit 0
fi

mirror=${EXTOWN_E2E_MIRROR:-}
if [ -z "$mirror" ]; then
	# deb822 (URIs: ...) or one-line (deb URI suite ...) sources
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
	[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $2 !~ /security/ && $3 ~ /^bookworm/ { print $2; exit }')
fi
[ -n "$mirror" ] || die "no Debian mirror found in the apt sources; set EXTOWN_E2E_MIRROR"

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/tmp-root.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
include=$(
	IFS=,
	echo "${packages[*]}"
)
log "debootstrap bookworm (minbase + $include) from $mirror"
start=$SECONDS
debootstrap --variant=minbase --include="$include" bookworm "$tmp" "$mirror" >&2 ||
	die "debootstrap failed (its log: $tmp/debootstrap/debootstrap.log)"
log "debootstrap took $((SECONDS - start)) s"

in_root() { chroot "$tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_root groupadd -g 1000 alice
in_root useradd -m -u 1000 -g 1000 -s /bin/bash alice
in_root groupadd -g 1001 bob
in_root useradd -m -u 1001 -g 1001 -s /bin/bash bob
echo extown-e2e >"$tmp/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 extown-e2e\n' >"$tmp/etc/hosts"
: >"$tmp/etc/fstab"
# A machine-id makes this boot no "first boot" (systemd-firstboot would
# prompt on the console).
rm -f "$tmp/etc/machine-id"
in_root systemd-machine-id-setup >&2
# Nothing reads a getty or waits for timers in a test boot.
for unit in getty@tty1.service serial-getty@ttyS0.service console-getty.service \
	apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer systemd-timesyncd.service; do
	ln -sf /dev/null "$tmp/etc/systemd/system/$unit"
done
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*_Packages
touch "$tmp/.extown-complete"

rm -rf "$root"
mv "$tmp" "$root"
trap - EXIT
# older trees of this script are of no use any more
for old in "$cache"/root-*; do
	[ "$old" = "$root" ] || rm -rf "$old"
done
log "tree ready: $root ($(du -sh "$root" | cut -f1))"
echo "$root"
