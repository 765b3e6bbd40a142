#!/usr/bin/env bash
# The checks pass single-quoted expressions to eval on purpose:
# shellcheck disable=SC2016
# Runs INSIDE the "rootusb" e2e guest (tests/e2e/run.sh boots it), as root,
# from extown-e2e.service (a drop-in points it here instead of guest.sh).
#
# The machine: its root filesystem is partition 1 of a USB disk (/dev/sda1,
# usb-storage on qemu-xhci), so 61-extown.rules tags it EXTOWN_REMOVABLE=1
# like any stick; partition 2 is /srv/data, an fstab entry without noauto.
# The kernel mounts / read-only (`ro`, as Debian boots) and
# systemd-remount-fs makes it read-write with `mount -o remount /` from the
# fstab entry for `/`, which runs /sbin/mount.ext4. /etc/extown.conf says
# `default-owner = alice`, so a helper that gives root's mounts of tagged
# devices an owner adds uid=,gid=,nosuid,nodev to that remount: the kernel
# refuses to change uid= on remount, the remount fails and `/` stays
# read-only (were it accepted, every file of the system would appear to be
# alice's), and /srv/data, mounted by systemd at boot, becomes alice's.
#
# At boot, systemd-remount-fs runs before systemd-udevd (udevd is ordered
# after systemd-sysusers, which is after systemd-remount-fs), so without an
# initramfs the udev database is empty then and the helper sees no tag:
# the boot-time remount alone cannot tell a good helper from a bad one.
# The tests therefore also run the same remount once udev has tagged the
# root device: `mount -o remount,rw /` and systemd-remount-fs again.
# Then a USB stick is hot-plugged beside it: it must still get alice's uid.
#
# Protocol with the host as guest.sh: "EXTOWN-E2E-PLUG" on ttyS0, the host
# hot-plugs the sticks, the guest waits for them by UUID. The ext4 stick
# (no fstab entry) is mounted by alice with udisksctl (udisks' own options
# from udev) and by root by hand; the ext2 stick by alice through its fstab
# "user" entry (mount(8) and the helper).
# Results go to /run (tmpfs: this works with a read-only `/` too),
# /run/extown-results/rootusb/{results,log,rc,...}, handed to the host on
# /dev/vda (tools/vm/guest-write-results.sh); then power off.
set -euo pipefail

top=/run/extown-results
out=$top/rootusb
mkdir -p "$out"
exec >"$out/log" 2>&1
results=$out/results
: >"$results"

UUID_EXT4=6a6b0e00-0000-4000-8000-000000000004
UUID_EXT2=6a6b0e00-0000-4000-8000-000000000002
t=e2e.rootusb

# shellcheck source=tests/e2e/guest-lib.sh
. /usr/local/lib/extown-e2e/guest-lib.sh
oneline() { tr '\n' ' ' | sed 's/ *$//'; }
as_alice() {
	setpriv --reuid=1000 --regid=1000 --init-groups \
		env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice LOGNAME=alice "$@"
}
prop() { # DEV NAME: value of a udev property, empty when unset
	udevadm info -q property "$1" | sed -n "s/^$2=//p"
}
# mountinfo lines; fields: 3 MAJ:MIN, 5 mount point, 6 per-mount options,
# then after " - ": type, source, superblock options
mi_at() { # DIR: the /proc/self/mountinfo line of the mount on top at DIR
	awk -v m="$1" '$5 == m' /proc/self/mountinfo | tail -n 1
}
mi_of() { # DEV: the mountinfo line of a mount of DEV (by device number)
	local mm
	mm=$(printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")")
	awk -v d="$mm" '$3 == d' /proc/self/mountinfo | tail -n 1
}
mi_vfs() { awk '{ print $6 }' <<<"$1"; }
mi_super() { awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 3); exit } }' <<<"$1"; }
has_opt() { # OPT LIST: OPT is one of the comma-separated LIST
	local o
	IFS=, read -r -a o <<<"$2"
	printf '%s\n' "${o[@]}" | grep -qx -- "$1"
}
has_owner_opt() { # LIST: a uid= or gid= in LIST
	tr , '\n' <<<"$1" | grep -Eq '^(uid|gid)='
}

