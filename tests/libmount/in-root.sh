#!/usr/bin/env bash
# The helper with one release's libmount and mount(8), for real: run inside
# a copy of that release's build tree by tests/libmount/run.sh (through
# tools/in-build-root.sh, which sets EXTOWN_RELEASE), as root, in a private
# mount namespace on the host's kernel. Builds this checkout's mount.ext4
# with the tree's compiler and libmount, installs it setuid root in the
# tree, makes a user alice (1000), two ext4 loop devices whose root
# directories belong to uid 1234 (one tagged EXTOWN_REMOVABLE=1 in the udev
# database under /run/udev/data, one not) and user fstab entries, and
# mounts and unmounts as alice (setpriv: real and effective ids 1000):
#
#   direct.{tagged,untagged}.*   mount.ext4 run directly (without
#                                mount(8)), as mount(8) would run it:
#                                mounted, user=alice in /run/mount/utab,
#                                alice can umount (docs/mount-helper.md)
#   mount8.{tagged,untagged}.*   the same through the tree's mount(8)
#   idmap.*                      an entry with X-mount.idmap= (mount(8)
#                                2.39+, "idmapping" in mount -V; SKIP
#                                otherwise): mount(8) idmaps it, not the
#                                helper; utab written, no utab.act left,
#                                alice can umount
#   stacked.{tagged,untagged}.*  alice mounts an entry twice through
#                                mount(8): as many mounts as mount(8) alone
#                                makes (with the helper moved aside), each
#                                with its own utab entry (alice unmounts
#                                them all, no entry left)
#   fake.*                       mount -f as alice: mount(8) alone's exit
#                                status, nothing mounted, no utab entry
#
# stdout: PASS/FAIL/SKIP libmount.NAME lines (tests/libmount/run.sh puts
# the release into the names). Exit 1 when the set-up breaks.
# EXTOWN_LIBMOUNT_BREAK=stacked-nothing: the stacked tests mount a target
# that has no fstab entry (nothing is mounted), to show that they fail.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=libmount harness_test=libmount
release=${EXTOWN_RELEASE:?run by tests/libmount/run.sh, through tools/in-build-root.sh}
need_root "loop devices, mounts"

img_dir=$(mktemp -d /var/tmp/extown-libmount.XXXXXX)
loops=()
# umount_all TARGET: every mount stacked on TARGET (also from the EXIT trap)
# shellcheck disable=SC2317 # shellcheck sees only the trap's use
umount_all() { while mountpoint -q "$1" 2>/dev/null; do umount "$1" || break; done; }
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local m l
	for m in /media/stick /media/disk /media/idmap; do umount_all "$m"; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	rm -rf "$img_dir"
}
trap cleanup EXIT

build=$top/build/libmount-helper
"$top/tools/build-helper.sh" --install / "$build" >/dev/null 2>&1 ||
	harness_fail "cannot build and install mount.ext4 in the $release tree (see build/$release/libmount-helper/build.log)"
[ "$(stat -c '%u %a' /usr/sbin/mount.ext4)" = "0 4755" ] ||
	harness_fail "/usr/sbin/mount.ext4 is not setuid root"
id alice >/dev/null 2>&1 || useradd -u 1000 -U -M -s /bin/sh alice ||
	harness_fail "useradd alice failed"

# newloop NAME TAGGED: an ext4 image (root directory 1234:1234) on a new loop device
newloop() {
	local img=$img_dir/$1.img dev
	truncate -s 32M "$img"
	mkfs.ext4 -q -F -E root_owner=1234:1234 "$img" || harness_fail "mkfs.ext4 failed"
	dev=$(losetup -f --show "$img") || harness_fail "losetup failed"
	loops+=("$dev")
	if [ "$2" = yes ]; then
		mkdir -p /run/udev/data
		printf 'E:EXTOWN_REMOVABLE=1\nE:ID_FS_UUID=%s\n' "$(blkid -o value -s UUID "$dev")" \
			>"/run/udev/data/b$((0x$(stat -c %t "$dev"))):$((0x$(stat -c %T "$dev")))"
	fi
	echo "$dev"
}
tagged=$(newloop stick yes)
untagged=$(newloop disk no)
# X-mount.idmap=: the stick's uid and gid 1234 shown as 1000 (alice) (with
# trixie's mount(8) "b:1234:1000:1" does that; "b:1000:1234:1" shows 1234
# as 65534)
idmap_opt='X-mount.idmap=b:1234:1000:1'
mkdir -p /media/stick /media/disk /media/idmap
cat >/etc/fstab <<EOF
$tagged /media/stick ext4 user,noauto 0 0
$untagged /media/disk ext4 user,noauto 0 0
$tagged /media/idmap ext4 user,noauto,$idmap_opt 0 0
EOF

as_alice() { setpriv --reuid=1000 --regid=1000 --init-groups "$@"; }

# utab_user TARGET: /run/mount/utab's entry for TARGET says user=alice
utab_user() {
	grep -E "(^| )TARGET=$1( |\$)" /run/mount/utab 2>/dev/null | grep -qE '(^| |,|OPTS=)user=alice(,| |$)'
}

# mounts PREFIX TARGET OWNER CMD...: CMD (as alice) mounts TARGET; its root
# directory shows OWNER; utab names alice; alice umounts it
mounts() {
	local p=$1 target=$2 owner=$3 rc=0 out
	shift 3
	out=$(as_alice "$@" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ] && mountpoint -q "$target"; then
		pass "$p.mounted"
	else
		fail "$p.mounted" "status $rc: $(echo "$out" | head -n 2 | tr '\n' ' ')"
		return 0
	fi
	check_eq "$p.owner_shown" "owner of the root directory" "$owner" "$(stat -c %u "$target")"
	check "$p.utab_user" "no user=alice for $target in /run/mount/utab: $(grep -F "$target" /run/mount/utab 2>/dev/null || echo 'no entry')" \
		utab_user "$target"
	rc=0
	out=$(as_alice umount "$target" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ] && ! mountpoint -q "$target"; then
		pass "$p.alice_umounts"
	else
		fail "$p.alice_umounts" "umount as alice: status $rc: $(echo "$out" | head -n 1)"
		umount "$target" 2>/dev/null || true
	fi
}

