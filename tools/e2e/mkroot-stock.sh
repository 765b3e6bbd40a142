#!/usr/bin/env bash
# Build (once) a Debian root tree of a release with that release's own stock
# kernels, and print its path: the tree of tools/e2e/mkroot.sh RELEASE plus,
# for each base of release_tree_bases (tests/lib/releases.sh: on the first
# release of tools/releases every base of its STOCK column, on the others
# the release's own base and those EXTOWN_KERNEL_BASES asks to boot there),
#
#   the release's linux-image of that base, at the version of its
#   linux-source-BASE (Debian 12: linux-image-6.1.0-NN-amd64, the ABI that
#   linux-image-amd64 depends on, and linux-image-6.12.N+deb12-amd64 of
#   bookworm-security; Debian 13: linux-image-6.12.N+deb13-amd64, and
#   linux-image-7.3.N+deb13-amd64 of trixie-backports, installed with
#   apt-get -t trixie-backports as its users do)
#   its linux-headers and linux-source, initramfs-tools (MODULES=most)
#   with zstd (its default compressor, recommended by initramfs-tools-core
#   and so on a Debian installation; without it every initramfs falls back
#   to gzip),
#   each kernel's initrd, and dkms, gcc, make, patch, xz-utils (what
#   extown-dkms needs to build ext4.ko; tests/dkms/run.sh)
#
#   tools/e2e/mkroot-stock.sh [RELEASE]   last stdout line: the cached tree
#
# RELEASE: a codename of tools/releases (default: its first line).
# In the tree, /boot/extown-stock-kernels lists one line per kernel:
#   BASE KVER VERSION /boot/vmlinuz-KVER /boot/initrd.img-KVER
# e.g. "6.1 6.1.0-57-amd64 6.1.192-3 /boot/vmlinuz-6.1.0-57-amd64 /boot/initrd.img-6.1.0-57-amd64".
# tools/vm/boot-stock.sh boots an image of this tree (or of a copy that
# apt changed) on one of them.
#
# Cached under ${EXTOWN_CACHE:-/var/cache/extown}/stock/ keyed on the sha256
# of this script and of tools/e2e/mkroot.sh, the release's line of
# tools/releases and the kernel versions the release's apt lists offer
# (release_apt: lists of its own, the machine's apt sources untouched), so a
# new Debian kernel ABI makes a new tree. The base tree is never written
# to: this script copies it. Needs root and the Debian mirror.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
T_LOG='mkroot-stock'
need_root "chroot, mount"

# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
[ $# -le 1 ] || usage
release=${1:-$(release_default)}
release_field "$release" version >/dev/null ||
	die "unknown release '$release' (tools/releases: $(releases_all | tr '\n' ' '))"
relver=$(release_field "$release" version)

base=$("$top/tools/e2e/mkroot.sh" "$release" | tail -n 1) || die "tools/e2e/mkroot.sh $release failed"
[ -d "$base" ] || die "tools/e2e/mkroot.sh gave no tree"

# stock_kernel BASE: "KVER VERSION" of the release's kernel of BASE: the
# version of linux-source-BASE, and the image of that version (named
# N+debV-amd64, or the ABI linux-image-amd64 depends on)
candidate() { release_apt "$release" apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
stock_kernel() {
	local v k
	v=$(candidate "linux-source-$1")
	[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
	k="${v%%-*}+deb$relver-amd64"
	if [ "$(candidate "linux-image-$k")" != "$v" ]; then
		k=$(release_apt "$release" apt-cache show "linux-image-amd64=$v" 2>/dev/null |
			sed -n 's/^Depends:.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p' | head -n 1)
		[ -n "$k" ] && [ "$(candidate "linux-image-$k")" = "$v" ] || return 1
	fi
	echo "$k $v"
}
# suite_of KVER VERSION: the suite that has linux-image-KVER of VERSION
suite_of() {
	release_apt "$release" apt-cache madison "linux-image-$1" 2>/dev/null |
		awk -F'|' -v v="$2" '{ gsub(/ /, "", $2) } $2 == v { split($3, w, " "); sub(/\/.*/, "", w[2]); print w[2]; exit }'
}
kernels=()
for b in $(release_tree_bases "$release"); do
	kv=$(stock_kernel "$b") || die "$release has no linux-image of the version of linux-source-$b"
	read -r k v <<<"$kv"
	suite=$(suite_of "$k" "$v")
	[ -n "$suite" ] || die "no suite of $release offers linux-image-$k $v"
	kernels+=("$b $kv $suite")
	log "$release stock kernel of $b: $kv ($suite)"
done
[ ${#kernels[@]} -gt 0 ] || die "tools/releases names no stock kernel for $release"

# build TREE: the e2e tree, the release's stock kernels with headers and
# source, dkms and an initramfs for each kernel
build() {
	local tmp=$1 line b k v suite list start=$SECONDS pkgs=(initramfs-tools zstd dkms gcc make patch xz-utils) bpo=()
	cp -a "$base/." "$tmp/"
	rm -f "$tmp/.extown-complete"
	# Debian's initramfs must find the root disk: virtio-blk, USB storage, SCSI
	# disks. MODULES=most (initramfs-tools' default) has them all; say it.
	mkdir -p "$tmp/etc/initramfs-tools/conf.d"
	printf '# extown stock-kernel test tree: every block driver (virtio_blk, usb-storage)\nMODULES=most\n' \
		>"$tmp/etc/initramfs-tools/conf.d/extown-stock.conf"
	mkdir -p "$tmp/proc" "$tmp/sys" "$tmp/dev"
	cache_mount -t proc proc "$tmp/proc"
	cache_mount -t sysfs sysfs "$tmp/sys"
	cache_mount --bind /dev "$tmp/dev"
	in_root "$tmp" apt-get update -q || die "apt-get update in the tree failed"
	for line in "${kernels[@]}"; do
		read -r b k v suite <<<"$line"
		case $suite in
		*-backports) bpo+=("$suite $k $v $b") ;;
		*) pkgs+=("linux-image-$k=$v" "linux-headers-$k=$v" "linux-source-$b=$v") ;;
		esac
	done
	log "apt-get install ${pkgs[*]}"
	in_root "$tmp" apt-get install -y -q --no-install-recommends "${pkgs[@]}" ||
		die "apt-get install of the stock kernels failed"
	# a backports kernel as its users install it: apt-get -t SUITE, which
	# also takes what it needs from there (linux-base of trixie-backports
	# for 7.3)
	for line in "${bpo[@]}"; do
		read -r suite k v b <<<"$line"
		log "apt-get install -t $suite linux-image-$k=$v linux-headers-$k=$v linux-source-$b=$v"
		in_root "$tmp" apt-get install -y -q --no-install-recommends -t "$suite" \
			"linux-image-$k=$v" "linux-headers-$k=$v" "linux-source-$b=$v" ||
			die "apt-get install -t $suite of the $b kernel failed"
	done
	list=$tmp/boot/extown-stock-kernels
	: >"$list"
	for line in "${kernels[@]}"; do
		read -r b k v _ <<<"$line"
		[ -f "$tmp/boot/vmlinuz-$k" ] || die "no /boot/vmlinuz-$k in the tree"
		[ -f "$tmp/boot/initrd.img-$k" ] || in_root "$tmp" update-initramfs -c -k "$k"
		[ -f "$tmp/boot/initrd.img-$k" ] || die "no /boot/initrd.img-$k in the tree"
		echo "$b $k $v /boot/vmlinuz-$k /boot/initrd.img-$k" >>"$list"
	done
	in_root "$tmp" apt-get clean
	rm -rf "$tmp"/var/lib/apt/lists/*_Packages "$tmp"/var/lib/apt/lists/*_Translation-*
	log "$release stock tree built in $((SECONDS - start)) s"
}

cache_tree stock "tree-$release" "$(cache_key "${BASH_SOURCE[0]}" "$top/tools/e2e/mkroot.sh" \
	"$(grep "^$release\s" "$releases_table")" "${kernels[*]}")" build >/dev/null
sed 's/^/mkroot-stock: kernel: /' "$cache_path/boot/extown-stock-kernels" >&2
echo "$cache_path"
