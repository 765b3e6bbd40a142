#!/usr/bin/env bash
# Privilege tests of the mount helper (issue 5): as the unprivileged user
# alice, through fstab "user" entries, setuid mount(8) and the setuid
# mount.ext4, try every way we could think of to end up owning files as
# another uid or gid. The attempts and their results are listed in
# tests/privilege/guest.sh; this script builds the helper (configure
# --prefix=/usr --sysconfdir=/etc, out of tree), boots the busybox test VM
# on the `patched` kernel with two ext4 disks (a faked udev-tagged "stick"
# and an untagged "internal" one), runs guest.sh, then checks on the host
# with debugfs and e2fsck that every inode created during the attempts is
# 1000:1000 on disk and the pre-existing ones kept their owners.
#
#   tests/privilege/run.sh
#
# stdout: one "PASS name" / "FAIL name: why" per test; the rest on stderr.
# EXTOWN_KEEP=1 keeps the work directory (its guest/guest/attempts file
# lists every attempt with its exit status and message). Exit 0 whatever
# the tests say, 1 when the harness broke ("FAIL privilege.harness: why").
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/reliability/ondisk.sh
. "$top/tests/reliability/ondisk.sh"
# shellcheck source=tests/harness.sh
. "$top/tests/harness.sh"
harness_init privilege privilege

kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) ||
	harness_fail "tools/kernel/build-kernel.sh patched failed"
[ -f "$kernel" ] || harness_fail "build-kernel.sh gave no bzImage"

# The helper as it is installed: /usr/sbin/mount.ext4, policy /etc/extown.conf.
build=$work/build
harness_build_helper "$top" "$build"
gcc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$work/preload.so" \
	"$top/tests/privilege/preload.c" || harness_fail "cannot build tests/privilege/preload.c"

"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
cp --sparse=always "$work/images/ext4.img" "$work/stick.img"
cp --sparse=always "$work/images/ext3.img" "$work/internal.img"
"$top/tools/vm/mkinitramfs.sh" --file "$build/mount.ext4" --file "$work/preload.so" \
	"$work/initramfs.cpio.gz" "$top/tests/privilege/guest.sh" >/dev/null ||
	harness_fail "tools/vm/mkinitramfs.sh failed"

rc=0
"$top/tools/vm/run-vm.sh" --out "$work/vm" "$kernel" "$work/initramfs.cpio.gz" \
	"$work/stick.img" "$work/internal.img" 600 >/dev/null || rc=$?
g=$work/vm/guest/guest
if [ ! -s "$g/results" ]; then
	echo "FAIL privilege.guest_ran: no results (run-vm status $rc); serial log ends: $(tail -n 5 "$work/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
cat "$g/results"
if [ "$rc" -eq 0 ] && [ -f "$work/vm/guest/DONE" ] && [ "$(cat "$g/rc")" = 0 ]; then
	echo "PASS privilege.guest_finished"
else
	echo "FAIL privilege.guest_finished: run-vm status $rc, guest script status $(cat "$g/rc" 2>/dev/null)"
fi
log "attempts (name | command | exit | mounted | message):"
sed 's/^/    /' "$g/attempts" >&2

# Whatever alice did, every inode created on either disk is hers on disk.
rel_check_image privilege.stick "$work/stick.img" "$work/images/ext4.img.manifest" 1000 1000 1
rel_check_image privilege.internal "$work/internal.img" "$work/images/ext3.img.manifest" 1000 1000 0
if [ -n "${EXTOWN_KEEP:-}" ]; then
	log "work directory kept: $work"
fi
exit 0
