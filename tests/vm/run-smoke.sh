#!/usr/bin/env bash
# Smoke test of the VM harness: build the unpatched kernel, make the test
# images, boot, mount the ext4 image read-only in the guest and check the
# owners. Prints one "PASS name" / "FAIL name: why" line per test; exits 0
# whatever the tests say, 1 only when the harness itself broke.
#
#   tests/vm/run-smoke.sh
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
harness_init run-smoke vm.smoke
t() { # label, then a command; prints its wall time to stderr
	local label=$1 s e
	shift
	s=$(date +%s.%N)
	"$@"
	e=$(date +%s.%N)
	awk -v l="$label" -v a="$s" -v b="$e" 'BEGIN { printf "run-smoke: %s took %.1f s\n", l, b - a }' >&2
}

kernel=$(t "kernel build (unpatched)" "$top/tools/kernel/build-kernel.sh" unpatched | tail -n 1) ||
	harness_fail "tools/kernel/build-kernel.sh unpatched failed"
t "images" "$top/tools/vm/mkimages.sh" "$work/images" >/dev/null ||
	harness_fail "tools/vm/mkimages.sh failed"
t "initramfs" "$top/tools/vm/mkinitramfs.sh" --file "$top/tests/lib/results.sh" \
	"$work/initramfs.cpio.gz" "$top/tests/vm/smoke.sh" >/dev/null ||
	harness_fail "tools/vm/mkinitramfs.sh failed"
cp --sparse=always "$work/images/ext4.img" "$work/ext4.img"
rc=0
t "VM boot to power-off" "$top/tools/vm/run-vm.sh" --out "$work/vm" --args /dev/vdb \
	"$kernel" "$work/initramfs.cpio.gz" "$work/ext4.img" 180 >/dev/null || rc=$?
res=$work/vm/guest
[ -f "$res/smoke/results" ] || harness_fail "no guest results (run-vm status $rc); serial log: $(tail -n 5 "$work/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
t_relay "$res/smoke/results"
[ -s "$res/smoke/results" ] || fail_always vm.smoke.guest_script "wrote no test line (rc $(cat "$res/smoke/rc"))"

dmesg_captured() {
	grep -q 'EXT4-fs (vdb): mounted filesystem' "$res/dmesg" && grep -q 'smoke marker for dmesg' "$res/dmesg"
}
clean_poweroff() { [ "$rc" -eq 0 ] && [ -f "$res/DONE" ]; }
image_unchanged() {
	e2fsck -fn "$work/ext4.img" >/dev/null 2>&1 && cmp -s "$work/images/ext4.img" "$work/ext4.img"
}
check vm.smoke.dmesg_captured "guest dmesg lacks the ext4 mount message or the marker" dmesg_captured
check vm.smoke.clean_poweroff "run-vm status $rc" clean_poweroff
# The read-only mount must have left the image as it was.
check vm.smoke.ro_mount_left_image_unchanged "image differs or e2fsck -fn complains" image_unchanged
echo "run-smoke: accel $(cat "$work/vm/accel"), guest $(cat "$work/vm/boot-seconds") s, results in $work/vm${EXTOWN_KEEP:+ (kept)}" >&2
