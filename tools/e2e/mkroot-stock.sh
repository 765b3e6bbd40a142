#!/usr/bin/env bash
# Build (once) a Debian 12 root tree with Debian's own stock kernels, and
# print its path: the tree of tools/e2e/mkroot.sh plus
#
#   linux-image-6.1.0-NN-amd64     the 6.1 ABI that linux-image-amd64 depends on
#   linux-image-6.12.*+deb12-amd64 the 6.12 of bookworm-security (EXTOWN_STOCK_612,
#                                  default: the version of linux-source-6.12)
#   their linux-headers, initramfs-tools (MODULES=most), each kernel's initrd
#   dkms, gcc, make, patch, xz-utils and linux-source-6.1 / linux-source-6.12
#   (what extown-dkms needs to build ext4.ko; tests/dkms/run.sh)
#
#   tools/e2e/mkroot-stock.sh       last stdout line: the cached tree
#
# In the tree, /boot/extown-stock-kernels lists one line per kernel:
#   BASE KVER VERSION /boot/vmlinuz-KVER /boot/initrd.img-KVER
# e.g. "6.1 6.1.0-57-amd64 6.1.192-3 /boot/vmlinuz-6.1.0-57-amd64 /boot/initrd.img-6.1.0-57-amd64".
# tools/vm/boot-stock.sh boots an image of this tree (or of a copy that
# apt changed) on one of them.
#
# Cached under ${EXTOWN_CACHE:-/var/cache/extown}/stock/ keyed on the sha256
# of this script and of tools/e2e/mkroot.sh, plus the kernel versions the
# mirror offers (so a new Debian kernel ABI makes a new tree). The base tree
# is never written to: this script copies it. Needs root and the network
# (deb.debian.org bookworm + bookworm-security, or EXTOWN_E2E_MIRROR and
# EXTOWN_STOCK_SECURITY_MIRROR).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
T_LOG='mkroot-stock'
need_root "chroot, mount"

base=$("$top/tools/e2e/mkroot.sh" | tail -n 1) || die "tools/e2e/mkroot.sh failed"
[ -d "$base" ] || die "tools/e2e/mkroot.sh gave no tree"

# Which kernels: the 6.1 ABI package that the host's apt says
# linux-image-amd64 depends on, and the 6.12 image of linux-source-6.12's
# version. The host's apt lists are the ones that matter (tools/apt-ensure.sh
# updates them); with no answer, update once.
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }
if [ -z "$(candidate linux-image-amd64)" ] || [ "$(candidate linux-image-amd64)" = "(none)" ]; then
	apt-get update -q >&2
fi
v61=$(candidate linux-image-amd64)
k61=$(apt-cache show "linux-image-amd64=$v61" | sed -n 's/^Depends:.*\(linux-image-6\.1\.0-[0-9]*-amd64\).*/\1/p' | head -n 1)
k61=${k61#linux-image-}
[ -n "$k61" ] || die "cannot tell which linux-image-6.1.0-NN-amd64 linux-image-amd64 $v61 depends on"
case $v61 in 6.1.*) ;; *) die "linux-image-amd64 is $v61, not a 6.1 kernel" ;; esac
v612=${EXTOWN_STOCK_612:-$(candidate linux-source-6.12)}
k612=''
if [ -n "$v612" ] && [ "$v612" != "(none)" ]; then
	# 6.12.118-1~deb12u1 -> 6.12.118+deb12-amd64
	k612="${v612%%-*}+deb12-amd64"
	[ "$(candidate "linux-image-$k612")" = "$v612" ] || {
		log "no linux-image-$k612 of version $v612; no 6.12 kernel in the tree"
		k612=''
	}
fi
log "stock kernels: $k61 ($v61)${k612:+, $k612 ($v612)}"

# build TREE: the e2e tree, Debian's stock kernels with headers and
# source, dkms and an initramfs for each kernel
build() {
	local tmp=$1 mirror security k b v list start=$SECONDS pkgs
	mirror=${EXTOWN_E2E_MIRROR:-$(awk '$1 == "deb" { print $2; exit }' "$base/etc/apt/sources.list")}
	security=${EXTOWN_STOCK_SECURITY_MIRROR:-${mirror%/debian}/debian-security}
	cp -a "$base/." "$tmp/"
	rm -f "$tmp/.extown-complete"
	cat >"$tmp/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
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
	pkgs=(initramfs-tools "linux-image-$k61=$v61" "linux-headers-$k61=$v61" "linux-source-6.1=$v61"
		dkms gcc make patch xz-utils)
	[ -z "$k612" ] || pkgs+=("linux-image-$k612=$v612" "linux-headers-$k612=$v612" "linux-source-6.12=$v612")
	log "apt-get install ${pkgs[*]}"
	in_root "$tmp" apt-get install -y -q --no-install-recommends "${pkgs[@]}" ||
		die "apt-get install of the stock kernels failed"
	list=$tmp/boot/extown-stock-kernels
	: >"$list"
	for k in "$k61" ${k612:+"$k612"}; do
		[ -f "$tmp/boot/vmlinuz-$k" ] || die "no /boot/vmlinuz-$k in the tree"
		[ -f "$tmp/boot/initrd.img-$k" ] || in_root "$tmp" update-initramfs -c -k "$k"
		[ -f "$tmp/boot/initrd.img-$k" ] || die "no /boot/initrd.img-$k in the tree"
		case $k in 6.1.0-*) b=6.1 v=$v61 ;; *) b=6.12 v=$v612 ;; esac
		echo "$b $k $v /boot/vmlinuz-$k /boot/initrd.img-$k" >>"$list"
	done
	in_root "$tmp" apt-get clean
	rm -rf "$tmp"/var/lib/apt/lists/*_Packages "$tmp"/var/lib/apt/lists/*_Translation-*
	log "stock tree built in $((SECONDS - start)) s"
}

cache_tree stock tree "$(cache_key "${BASH_SOURCE[0]}" "$top/tools/e2e/mkroot.sh" "$k61 $v61 $k612 $v612")" build >/dev/null
sed 's/^/mkroot-stock: kernel: /' "$cache_path/boot/extown-stock-kernels" >&2
echo "$cache_path"
