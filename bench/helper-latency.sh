#!/usr/bin/env bash
# The mount helper's added latency on the host (no emulation), measured the
# way docs/mount-helper.md first did: root mounts of an untagged ext4 loop
# image, `mount -t ext4` through mount.ext4 against `mount -i -t ext4`
# (no helper). bench/run.sh measures the same inside the TCG VM.
#
#   bench/helper-latency.sh [MOUNTS]      (root; default 200)
#
# Nothing on the host changes: the helper is built out of tree and shown
# as /usr/sbin/mount.ext4 only inside a private mount namespace (a copy of
# /usr/sbin with the helper added, bind-mounted over /usr/sbin; /sbin is a
# symlink to it on Debian 12). The loop device and the image are removed
# at the end. With and without the helper alternate, each mount timed by
# bench/benchtool timeexec (fork+exec+wait of mount(8)), each followed by
# an untimed umount. No udev rules of ours and no policy file are involved
# (the device is untagged), so the helper passes the options through (H2).
#
# Prints a Markdown table (median, min-max, n; difference of medians).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ "${1:-}" = --inner ]; then
	# In the private mount namespace: BENCHTOOL SBIN_COPY DEV DIR MOUNTS RAW
	bt=$2 sbin=$3 dev=$4 dir=$5 n=$6 raw=$7
	mount --bind "$sbin" /usr/sbin
	mount -v -t ext4 "$dev" "$dir" 2>&1 | grep -q '^mount.ext4: mounting' || {
		echo "bench: mount -t ext4 did not run mount.ext4" >&2
		exit 1
	}
	umount "$dir"
	for ((i = 1; i <= n; i++)); do
		echo "helper $("$bt" timeexec mount -t ext4 "$dev" "$dir")" >>"$raw"
		umount "$dir"
		echo "direct $("$bt" timeexec mount -i -t ext4 "$dev" "$dir")" >>"$raw"
		umount "$dir"
	done
	exit 0
fi

n=${1:-200}
case $n in '' | *[!0-9]*) echo "usage: $0 [MOUNTS]" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || {
	echo "bench: helper-latency.sh must run as root (loop device, mounts)" >&2
	exit 1
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d "${TMPDIR:-/tmp}/extown-helper-latency.XXXXXX")
loop=''
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$work/benchtool" "$top/bench/benchtool.c"
helper=$("$top/tools/build-helper.sh" "$work/helper" | tail -n 1)
mkdir -p "$work/sbin" "$work/mnt"
cp -a /usr/sbin/. "$work/sbin/"
install -m 0755 "$helper" "$work/sbin/mount.ext4"
mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "$work/img" 64M
loop=$(losetup -f --show "$work/img")
unshare -m --propagation private "$0" --inner "$work/benchtool" "$work/sbin" "$loop" \
	"$work/mnt" "$n" "$work/raw"

echo "Host $(uname -r), $(nproc) CPUs, util-linux $(mount --version | awk '{ print $4; exit }'), $n mounts each, loop device, load average before: $load_before"
echo
sed 's/seconds=//; s/ status=.*//' "$work/raw" | LC_ALL=C sort -k1,1 -k2,2g | awk '
{ n[$1]++; v[$1, n[$1]] = $2 }
END {
	for (k in n) {
		c = n[k]
		med[k] = (c % 2) ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2
	}
	print "| mount of an untagged ext4 loop device, host (ms) | median | min-max | n |"
	print "|---|---|---|---|"
	printf "| `mount -t ext4` through mount.ext4 | %.2f | %.2f-%.2f | %d |\n", med["helper"] * 1000, v["helper", 1] * 1000, v["helper", n["helper"]] * 1000, n["helper"]
	printf "| `mount -i -t ext4` (no helper) | %.2f | %.2f-%.2f | %d |\n", med["direct"] * 1000, v["direct", 1] * 1000, v["direct", n["direct"]] * 1000, n["direct"]
	printf "| added by the helper (difference of medians) | %.2f | | |\n", (med["helper"] - med["direct"]) * 1000
}'