# how mount(8) runs the helper for a user: -o rw,noexec,nosuid,nodev,user
mounts libmount.direct.tagged /media/stick 1000 \
	/usr/sbin/mount.ext4 "$tagged" /media/stick -o rw,noexec,nosuid,nodev,user
mounts libmount.direct.untagged /media/disk 1234 \
	/usr/sbin/mount.ext4 "$untagged" /media/disk -o rw,noexec,nosuid,nodev,user
mounts libmount.mount8.tagged /media/stick 1000 mount /media/stick
mounts libmount.mount8.untagged /media/disk 1234 mount /media/disk

if mount -V | grep -qw idmapping; then
	rm -f /run/mount/utab.act
	mounts libmount.idmap /media/idmap 1000 mount /media/idmap
	check libmount.idmap.no_stale_utab_act "/run/mount/utab.act left behind" \
		test ! -e /run/mount/utab.act
else
	for t in mounted owner_shown utab_user alice_umounts no_stale_utab_act; do
		skip "libmount.idmap.$t" "mount(8) of $release has no X-mount.idmap= ($(mount -V | head -n 1))"
	done
fi

# alone CMD...: CMD with the helper moved aside (mount(8) alone)
alone() {
	local rc=0
	mv /usr/sbin/mount.ext4 /usr/sbin/mount.ext4.aside
	"$@" || rc=$?
	mv /usr/sbin/mount.ext4.aside /usr/sbin/mount.ext4
	return "$rc"
}

# mounted_on TARGET: how many mounts /proc/self/mounts has on TARGET
mounted_on() { awk -v t="$1" '$2 == t { n++ } END { print n + 0 }' /proc/self/mounts; }

umount_all() { while mountpoint -q "$1"; do umount "$1" || break; done; }

# stack PREFIX TARGET: alice mounts TARGET twice through mount(8), without
# the helper and with it; with it, as many mounts as without, each with its
# own utab entry: alice unmounts every one, no utab entry left
stack() {
	local p=$1 target=$2 n want rc=0 out='' i=0 t
	alone as_alice sh -c "mount $target; mount $target" >/dev/null 2>&1 || true
	want=$(mounted_on "$target")
	umount_all "$target"
	as_alice sh -c "mount $target; mount $target" >/dev/null 2>&1 || true
	n=$(mounted_on "$target")
	# nothing mounted at all compares nothing: each test below fails then
	if [ "$want" -eq 0 ] || [ "$n" -eq 0 ]; then
		for t in mounts_as_mount8_alone alice_umounts_each no_utab_entry_left; do
			fail "$p.$t" "nothing to compare: alice's two mounts of $target mounted $want time(s) with mount(8) alone, $n with the helper"
		done
		umount_all "$target"
		return 0
	fi
	check_eq "$p.mounts_as_mount8_alone" "mounts on $target after two mounts" "$want" "$n"
	while [ "$i" -lt "$n" ] && [ "$rc" -eq 0 ]; do
		i=$((i + 1))
		out=$(as_alice umount "$target" 2>&1) || rc=$?
	done
	if [ "$rc" -eq 0 ] && ! mountpoint -q "$target"; then
		pass "$p.alice_umounts_each"
	else
		fail "$p.alice_umounts_each" "umount $i of $n as alice: status $rc: $(echo "$out" | head -n 1)"
		umount_all "$target"
	fi
	check "$p.no_utab_entry_left" "left in /run/mount/utab: $(grep -F "TARGET=$target " /run/mount/utab 2>/dev/null)" \
		test -z "$(grep -F "TARGET=$target " /run/mount/utab 2>/dev/null)"
}
if [ "${EXTOWN_LIBMOUNT_BREAK:-}" = stacked-nothing ]; then
	log "BROKEN ON PURPOSE: the stacked tests mount /media/nowhere (no fstab entry)"
	mkdir -p /media/nowhere
	stack libmount.stacked.tagged /media/nowhere
	stack libmount.stacked.untagged /media/nowhere
else
	stack libmount.stacked.tagged /media/stick
	stack libmount.stacked.untagged /media/disk
fi

# mount -f by a user: mount(8) drops its setuid and pretends; the helper
# (which libmount runs with -f) as well: the same status, nothing mounted,
# no utab entry
rc_alone=0 rc=0
out_alone=$(alone as_alice mount -f /media/stick 2>&1) || rc_alone=$?
out=$(as_alice mount -f /media/stick 2>&1) || rc=$?
check_eq libmount.fake.status_as_mount8_alone "exit status of mount -f as alice (alone: '$out_alone'; with the helper: '$out')" "$rc_alone" "$rc"
log "mount -f as alice, alone: status $rc_alone: $out_alone; with the helper: status $rc: $out"
says_not_mounted() { ! grep -q "filesystem was mounted" <<<"$1"; }
check libmount.fake.no_false_mounted_message "the helper says: $out" says_not_mounted "$out"
check_eq libmount.fake.nothing_mounted "mounts on /media/stick" 0 "$(mounted_on /media/stick)"
check libmount.fake.no_utab_entry "an entry in /run/mount/utab: $(grep -F "TARGET=/media/stick " /run/mount/utab 2>/dev/null)" \
	test -z "$(grep -F "TARGET=/media/stick " /run/mount/utab 2>/dev/null)"
umount_all /media/stick