# --- the system's root on USB ---------------------------------------------
root_tests() {
	local line mm rootdev vfs super st failed
	line=$(mi_at /)
	echo "$line" >"$out/root.mountinfo"
	note "/: $line"
	mm=$(awk '{ print $3 }' <<<"$line")
	# the kernel calls it /dev/root in mountinfo; udev knows it by number
	rootdev=/dev/block/$mm
	udevadm info -q property "$rootdev" >"$out/root.udev" 2>&1
	lsblk -o NAME,MAJ:MIN,TRAN,RM,FSTYPE,LABEL,MOUNTPOINT >"$out/lsblk" 2>&1
	cat "$out/lsblk"

	# the scenario is real: root on USB, tagged, a default-owner, an fstab
	# entry for / (so systemd-remount-fs runs mount -o remount /), booted ro
	check "$t.root_disk_on_usb" \
		"root $mm ($(readlink -f "$rootdev")): ID_BUS='$(prop "$rootdev" ID_BUS)' ID_PATH='$(prop "$rootdev" ID_PATH)'" \
		test "$(prop "$rootdev" ID_BUS)" = usb
	check "$t.root_disk_tagged_removable" \
		"root $mm: EXTOWN_REMOVABLE='$(prop "$rootdev" EXTOWN_REMOVABLE)' ID_FS_TYPE='$(prop "$rootdev" ID_FS_TYPE)'" \
		test "$(prop "$rootdev" EXTOWN_REMOVABLE)" = 1
	check "$t.policy_default_owner_alice" \
		"/etc/extown.conf: $(stat -c '%a %U' /etc/extown.conf 2>&1): $(oneline </etc/extown.conf 2>&1)" \
		eval 'grep -qx "default-owner = alice" /etc/extown.conf && test "$(stat -c %a:%u /etc/extown.conf)" = 644:0'
	check "$t.fstab_root_entry_booted_ro" \
		"fstab entry for /: '$(findmnt -s -n -o SOURCE,OPTIONS / 2>&1 | oneline)'; cmdline: $(cat /proc/cmdline)" \
		eval 'test -n "$(findmnt -s -n -o SOURCE /)" && grep -qw ro /proc/cmdline'

	# /srv/data: partition 2 of the same USB disk, mounted by systemd at
	# boot from fstab (after udev tagged it: mount units wait for the device)
	local dline ddev
	dline=$(mi_at /srv/data)
	echo "$dline" >"$out/data.mountinfo"
	if [ -z "$dline" ]; then
		fail "$t.data_disk_tagged_removable" "nothing mounted on /srv/data: $(systemctl status --no-pager srv-data.mount 2>&1 | tail -n 3 | oneline)"
		fail "$t.boot.fstab_usb_mount_no_uid_gid" "nothing mounted on /srv/data"
	else
		ddev=/dev/block/$(awk '{ print $3 }' <<<"$dline")
		check "$t.data_disk_tagged_removable" \
			"/srv/data $(readlink -f "$ddev"): EXTOWN_REMOVABLE='$(prop "$ddev" EXTOWN_REMOVABLE)' ID_BUS='$(prop "$ddev" ID_BUS)'" \
			test "$(prop "$ddev" EXTOWN_REMOVABLE)" = 1
		check "$t.boot.fstab_usb_mount_no_uid_gid" \
			"mountinfo: $dline; /srv/data/file $(stat -c %u:%g /srv/data/file 2>&1)" \
			eval '! has_owner_opt "$(mi_super "$dline")" && ! has_opt nosuid "$(mi_vfs "$dline")" &&
				test "$(stat -c %u:%g /srv/data/file)" = 1234:1234'
	fi

	# boot
	failed=$(systemctl --failed --no-legend --plain | awk '{ print $1 }' | oneline)
	systemctl --failed --no-pager >"$out/failed-units" 2>&1
	check "$t.boot.no_failed_units" "failed: $failed" test -z "$failed"
	st=$(systemctl show -p ActiveState -p Result -p ExecMainStatus -p ExecMainStartTimestampMonotonic \
		systemd-remount-fs.service | oneline)
	journalctl -b --no-pager -u systemd-remount-fs.service >"$out/remount-fs.journal" 2>&1
	check "$t.boot.remount_fs_succeeded" \
		"$st; journal: $(grep -v '^-- ' "$out/remount-fs.journal" | tail -n 3 | sed 's/^.*\]: //' | oneline)" \
		eval 'grep -q "ActiveState=active" <<<"$st" && grep -q "Result=success" <<<"$st" &&
			grep -q "ExecMainStatus=0" <<<"$st" && ! grep -q "ExecMainStartTimestampMonotonic=0\( \|$\)" <<<"$st"'

	# / after the boot
	vfs=$(mi_vfs "$line") super=$(mi_super "$line")
	check "$t.root_mounted_rw" "mount options '$vfs', superblock '$super'" \
		eval 'has_opt rw "$vfs" && has_opt rw "$super"'
	check "$t.root_no_uid_gid" "superblock options of /: '$super'" \
		eval '! has_owner_opt "$super"'
	check "$t.root_not_nosuid_nodev" "mount options of /: '$vfs'" \
		eval '! has_opt nosuid "$vfs" && ! has_opt nodev "$vfs"'
	check "$t.root_files_keep_owners" \
		"/etc/shadow $(stat -c %u:%g /etc/shadow), /home/alice $(stat -c %u:%g /home/alice), /usr/bin/su $(stat -c %u:%g /usr/bin/su)" \
		eval 'test "$(stat -c %u /etc/shadow):$(stat -c %u:%g /home/alice):$(stat -c %u /usr/bin/su)" = 0:1000:1000:0'
	# the same remount by hand, now: mount(8) -> mount.ext4 -> mount(2)
	local err rc=0
	err=$(mount -v -o remount,rw / 2>&1) || rc=$?
	line=$(mi_at /)
	echo "mount -o remount,rw /: status $rc: $err; now: $line" >"$out/remount.seen"
	check "$t.root_remount_by_root" "mount -o remount,rw / status $rc: $(oneline <<<"$err"); superblock now '$(mi_super "$line")'" \
		eval 'test "$rc" -eq 0 && ! has_owner_opt "$(mi_super "$line")"'
	# systemd-remount-fs once more, now that the root device is tagged (what
	# a boot does when udev data for it exists before the remount)
	rc=0
	systemctl restart systemd-remount-fs.service || rc=$?
	st=$(systemctl show -p ActiveState -p Result -p ExecMainStatus systemd-remount-fs.service | oneline)
	line=$(mi_at /)
	journalctl -b --no-pager -u systemd-remount-fs.service >"$out/remount-fs.journal" 2>&1
	check "$t.remount_fs_rerun_succeeded" \
		"restart status $rc, $st; / now '$(mi_vfs "$line")' '$(mi_super "$line")'; journal: $(grep -v '^-- ' "$out/remount-fs.journal" | tail -n 3 | sed 's/^.*\]: //' | oneline)" \
		eval 'test "$rc" -eq 0 && grep -q "Result=success" <<<"$st" && has_opt rw "$(mi_vfs "$line")" && ! has_owner_opt "$(mi_super "$line")"'
}

