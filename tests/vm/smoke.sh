#!/bin/sh
# shellcheck shell=dash
# Guest side of the VM harness smoke test (tests/vm/run-smoke.sh).
#
#   smoke.sh OUTDIR [DEVICE]
#
# DEVICE (default /dev/vdb) holds tools/vm/mkimages.sh's ext4 image.
# Writes "PASS name" / "FAIL name: why" lines to OUTDIR/results.
set -u
OUT=$1
DEV=${2:-/dev/vdb}
RES=$OUT/results
: >"$RES"

T_RESULTS=$RES
# shellcheck source=tests/lib/results.sh
. /tests/results.sh

# shellcheck disable=SC2016 # expanded by the inner sh
check_eq vm.smoke.tool.setpriv "setpriv --reuid=1000 --regid=1000 --clear-groups id -u:id -g:id -G" \
	"1000:1000:1000" \
	"$(setpriv --reuid=1000 --regid=1000 --clear-groups sh -c 'echo "$(id -u):$(id -g):$(id -G)"' 2>&1)"
check_eq vm.smoke.tool.coreutils_stat "stat --version" "stat (GNU coreutils)" \
	"$(stat --version 2>&1 | head -n 1 | cut -d' ' -f1-3)"
for t in debugfs mke2fs e2fsck mount umount; do
	check_eq "vm.smoke.tool.$t" "$t runs" yes "$($t -V >/dev/null 2>&1 && echo yes || echo no)"
done
check_eq vm.smoke.users "passwd entries" "alice:1000 bob:1001" \
	"$(awk -F: '$1 == "alice" || $1 == "bob" { printf "%s%s:%s", s, $1, $3; s = " " }' /etc/passwd)"

mkdir -p /mnt/smoke
if mount -t ext4 -o ro "$DEV" /mnt/smoke 2>"$OUT/mount.err"; then
	pass vm.smoke.mount_ext4_ro
	check vm.smoke.ext4_file_owner "stat -c %u:%g file" 1234:1234 "$(stat -c %u:%g /mnt/smoke/file 2>&1)"
	check vm.smoke.ext4_high_owner "stat -c %u:%g high" 70000:70000 "$(stat -c %u:%g /mnt/smoke/high 2>&1)"
	check vm.smoke.ext4_secret_content "cat secret" "extown secret" "$(cat /mnt/smoke/secret 2>&1)"
	umount /mnt/smoke
else
	fail vm.smoke.mount_ext4_ro "mount -t ext4 -o ro $DEV: $(cat "$OUT/mount.err")"
fi
echo "smoke marker for dmesg" >/dev/kmsg
