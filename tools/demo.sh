#!/usr/bin/env bash
# The extown story in one command: a USB stick whose files belong to uid
# 1234 is plugged into a Debian 12 desktop (qemu, our patched kernel,
# stock udisks2), alice (uid 1000) mounts it with `udisksctl mount`, the
# files are hers; after unmount the disk still says 1234.
#
#   tools/demo.sh
#
# Runs the end-to-end test (tests/e2e/run.sh, patched kernel only), which
# installs what it needs (tools/install-deps.sh,
# tools/install-deps-userspace.sh, tools/e2e/install-deps.sh), builds the
# kernel and the guest image when they are not cached yet (first run on a
# fresh machine: ~10 minutes; later ~1 minute), then prints a before/after
# transcript. Needs root. The test lines and logs are kept in
# ${TMPDIR:-/tmp}/extown-demo/. Exit status 1 when the story did not hold.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
T_LOG=demo
need_root "debootstrap, qemu images, make install"

work=${TMPDIR:-/tmp}/extown-demo
echo "demo: running the end-to-end test (progress in $work.log) ..." >&2
rc=0
EXTOWN_E2E_WORK=$work EXTOWN_E2E_KERNELS=patched "$top/tests/e2e/run.sh" \
	>"$work.results" 2>"$work.log" || rc=$?
g=$work/patched/vm/guest/e2e
if [ "$rc" -ne 0 ] || [ ! -s "$g/results" ]; then
	echo "demo: the end-to-end run broke:" >&2
	cat "$work.results" >&2
	tail -n 20 "$work.log" >&2
	exit 1
fi

owners_on_disk() { # IMG PATH...
	local img=$1 p uid gid
	shift
	for p in "$@"; do
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$img" "$p")"
		printf '    %-12s %s\n' "$p" "$uid:$gid"
	done
}
show() { sed 's/^/    /' "$1" 2>/dev/null || echo "    (missing: $1)"; }

fsimg=$work/demo-check.img
cp --sparse=always "$work/patched/stick-ext4.img" "$fsimg"
echo "== BEFORE: the stick as written elsewhere (debugfs on the image)"
owners_on_disk "$work/images/ext4.img" / /file /secret /dir
echo "   root mounts it without options in the guest, ls -ln:"
show "$g/ext4.ls-before"
echo
echo "== PLUGGED: QMP device_add usb-storage (removable); udev says:"
grep -E '^(ID_BUS|ID_FS_TYPE|EXTOWN_REMOVABLE|UDISKS_MOUNT_OPTIONS_EXT4_DEFAULTS)=' "$g/ext4.udev" | sed 's/^/    /'
echo "== alice (uid 1000): udisksctl mount -b ...; /proc/mounts:"
show "$g/ext4.mounts"
echo "   ls -ln of the mounted stick (and of /dir):"
show "$g/ext4.ls-after"
echo "   alice appends to /secret (0600, 1234 on disk) and creates alice-new, alice-dir;"
echo "   alice, then root, try to give files back to 1234 (chown 1234:1234):"
grep '^e2e\.U2\.ext4\.' "$g/chown.messages" 2>/dev/null | sed 's/^[^:]*: /    /' || echo "    (missing: $g/chown.messages)"
echo "   alice unmounts"
echo
echo "== AFTER: on disk (debugfs), old files keep their owner, new ones are alice's"
owners_on_disk "$fsimg" / /file /secret /dir /alice-new /alice-dir
echo "   /secret now holds:"
debugfs -R "cat /secret" "$fsimg" 2>/dev/null | sed 's/^/    /'
if e2fsck -fn "$fsimg" >/dev/null 2>&1; then
	echo "   e2fsck -fn: clean"
else
	echo "   e2fsck -fn: NOT clean"
fi
rm -f "$fsimg"
echo
p=$(grep -c '^PASS ' "$work.results" || true)
f=$(grep -c '^FAIL ' "$work.results" || true)
k=$(grep -c '^SKIP ' "$work.results" || true)
echo "== e2e tests: $p passed, $f failed, $k skipped (lines in $work.results)"
grep '^FAIL ' "$work.results" || true
[ "$f" -eq 0 ]