# --- a stick beside it -----------------------------------------------------
stick_tests() { # EXT4-DEV EXT2-DEV (either may be empty: not there)
	local dev=$1 dev2=$2 line err
	if [ -z "$dev" ]; then
		fail "$t.stick.appeared" "no device with UUID $UUID_EXT4 after hot-plug"
	else
		stick_ext4 "$dev"
	fi
	if [ -z "$dev2" ]; then
		fail "$t.stick.fstab_user_mount_uid_1000" "no device with UUID $UUID_EXT2 after hot-plug"
		return 0
	fi
	# her fstab "user" entry for the ext2 stick, through mount(8) and the helper
	if err=$(as_alice mount /media/usb-ext2 2>&1); then
		line=$(mi_of "$dev2")
		ls -ln /media/usb-ext2 >"$out/stick.fstab.ls"
		check "$t.stick.fstab_user_mount_uid_1000" \
			"mountinfo: $line; ls -ln: $(awk 'NF == 9 && $9 == "file"' "$out/stick.fstab.ls")" \
			eval 'has_opt uid=1000 "$(mi_super "$line")" && has_opt gid=1000 "$(mi_super "$line")" &&
				test "$(awk "NF == 9 && \$9 == \"file\" { print \$3 \":\" \$4 }" "$out/stick.fstab.ls")" = 1000:1000'
		as_alice umount /media/usb-ext2 || umount /media/usb-ext2
	else
		fail "$t.stick.fstab_user_mount_uid_1000" "mount /media/usb-ext2 as alice: $(oneline <<<"$err")"
	fi
}

