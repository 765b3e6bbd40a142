#!/bin/sh
# shellcheck shell=dash
# Runs INSIDE a test VM: write DIR to the results disk so that
# tools/vm/run-vm.sh can read it back on the host. The busybox initramfs
# calls it from /init (as /usr/bin/extown-write-results); a Debian guest
# (tests/e2e) can run it the same way before powering off.
#
#   guest-write-results.sh DIR [DEVICE]     DEVICE defaults to /dev/vda
#
# Format on DEVICE: one 512-byte block "EXTOWN-RESULTS 1 <tar bytes>\n"
# padded with zeros, then an uncompressed tar of DIR from block 1 on.
set -u
dir=$1
dev=${2:-/dev/vda}
tmp=${TMPDIR:-/tmp}/extown-results.$$.tar
sync
tar -C "$dir" -cf "$tmp" . || exit 1
len=$(wc -c <"$tmp")
max=$(($(cat "/sys/class/block/${dev##*/}/size") * 512 - 512))
if [ "$len" -gt "$max" ]; then
	echo "extown-write-results: $len bytes of results do not fit on $dev ($max)" >&2
	: >"$tmp"
	len=0
	rc=1
fi
printf 'EXTOWN-RESULTS 1 %s\n' "$len" | dd of="$dev" bs=512 count=1 conv=sync 2>/dev/null || exit 1
dd if="$tmp" of="$dev" bs=512 seek=1 conv=sync 2>/dev/null || exit 1
rm -f "$tmp"
sync
blockdev --flushbufs "$dev" 2>/dev/null
exit "${rc:-0}"
