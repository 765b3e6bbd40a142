#!/usr/bin/env bash
# Boot a root disk image on one of Debian's own kernels, with Debian's own
# initramfs, both read from the image's /boot (as a boot loader would):
# the image of a tree of tools/e2e/mkroot-stock.sh, or of a copy that apt or
# DKMS changed (a new initrd, another module).
#
#   tools/vm/boot-stock.sh [RUN-VM OPTIONS] KERNEL ROOT-IMG [DISK...] TIMEOUT
#
# KERNEL    a base listed in the image's /boot/extown-stock-kernels (6.1,
#           6.12), or a kernel release with /boot/vmlinuz-KERNEL in the image
#           (6.1.0-57-amd64)
# ROOT-IMG  raw image holding an ext4 filesystem (no partition table) with
#           the tree; attached as /dev/vdb and booted "root=/dev/vdb rw".
#           Written to, unless given as ROOT-IMG:snapshot
# DISK      more disks, /dev/vdc, /dev/vdd, ... as in tools/vm/run-vm.sh
# TIMEOUT   seconds before qemu is killed (a stock kernel under TCG takes
#           about a minute to reach multi-user)
#
# Every option of tools/vm/run-vm.sh is passed on (--out, --args, --append
# is added after "root=/dev/vdb rw", --memory defaults to 1536 here: a
# Debian kernel with its initramfs needs 1024 or more, --monitor,
# --usb-disk, --pidfile). The guest must write its results and power off
# itself (a systemd unit in the image running
# /usr/local/bin/extown-write-results DIR, then poweroff), as for run-vm.sh.
#
# stdout: what run-vm.sh prints (the last line is the results directory,
# with kernel-release beside run-vm's files); exit status: run-vm.sh's.
# A kernel that panics before it has mounted the root disk (the image's
# mount count and last mount time unchanged, no results) is booted once
# more; the first serial log is kept as serial-panic.log, by which the
# caller reports that boot (tests/lib/qemu.sh panic_report: tests/dkms).
# Needs debugfs (e2fsprogs) to read the image's /boot.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG='boot-stock'
opts=() append='' memory=1536 outdir=''
# its own options; run-vm.sh's (--args, --monitor, ...) are passed on
for arg in "$@"; do
	case $arg in -h | --help) usage ;; esac
done
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--append) append=$2 ;;
	--memory) memory=$2 ;;
	--out) outdir=$2 ;;
	*) opts+=("$1" "$2") ;;
	esac
	shift 2
done
[ $# -ge 3 ] || usage
kernel=$1 rootimg=$2
shift 2
img=${rootimg%:snapshot}
[ -f "$img" ] || die "no root image $img"

# cat_file PATH: a file of the image on stdout
cat_file() { debugfs -R "cat $1" "$img" 2>/dev/null; }
kver=$kernel
case $kernel in
*[!0-9.]*) ;;
*)
	kver=$(cat_file /boot/extown-stock-kernels | awk -v b="$kernel" '$1 == b { print $2; exit }')
	[ -n "$kver" ] || die "$img: no kernel of base $kernel in /boot/extown-stock-kernels"
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/extown-boot-stock.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for f in "vmlinuz-$kver" "initrd.img-$kver"; do
	debugfs -R "dump /boot/$f $tmp/$f" "$img" >/dev/null 2>&1
	[ -s "$tmp/$f" ] || die "$img has no /boot/$f"
done

# mounted: the root filesystem's mount count and last mount time
mounted() { dumpe2fs -h "$img" 2>/dev/null | grep -E '^(Mount count|Last mount time):'; }

[ -n "$outdir" ] || outdir=$(mktemp -d "${TMPDIR:-/tmp}/extown-vm.XXXXXX")
echo "boot-stock: $kver from $img" >&2
before=$(mounted)
for attempt in 1 2; do
	rc=0
	"$top/tools/vm/run-vm.sh" --out "$outdir" --memory "$memory" "${opts[@]}" \
		--append "root=/dev/vdb rw${append:+ $append}" \
		"$tmp/vmlinuz-$kver" "$tmp/initrd.img-$kver" "$rootimg" "$@" || rc=$?
	# A kernel that panicked before it mounted the root disk (seen under
	# TCG with Debian's 6.12: an int3 oops in sched_clock_cpu while the
	# second CPU patches kernel text, at 2-5 s) changed nothing: boot it
	# once more, its serial log kept as serial-panic.log. A second panic,
	# or one after the root disk was mounted, stands.
	if [ "$attempt" = 1 ] && [ "$rc" -ne 0 ] && [ ! -d "$outdir/guest" ] &&
		grep -q 'Kernel panic' "$outdir/serial.log" 2>/dev/null && [ "$(mounted)" = "$before" ]; then
		log "$kver panicked before it mounted the root disk ($(grep -m 1 -E 'Oops|BUG|Kernel panic' "$outdir/serial.log" | tr -d '\r')); booting it again"
		mv "$outdir/serial.log" "$tmp/serial-panic.log"
		rm -rf "${outdir:?}"/*
		continue
	fi
	break
done
[ ! -f "$tmp/serial-panic.log" ] || mv "$tmp/serial-panic.log" "$outdir/serial-panic.log"
echo "$kver" >"$outdir/kernel-release"
exit "$rc"