stick_ext4() {
	local dev=$1 mnt line err
	udevadm info -q property "$dev" >"$out/stick.udev"
	check "$t.stick.tagged_removable" \
		"$dev: EXTOWN_REMOVABLE='$(prop "$dev" EXTOWN_REMOVABLE)' (ID_BUS=$(prop "$dev" ID_BUS))" \
		test "$(prop "$dev" EXTOWN_REMOVABLE)" = 1

	# udisks, as a desktop would
	if in_session udisksctl mount --no-user-interaction -b "$dev" >"$out/stick.udisksctl" 2>&1 &&
		mnt=$(findmnt -n -o TARGET --source "$dev" | head -n 1) && [[ $mnt == /media/alice/* ]]; then
		pass "$t.stick.udisksctl_mount_by_alice"
		line=$(mi_of "$dev")
		echo "$line" >"$out/stick.udisks.mountinfo"
		ls -ln "$mnt" >"$out/stick.udisks.ls"
		check "$t.stick.udisks_mount_uid_1000" "mountinfo: $line" \
			eval 'has_opt uid=1000 "$(mi_super "$line")" && has_opt gid=1000 "$(mi_super "$line")" &&
				has_opt nosuid "$(mi_vfs "$line")" && has_opt nodev "$(mi_vfs "$line")"'
		check "$t.stick.udisks_ls_shows_1000" "ls -ln: $(awk 'NF == 9 && $9 == "file"' "$out/stick.udisks.ls")" \
			eval 'test "$(awk "NF == 9 && \$9 == \"file\" { print \$3 \":\" \$4 }" "$out/stick.udisks.ls")" = 1000:1000'
		check "$t.stick.alice_edits_0600_file" "alice cannot write $mnt/secret" \
			as_alice sh -c 'echo "edited by alice" >>"$1"' sh "$mnt/secret"
		check "$t.stick.alice_creates_file" "alice cannot create $mnt/alice-rootusb" \
			as_alice sh -c 'echo "new by alice" >"$1"' sh "$mnt/alice-rootusb"
		in_session udisksctl unmount --no-user-interaction -b "$dev" || umount "$dev"
	else
		fail "$t.stick.udisksctl_mount_by_alice" "mount point '${mnt:-}', not under /media/alice: $(oneline <"$out/stick.udisksctl")"
		umount "$dev" 2>/dev/null
		for n in udisks_mount_uid_1000 udisks_ls_shows_1000 alice_edits_0600_file alice_creates_file; do
			skip "$t.stick.$n" "udisksctl mount failed"
		done
	fi

	# root mounts it by hand: default-owner = alice still applies to a stick
	if err=$(mount "$dev" /mnt/stick 2>&1); then
		line=$(mi_of "$dev")
		check "$t.stick.root_mount_gets_default_owner" \
			"mountinfo: $line; /file $(stat -c %u:%g /mnt/stick/file)" \
			eval 'has_opt uid=1000 "$(mi_super "$line")" && test "$(stat -c %u:%g /mnt/stick/file)" = 1000:1000'
		umount /mnt/stick
	else
		fail "$t.stick.root_mount_gets_default_owner" "mount $dev /mnt/stick: $(oneline <<<"$err")"
	fi
}

main() {
	local dev dev2
	note "$(uname -r); $(cat /proc/cmdline)"
	root_tests
	# alice's udisks calls go through her seat0 session (in_session)
	check "$t.alice_session" "no session of alice on seat0" alice_session
	echo EXTOWN-E2E-PLUG >/dev/ttyS0
	note "waiting for the sticks"
	dev=$(wait_dev "$UUID_EXT4") || dev=
	dev2=$(wait_dev "$UUID_EXT2") || dev2=
	note "ext4 stick: ${dev:-none}, ext2 stick: ${dev2:-none}"
	stick_tests "$dev" "$dev2"
	lsblk -o NAME,MAJ:MIN,TRAN,RM,FSTYPE,LABEL,MOUNTPOINT >>"$out/lsblk" 2>&1
	journalctl -b --no-pager -p warning >"$out/warnings.journal" 2>&1
	journalctl -b --no-pager -u udisks2 >"$out/udisks.journal" 2>&1
	journalctl -b --no-pager -o short-monotonic >"$out/journal" 2>&1
	return 0
}

# main runs on the left of || so that one failing probe in it (errexit is
# off there) cannot stop the results from reaching the host
rc=0
main || rc=$?
echo "$rc" >"$out/rc"
touch "$top/DONE"
dmesg >"$top/dmesg" 2>&1 || true
TMPDIR=/run extown-write-results "$top" /dev/vda || true
sync
echo o >/proc/sysrq-trigger
