#!/usr/bin/env bash
# The checks pass single-quoted expressions to eval on purpose:
# shellcheck disable=SC2016
# Runs INSIDE the Debian test guest (tests/e2e/run.sh boots it), as root,
# from extown-e2e.service once udisksd and polkitd are on the bus.
#
# Kernel command line: extown.args=KERNEL, the label used in test names:
# patched (our series: the uid= story), anything else (unpatched, Debian's
# stock kernels: the story through the idmapped-mount fallback). Protocol with the host:
#   1. the guest prints "EXTOWN-E2E-PLUG" on ttyS0 when it is ready;
#   2. the host hot-plugs the USB sticks through the QEMU monitor;
#   3. the guest waits for them (by filesystem UUID) and runs the tests.
# Sticks: ext4 (whole disk, UUID ...0004) and ext2 (partition 1 of a
# partitioned disk, UUID ...0002) on usb-storage removable=on; /dev/vdc
# holds a copy of the ext4 stick (UUID ...00f4) on virtio (internal).
#
# Writes /results/e2e/{results,log,rc,...} and hands /results to the host
# (tools/vm/guest-write-results.sh on /dev/vda), then powers off. Each test
# prints "PASS name" / "FAIL name: why" / "SKIP name: why" to results.
set -uo pipefail

out=/results/e2e
mkdir -p "$out"
exec >"$out/log" 2>&1
results=$out/results
: >"$results"

kernel=unknown
for w in $(</proc/cmdline); do
	case $w in extown.args=*) kernel=${w#extown.args=} ;; esac
done

UUID_EXT4=6a6b0e00-0000-4000-8000-000000000004
UUID_EXT2=6a6b0e00-0000-4000-8000-000000000002
UUID_VIRTIO=6a6b0e00-0000-4000-8000-0000000000f4

# shellcheck source=tests/e2e/guest-lib.sh
. /usr/local/lib/extown-e2e/guest-lib.sh
# alice's file operations; what she asks udisks goes through in_session
# (her seat0 session) instead: polkit refuses a caller outside it
as_alice() {
	setpriv --reuid=1000 --regid=1000 --init-groups \
		env -i PATH=/usr/bin:/bin HOME=/home/alice USER=alice LOGNAME=alice "$@"
}
# shellcheck source=tests/e2e/guest-desktop.sh
. /usr/local/lib/extown-e2e/guest-desktop.sh
# chown_eperm NAME FILE [as_alice]: chown FILE to 1234:1234 must fail with
# "Operation not permitted" and leave the presented owner 1000:1000
chown_eperm() {
	local name=$1 file=$2 msg
	shift 2
	if msg=$("$@" chown 1234:1234 "$file" 2>&1); then
		fail "$name" "chown 1234:1234 $file succeeded"
	elif [[ $msg != *"Operation not permitted"* ]]; then
		fail "$name" "chown failed, but not with EPERM: $msg"
	elif [ "$(stat -c %u:%g "$file")" != 1000:1000 ]; then
		fail "$name" "owner now $(stat -c %u:%g "$file")"
	else
		echo "$name: $msg" >>"$out/chown.messages"
		pass "$name"
	fi
}
prop() { # DEV NAME: value of a udev property, empty when unset
	udevadm info -q property "$1" | sed -n "s/^$2=//p"
}
mount_line() { # DEV: its /proc/mounts line
	awk -v d="$(readlink -f "$1")" '$1 == d' /proc/mounts
}
opt_in() { # OPT "LINE": OPT is one of the comma-separated options of LINE
	local o
	IFS=, read -r -a o <<<"$(awk '{ print $4 }' <<<"$2")"
	printf '%s\n' "${o[@]}" | grep -qx -- "$1"
}


# owners DIR: "uid:gid path" of everything under DIR (as stat sees it)
owners() { find "$1" -xdev -printf '%U:%G %P\n' | sort -k2; }

# holders DIR: "PID:COMM" of each process with its cwd, root or an open
# file under DIR
holders() {
	local p
	for p in /proc/[0-9]*; do
		if find "$p/cwd" "$p/root" "$p/fd" -maxdepth 1 -lname "$1*" 2>/dev/null | grep -q .; then
			echo -n "${p#/proc/}:$(cat "$p/comm" 2>/dev/null) "
		fi
	done
}

# umount_settled DIR: umount(8) DIR as root, again for up to 5 s while
# it is busy (a process of alice's desktop session may look into a new
# mount for a moment); each busy attempt, with the processes holding the
# mount, goes to $out/seen (printed by the host). Status of the last try.
umount_settled() {
	local i err
	for i in 1 2 3 4 5 6 7 8 9 10; do
		err=$(umount "$1" 2>&1) && return 0
		echo "SEEN umount $1, attempt $i: $err; held by: $(holders "$1")" >>"$out/seen"
		sleep 0.5
	done
	return 1
}

# udisks_mount LABEL DEV: udisksctl mount -b DEV as alice; the mount
# point on stdout. Output of udisksctl in $out/LABEL.udisksctl.
udisks_mount() {
	local label=$1 dev=$2
	in_session udisksctl mount --no-user-interaction -b "$dev" >"$out/$label.udisksctl" 2>&1 || {
		echo "udisksctl mount: $(tr '\n' ' ' <"$out/$label.udisksctl")" >&2
		return 1
	}
	findmnt -n -o TARGET --source "$dev" | head -n 1
}

# alice_uses_0600_file T MNT: alice reads and appends to MNT/secret (0600,
# the stick owner's), which she may only as its presented owner
alice_uses_0600_file() {
	local t=$1 mnt=$2
	check "$t.alice_reads_0600_file" "alice cannot read $mnt/secret" \
		as_alice cat "$mnt/secret"
	check "$t.alice_edits_0600_file" "alice cannot write $mnt/secret" \
		as_alice sh -c 'echo "edited by alice" >>"$1"' sh "$mnt/secret"
}

# alice_creates T MNT: alice creates MNT/alice-new and MNT/alice-dir, and
# sees them as hers (what they are on disk, the host checks)
alice_creates() {
	local t=$1 mnt=$2
	check "$t.alice_creates_file" "alice cannot create $mnt/alice-new" \
		as_alice sh -c 'echo "new by alice" >"$1" && mkdir "$2"' sh "$mnt/alice-new" "$mnt/alice-dir"
	check "$t.new_file_stats_1000" "stat: $(stat -c %u:%g "$mnt/alice-new" 2>&1)" \
		test "$(stat -c %u:%g "$mnt/alice-new" 2>/dev/null)" = 1000:1000
}

# udisks_unmount T DEV: udisksctl unmount by alice, and DEV is gone from
# /proc/mounts (root unmounts it otherwise)
udisks_unmount() {
	local t=$1 dev=$2
	if in_session udisksctl unmount --no-user-interaction -b "$dev" && [ -z "$(mount_line "$dev")" ]; then
		pass "$t.udisksctl_unmount_by_alice"
	else
		fail "$t.udisksctl_unmount_by_alice" "still mounted: $(mount_line "$dev")"
		umount "$dev"
	fi
}

# The acceptance story on one stick. STICK: ext4 | ext2, DEV its node.
story() {
	local fs=$1 dev=$2 mnt line bad
	local t=e2e.U2.$fs
	note "story $fs on $dev"
	udevadm info -q property "$dev" >"$out/$fs.udev"
	check "e2e.U1.$fs.usb_stick_tagged_removable" \
		"EXTOWN_REMOVABLE='$(prop "$dev" EXTOWN_REMOVABLE)' (ID_BUS=$(prop "$dev" ID_BUS))" \
		test "$(prop "$dev" EXTOWN_REMOVABLE)" = 1
	local key
	key=UDISKS_MOUNT_OPTIONS_${fs^^}
	check "$t.udisks_options_from_udev" \
		"${key}_DEFAULTS='$(prop "$dev" "${key}_DEFAULTS")' ${key}_ALLOW='$(prop "$dev" "${key}_ALLOW")'" \
		test "$(prop "$dev" "${key}_DEFAULTS")" = 'errors=remount-ro,uid=$UID,gid=$GID' -a \
		"$(prop "$dev" "${key}_ALLOW")" = 'errors=remount-ro,uid=$UID,gid=$GID'

	# before: what root sees without any override (read-only, then gone)
	mkdir -p /mnt/before
	if mount -o ro "$dev" /mnt/before; then
		ls -ln /mnt/before >"$out/$fs.ls-before"
		umount /mnt/before
	fi

	# alice may not ask udisks for someone else's uid
	if in_session udisksctl mount --no-user-interaction -b "$dev" -o uid=0 >"$out/$fs.uid0" 2>&1; then
		fail "$t.udisks_refuses_uid_0" "mounted: $(mount_line "$dev")"
		umount "$dev"
	elif [ -n "$(mount_line "$dev")" ]; then
		fail "$t.udisks_refuses_uid_0" "refused, but mounted: $(mount_line "$dev")"
		umount "$dev"
	else
		pass "$t.udisks_refuses_uid_0"
	fi

	note "alice: udisksctl mount -b $dev"
	if ! mnt=$(udisks_mount "$fs" "$dev") || [ -z "$mnt" ]; then
		fail "$t.udisksctl_mount_by_alice" "$(tr '\n' ' ' <"$out/$fs.udisksctl")"
		for n in udisksctl_mount_shows_uid_1000 ls_shows_uid_1000 alice_reads_0600_file \
			alice_edits_0600_file alice_creates_file new_file_stats_1000 alice_chown_eperm \
			root_chown_eperm chown_to_presented_owner_ok udisksctl_unmount_by_alice; do
			skip "$t.$n" "not mounted"
		done
		return 0
	fi
	pass "$t.udisksctl_mount_by_alice"
	line=$(mount_line "$dev")
	echo "$line" >"$out/$fs.mounts"
	ls -ln "$mnt" >"$out/$fs.ls-after"
	ls -ln "$mnt/dir" >>"$out/$fs.ls-after"
	note "mounted at $mnt: $line"
	check "$t.udisksctl_mount_shows_uid_1000" "/proc/mounts: $line" \
		eval 'opt_in uid=1000 "$line" && opt_in gid=1000 "$line" && opt_in nosuid "$line" && opt_in nodev "$line"'
	owners "$mnt" >"$out/$fs.owners"
	bad=$(grep -v '^1000:1000 ' "$out/$fs.owners" | head -n 3 | tr '\n' ';')
	check "$t.ls_shows_uid_1000" "not 1000:1000: $bad" test -z "$bad"
	alice_uses_0600_file "$t" "$mnt"
	alice_creates "$t" "$mnt"
	# K4: giving a file away is refused with EPERM, for alice and for root,
	# and says so; chown to the presented owner is a no-op that succeeds
	chown_eperm "$t.alice_chown_eperm" "$mnt/file" as_alice
	chown_eperm "$t.root_chown_eperm" "$mnt/secret"
	check "$t.chown_to_presented_owner_ok" "chown 1000:1000 by alice failed" \
		as_alice chown 1000:1000 "$mnt/alice-new"
	udisks_unmount "$t" "$dev"
}

# An administrator's /etc/udisks2/mount_options.conf next to our udev
# properties: the generic [defaults] sets add up, an ext4_defaults of theirs
# is replaced by ours on tagged devices (docs/udisks.md).
admin_conf() {
	local dev=$1 t=e2e.U2.ext4.admin_conf mnt line
	mkdir -p /etc/udisks2
	cat >/etc/udisks2/mount_options.conf <<-'EOF'
		[defaults]
		defaults=noatime
		ext4_defaults=errors=remount-ro,commit=17
		ext4_allow=errors=remount-ro,commit
	EOF
	if ! mnt=$(udisks_mount admin "$dev") || [ -z "$mnt" ]; then
		fail "$t.generic_defaults_kept" "$(tr '\n' ' ' <"$out/admin.udisksctl")"
		skip "$t.ext4_defaults_replaced" "not mounted"
	else
		line=$(mount_line "$dev")
		echo "$line" >"$out/admin.mounts"
		check "$t.generic_defaults_kept" "/proc/mounts: $line" \
			eval 'opt_in noatime "$line" && opt_in uid=1000 "$line"'
		check "$t.ext4_defaults_replaced" "/proc/mounts: $line" \
			eval '! opt_in commit=17 "$line"'
		in_session udisksctl unmount --no-user-interaction -b "$dev" || umount "$dev"
	fi
	rm -f /etc/udisks2/mount_options.conf
}

# Per-UUID opt-out: a local rule between 61-extown and 69-extown-udisks.
opt_out() {
	local dev=$1 uuid=$2 t=e2e.U1.ext2.uuid_opt_out mnt line
	echo "ENV{ID_FS_UUID}==\"$uuid\", ENV{EXTOWN_REMOVABLE}=\"0\"" \
		>/etc/udev/rules.d/65-extown-local.rules
	udevadm control --reload
	udevadm trigger --action=change --settle "$dev"
	check "$t.property_cleared" "EXTOWN_REMOVABLE='$(prop "$dev" EXTOWN_REMOVABLE)'" \
		test "$(prop "$dev" EXTOWN_REMOVABLE)" = 0 -a -z "$(prop "$dev" UDISKS_MOUNT_OPTIONS_EXT2_DEFAULTS)"
	if ! mnt=$(udisks_mount optout "$dev") || [ -z "$mnt" ]; then
		fail "$t.udisks_mount_without_uid" "$(tr '\n' ' ' <"$out/optout.udisksctl")"
	else
		line=$(mount_line "$dev")
		check "$t.udisks_mount_without_uid" "/proc/mounts: $line" \
			eval '! opt_in uid=1000 "$line" && test "$(stat -c %u "$mnt/file")" = 1234'
		in_session udisksctl unmount --no-user-interaction -b "$dev" || umount "$dev"
	fi
	rm -f /etc/udev/rules.d/65-extown-local.rules
	udevadm control --reload
	udevadm trigger --action=change --settle "$dev"
}

# U3: the same stick content on virtio (internal) stays untouched.
internal() {
	local dev=$1 t=e2e.U3.virtio mnt line
	udevadm info -q property "$dev" >"$out/virtio.udev"
	check "$t.not_tagged" "EXTOWN_REMOVABLE='$(prop "$dev" EXTOWN_REMOVABLE)' UDISKS_MOUNT_OPTIONS_EXT4_DEFAULTS='$(prop "$dev" UDISKS_MOUNT_OPTIONS_EXT4_DEFAULTS)'" \
		test -z "$(prop "$dev" EXTOWN_REMOVABLE)$(prop "$dev" UDISKS_MOUNT_OPTIONS_EXT4_DEFAULTS)"
	# root asks udisks (alice may not: polkit_refusals)
	if ! udisksctl mount --no-user-interaction -b "$dev" >"$out/virtio.udisksctl" 2>&1 ||
		! mnt=$(findmnt -n -o TARGET --source "$dev" | head -n 1) || [ -z "$mnt" ]; then
		fail "$t.udisks_mount_unchanged" "$(tr '\n' ' ' <"$out/virtio.udisksctl")"
	else
		line=$(mount_line "$dev")
		echo "$line" >"$out/virtio.mounts"
		owners "$mnt" >"$out/virtio.owners"
		check "$t.udisks_mount_unchanged" "/proc/mounts: $line; /file $(stat -c %u:%g "$mnt/file")" \
			eval '! grep -q "uid=" <<<"$line" && test "$(stat -c %u:%g "$mnt/file")" = 1234:1234'
		udisksctl unmount --no-user-interaction -b "$dev" || umount "$dev"
	fi
	mkdir -p /mnt/virtio
	if mount "$dev" /mnt/virtio; then
		line=$(mount_line "$dev")
		check "$t.root_mount_unchanged" "/proc/mounts: $line" \
			eval '! grep -q "uid=" <<<"$line" && test "$(stat -c %u "/mnt/virtio/file")" = 1234'
		umount /mnt/virtio
	else
		fail "$t.root_mount_unchanged" "mount $dev failed"
	fi
}

# A kernel without uid=/gid= (our unpatched build, Debian's stock kernels):
# the acceptance story through the helper's idmapped-mount fallback. The
# stick's owner 1234:1234 is shown as alice's 1000:1000 one way (her own
# 1000 on disk would show as nobody), every other owner as it is on disk
# (/other 4321, /rootfile 0, /high 70000), new files are written as
# 1234:1234 (the host checks that with debugfs), ext2 is served by the ext4
# driver.
fallback_story() {
	local fs=$1 dev=$2 mnt line key opts fstype msg
	local t=e2e.$kernel.$fs
	key=UDISKS_MOUNT_OPTIONS_${fs^^}_DEFAULTS
	udevadm info -q property "$dev" >"$out/$fs.udev"
	check "$t.tagged_removable" "EXTOWN_REMOVABLE='$(prop "$dev" EXTOWN_REMOVABLE)'" \
		test "$(prop "$dev" EXTOWN_REMOVABLE)" = 1
	check "$t.kernel_has_no_uid_option" "/sys/fs/ext4/features: $(echo /sys/fs/ext4/features/*)" \
		test ! -e /sys/fs/ext4/features/uid_gid_override
	check "$t.udisks_options_from_udev" "$key='$(prop "$dev" "$key")'" \
		test "$(prop "$dev" "$key")" = 'errors=remount-ro,uid=$UID,gid=$GID'
	note "alice: udisksctl mount -b $dev"
	if ! mnt=$(udisks_mount "$fs" "$dev") || [ -z "$mnt" ]; then
		fail "$t.udisksctl_mount_by_alice" "$(tr '\n' ' ' <"$out/$fs.udisksctl")"
		return 0
	fi
	pass "$t.udisksctl_mount_by_alice"
	line=$(mount_line "$dev")
	opts=$(findmnt -n -o OPTIONS --source "$dev" | head -n 1)
	fstype=$(findmnt -n -o FSTYPE --source "$dev" | head -n 1)
	echo "$line" >"$out/$fs.mounts"
	ls -ln "$mnt" >"$out/$fs.ls-after"
	owners "$mnt" >"$out/$fs.owners"
	echo "SEEN $fs: $line; /file owned $(stat -c %u:%g "$mnt/file")" | tee -a "$out/seen"
	check "$t.mount_is_idmapped_nosuid_nodev" "mountinfo options: $opts" \
		eval 'opt_in idmapped "x x x $opts" && opt_in nosuid "x x x $opts" && opt_in nodev "x x x $opts" && ! opt_in uid=1000 "x x x $opts"'
	check "$t.served_by_ext4_driver" "type $fstype" test "$fstype" = ext4
	check "$t.owner_1234_shown_as_1000" "/file $(stat -c %u:%g "$mnt/file"), / $(stat -c %u:%g "$mnt"), /dir/inner $(stat -c %u:%g "$mnt/dir/inner")" \
		test "$(stat -c %u:%g "$mnt/file"),$(stat -c %u:%g "$mnt"),$(stat -c %u:%g "$mnt/dir/inner")" = 1000:1000,1000:1000,1000:1000
	check "$t.other_owners_kept" "/other $(stat -c %u:%g "$mnt/other"), /rootfile $(stat -c %u:%g "$mnt/rootfile"), /high $(stat -c %u:%g "$mnt/high")" \
		test "$(stat -c %u:%g "$mnt/other") $(stat -c %u:%g "$mnt/rootfile") $(stat -c %u:%g "$mnt/high")" = "4321:4321 0:0 70000:70000"
	# issue 18: one way; alice's own ids on disk are nobody's on this mount
	check "$t.callers_own_file_shown_as_nobody" "/ownfile $(stat -c %u:%g "$mnt/ownfile")" \
		test "$(stat -c %u:%g "$mnt/ownfile")" = 65534:65534
	alice_uses_0600_file "$t" "$mnt"
	check "$t.alice_cannot_write_4321_file" "alice wrote /other" \
		eval '! as_alice sh -c '"'"'echo x >>"$1"'"'"' sh "$mnt/other" 2>/dev/null'
	alice_creates "$t" "$mnt"
	if msg=$(as_alice chown 4321:4321 "$mnt/alice-new" 2>&1); then
		fail "$t.alice_chown_eperm" "chown 4321:4321 succeeded"
	else
		check "$t.alice_chown_eperm" "chown: $msg" grep -q 'Operation not permitted' <<<"$msg"
	fi
	udisks_unmount "$t" "$dev"
}

# The fallback's plain-mount cases, on a kernel without uid=: each must
# mount (without an owner, uid=/gid= removed) and say why in one line.
# Run as root on loop images made here and on the ext4 stick; the helper
# is run directly, as udisks runs it.
fallback_edges() {
	local dev4=$1 t=e2e.$kernel.edge img loop err rc opts
	mkdir -p /mnt/edge
	# edge_mount NAME WANT-IN-STDERR DEV [ENV...]: mount.ext4 DEV with
	# uid=1000,gid=1000 succeeds, is not idmapped, has no uid=, says WANT
	edge_mount() {
		local name=$1 want=$2 dev=$3
		shift 3
		rc=0
		err=$(env "$@" /usr/sbin/mount.ext4 "$dev" /mnt/edge -o rw,nosuid,nodev,uid=1000,gid=1000 2>&1) || rc=$?
		opts=$(findmnt -n -o OPTIONS /mnt/edge)
		echo "$name: status $rc, options '$opts', stderr: $err" >>"$out/edges.seen"
		if [ "$rc" -ne 0 ] || [ -z "$opts" ]; then
			fail "$t.$name" "status $rc, not mounted; stderr: $err"
		elif opt_in idmapped "x x x $opts" || grep -q 'uid=' <<<"$opts"; then
			fail "$t.$name" "options '$opts'"
		elif ! grep -q -- "$want" <<<"$err"; then
			fail "$t.$name" "stderr lacks '$want': $err"
		else
			pass "$t.$name"
		fi
		umount /mnt/edge 2>/dev/null
	}
	for kind in root_only already_owner; do
		img=/var/tmp/edge-$kind.img
		rm -f "$img"
		if [ "$kind" = root_only ]; then
			mkfs.ext4 -q -F "$img" 16M
		else
			mkfs.ext4 -q -F -E root_owner=1000:1000 "$img" 16M
		fi
		loop=$(losetup -f --show "$img")
		if [ "$kind" = root_only ]; then
			edge_mount root_only_filesystem_plain 'no owner other than root' "$loop"
		else
			edge_mount already_owned_by_caller_plain 'already the one asked for' "$loop"
		fi
		losetup -d "$loop"
		rm -f "$img"
	done
	edge_mount kernel_cannot_idmap_plain 'the kernel cannot idmap this mount' "$dev4" \
		LD_PRELOAD=/usr/local/lib/extown-e2e/noidmap.so
	edge_mount no_mount_api_plain 'nor the new mount API' "$dev4" \
		LD_PRELOAD=/usr/local/lib/extown-e2e/noidmap.so EXTOWN_SHIM=noapi
	echo 'idmap-fallback = no' >/etc/extown.conf
	edge_mount idmap_fallback_no_plain 'idmap-fallback = no' "$dev4"
	rm -f /etc/extown.conf
	# the fallback's mount for root with nothing in the way, for contrast
	rc=0
	err=$(/usr/sbin/mount.ext4 "$dev4" /mnt/edge -o rw,nosuid,nodev,uid=1000,gid=1000 2>&1) || rc=$?
	opts=$(findmnt -n -o OPTIONS /mnt/edge)
	check "$t.root_uid_option_idmapped" "status $rc, options '$opts', stderr: $err" \
		eval '[ "$rc" -eq 0 ] && opt_in idmapped "x x x $opts" && test "$(stat -c %u:%g /mnt/edge/file)" = 1000:1000'
	umount /mnt/edge 2>/dev/null
}

# utab_user TARGET: /run/mount/utab's entry for TARGET names user=alice
utab_user() {
	grep -E "(^| )TARGET=$1( |\$)" /run/mount/utab 2>/dev/null | grep -qE '(^| |,|OPTS=)user=alice(,| |$)'
}

# user_mount_cycle T TARGET DEV CMD...: CMD (as alice) mounts DEV on TARGET;
# the stick's /file (1234:1234 on disk) shows as 1000:1000; utab names
# alice; alice unmounts it with umount(8)
user_mount_cycle() {
	local t=$1 target=$2 dev=$3 rc=0 err line
	shift 3
	err=$(as_alice "$@" 2>&1) || rc=$?
	line=$(mount_line "$dev")
	echo "alice $*: status $rc: $line; stderr: $err" >>"$out/helper.seen"
	if [ "$rc" -ne 0 ] || ! mountpoint -q "$target"; then
		fail "$t.mounted" "status $rc: $(head -n 2 <<<"$err" | tr '\n' ' ')"
		return 0
	fi
	pass "$t.mounted"
	check "$t.file_shown_as_1000" "/proc/mounts: $line; /file $(stat -c %u:%g "$target/file")" \
		test "$(stat -c %u:%g "$target/file")" = 1000:1000
	check "$t.nosuid_nodev" "/proc/mounts: $line" eval 'opt_in nosuid "$line" && opt_in nodev "$line"'
	check "$t.utab_user_alice" "utab: $(grep -F "TARGET=$target" /run/mount/utab 2>/dev/null || echo 'no entry')" \
		utab_user "$target"
	rc=0
	err=$(as_alice umount "$target" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$(mount_line "$dev")" ]; then
		pass "$t.alice_umounts"
	else
		fail "$t.alice_umounts" "umount $target as alice: status $rc: $err"
		umount "$target" 2>/dev/null || true
	fi
}

# H8: mount.ext4 run directly by alice, as mount(8) runs it for her fstab
# "user" entry: on util-linux 2.40+ mount(8) writes user= into utab after
# the helper, so a direct call relies on the helper for it
direct_call() {
	[ -n "$1" ] || return 0
	user_mount_cycle "e2e.H.H8.$kernel.direct_call" /media/usb-ext4 "$1" \
		/usr/sbin/mount.ext4 "$1" /media/usb-ext4 -o rw,noexec,nosuid,nodev,user
}

# H9: a "user" entry with X-mount.idmap= (util-linux 2.39+): mount(8)
# idmaps the mount, the helper adds no owner of its own; alice can unmount
# (no idmapping twice, utab written)
x_mount_idmap() {
	local t=e2e.H.H9.$kernel.x_mount_idmap s
	[ -n "$1" ] || return 0
	if ! mount -V | grep -qw idmapping; then
		for s in mounted file_shown_as_1000 nosuid_nodev utab_user_alice alice_umounts no_stale_utab_act; do
			skip "$t.$s" "mount(8) has no X-mount.idmap= ($(mount -V | head -n 1))"
		done
		return 0
	fi
	rm -f /run/mount/utab.act
	user_mount_cycle "$t" /media/idmap "$1" mount /media/idmap
	check "$t.no_stale_utab_act" "/run/mount/utab.act left behind" test ! -e /run/mount/utab.act
}

# mount(8) from util-linux with fstab "user" entries, as root and as alice,
# through the installed helper (H2-H4, H6). A logging wrapper in front of
# the helper records the argv and ids mount(8) ran it with.
helper_tests() {
	local dev4=$1 devv=$2 k=$kernel line base err rc
	local t=e2e.H
	# wrapper: log argv and "Uid: real effective saved fs", exec the real
	# (setuid) helper under its own name
	mv /usr/sbin/mount.ext4 /usr/sbin/mount.ext4.real
	cat >/usr/sbin/mount.ext4 <<-'EOF'
		#!/bin/bash
		{
			printf 'argv:'; printf ' %s' "$0" "$@"; echo
			grep -E '^(Uid|Gid):' /proc/$$/status | tr '\t' ' '
		} >>/run/extown-helper-argv.log
		exec -a "$0" /usr/sbin/mount.ext4.real "$@"
	EOF
	chmod 0755 /usr/sbin/mount.ext4
	: >/run/extown-helper-argv.log
	chmod 0666 /run/extown-helper-argv.log
	mkdir -p /media/usb-ext4 /media/internal /media/idmap /mnt/base
	cat >/etc/fstab <<-EOF
		UUID=$UUID_EXT4 /media/usb-ext4 ext4 user,noauto 0 0
		UUID=$UUID_VIRTIO /media/internal ext4 user,noauto,noatime 0 0
		UUID=$UUID_EXT4 /media/idmap ext4 user,noauto,X-mount.idmap=b:1234:1000:1 0 0
	EOF

	# H3 (patched) / H6 (unpatched): alice mounts the tagged stick
	if err=$(as_alice mount /media/usb-ext4 2>&1); then
		line=$(mount_line "$dev4")
		echo "alice mount /media/usb-ext4: $line; stderr: $err" >>"$out/helper.seen"
		if [ "$k" = patched ]; then
			check "$t.H3.$k.alice_fstab_mount_gets_uid_1000" "/proc/mounts: $line" \
				eval 'opt_in uid=1000 "$line" && opt_in gid=1000 "$line" && opt_in nosuid "$line" && opt_in nodev "$line"'
			check "$t.H3.$k.alice_sees_files_as_hers" "/file $(stat -c %u:%g /media/usb-ext4/file)" \
				test "$(stat -c %u:%g /media/usb-ext4/file)" = 1000:1000
		else
			check "$t.H6.$k.alice_fstab_mount_idmapped" "/proc/mounts: $line; /file $(stat -c %u:%g /media/usb-ext4/file)" \
				eval '! grep -q uid= <<<"$line" && opt_in idmapped "$line" && opt_in nosuid "$line" && opt_in nodev "$line" && test "$(stat -c %u:%g /media/usb-ext4/file)" = 1000:1000'
			check "$t.H6.$k.helper_says_idmapped_instead" "stderr: $err" \
				grep -q 'no uid=/gid= support for ext4; idmapped mount instead: uid 1234 shown as 1000' <<<"$err"
		fi
		# on disk 1000:1000 (patched) or 1234:1234 (fallback): the host checks
		check "$t.H3.$k.alice_creates_in_fstab_mount" "alice cannot create /media/usb-ext4/alice-fstab" \
			as_alice sh -c 'echo "fstab mount, alice" >/media/usb-ext4/alice-fstab'
		if err=$(as_alice umount /media/usb-ext4 2>&1) && [ -z "$(mount_line "$dev4")" ]; then
			pass "$t.H3.$k.alice_umounts"
		else
			fail "$t.H3.$k.alice_umounts" "$err"
			umount "$dev4"
		fi
	else
		fail "$t.H3.$k.alice_fstab_mount" "mount /media/usb-ext4 as alice: $err"
	fi

	# H4: alice asks for root's uid
	rc=0
	err=$(as_alice mount -o uid=0 /media/usb-ext4 2>&1) || rc=$?
	echo "alice mount -o uid=0 /media/usb-ext4: status $rc: $err" >>"$out/helper.seen"
	if [ "$rc" -ne 0 ] && [ -z "$(mount_line "$dev4")" ] && grep -q 'refused' <<<"$err"; then
		pass "$t.H4.$k.alice_uid0_refused"
	else
		fail "$t.H4.$k.alice_uid0_refused" "status $rc, mounted '$(mount_line "$dev4")', stderr: $err"
		umount "$dev4" 2>/dev/null
	fi

	# root mounts the tagged stick: no default-owner in the policy, untouched
	if mount /media/usb-ext4; then
		line=$(mount_line "$dev4")
		check "$t.H3.$k.root_fstab_mount_untouched" "/proc/mounts: $line" \
			eval '! grep -q uid= <<<"$line"'
		if umount_settled /media/usb-ext4; then
			pass "$t.H3.$k.root_umounts"
		else
			fail "$t.H3.$k.root_umounts" "$(tail -n 1 "$out/seen")"
			umount -l /media/usb-ext4
		fi
	else
		fail "$t.H3.$k.root_fstab_mount_untouched" "mount /media/usb-ext4 as root failed"
	fi

	# H2: the internal disk, by alice through fstab and by root: exactly the
	# options a direct mount without helper (mount -i) gets
	if mount -i -o noexec,nosuid,nodev,noatime "$devv" /mnt/base; then
		base=$(mount_line "$devv" | awk '{ print $4 }')
		umount /mnt/base
	fi
	if err=$(as_alice mount /media/internal 2>&1); then
		line=$(mount_line "$devv")
		echo "alice mount /media/internal: $line (direct: $base)" >>"$out/helper.seen"
		check "$t.H2.$k.alice_internal_exact_options" "helper: $(awk '{ print $4 }' <<<"$line"), direct: $base" \
			test "$(awk '{ print $4 }' <<<"$line")" = "$base"
		as_alice umount /media/internal || umount /media/internal
	else
		fail "$t.H2.$k.alice_internal_exact_options" "mount /media/internal as alice: $err"
	fi
	if mount -i -o ro,noatime "$devv" /mnt/base; then
		base=$(mount_line "$devv" | awk '{ print $4 }')
		umount /mnt/base
	fi
	if mount -o ro,noatime "$devv" /mnt/base; then
		line=$(mount_line "$devv")
		check "$t.H2.$k.root_internal_exact_options" "helper: $(awk '{ print $4 }' <<<"$line"), direct: $base" \
			test "$(awk '{ print $4 }' <<<"$line")" = "$base"
		umount /mnt/base
	else
		fail "$t.H2.$k.root_internal_exact_options" "mount -o ro,noatime $devv as root failed"
	fi

	direct_call "$dev4"
	x_mount_idmap "$dev4"

	check "$t.H1.$k.helper_was_run" "the wrapper logged nothing" \
		grep -q '^argv:' /run/extown-helper-argv.log
	cp /run/extown-helper-argv.log "$out/helper-argv.log"
	mv /usr/sbin/mount.ext4.real /usr/sbin/mount.ext4
	: >/etc/fstab
}

# guest_break: broken on purpose half-way (tests/e2e/run.sh
# EXTOWN_E2E_BREAK=abort or poweroff puts extown.break= on the command
# line): the script dies under set -u, or the VM powers off with no results
guest_break() {
	case " $(</proc/cmdline) " in
	*" extown.break=abort "*)
		echo "BROKEN ON PURPOSE: an unset variable under set -u"
		# shellcheck disable=SC2154 # unset on purpose
		: "$extown_unset_on_purpose"
		;;
	*" extown.break=poweroff "*)
		echo "BROKEN ON PURPOSE: power off before the results are written"
		sync
		echo o >/proc/sysrq-trigger
		sleep 60
		;;
	esac
}

main() {
	local dev4 dev2 devv
	note "kernel $kernel: $(uname -r)"
	systemd-analyze >"$out/boot-time" 2>&1
	check "e2e.$kernel.boot.no_failed_units" "$(systemctl --failed --no-legend --plain | tr '\n' ' ')" \
		test -z "$(systemctl --failed --no-legend --plain)"
	check "e2e.U1.$kernel.root_disk_not_tagged" "vdb: EXTOWN_REMOVABLE='$(prop /dev/vdb EXTOWN_REMOVABLE)'" \
		test -z "$(prop /dev/vdb EXTOWN_REMOVABLE)"

	session_facts
	guest_break
	udiskie_start
	echo EXTOWN-E2E-PLUG >/dev/ttyS0
	note "waiting for the sticks"
	dev4=$(wait_dev "$UUID_EXT4") || dev4=
	dev2=$(wait_dev "$UUID_EXT2") || dev2=
	devv=$(wait_dev "$UUID_VIRTIO") || devv=
	note "ext4 stick: ${dev4:-none}, ext2 stick: ${dev2:-none}, virtio: ${devv:-none}"
	lsblk -o NAME,TRAN,RM,FSTYPE,UUID >"$out/lsblk" 2>&1
	cat "$out/lsblk"
	# the desktop: udiskie automounted the sticks; after it, GVfs; what the
	# stock policy refuses
	note "desktop: udiskie's automount, gio mount, what polkit refuses"
	udiskie_check ${dev4:+ext4 "$dev4"} ${dev2:+ext2 "$dev2"}
	[ -z "$dev4" ] || desktop_unmount "$(desk_t ext4).udiskie" "$dev4"
	[ -z "$dev2" ] || desktop_unmount "$(desk_t ext2).udiskie" "$dev2"
	[ -z "$dev4" ] || gio_check ext4 "$dev4"
	[ -z "$dev2" ] || gio_check ext2 "$dev2"
	[ -z "$dev4" ] || polkit_refusals "$dev4" "$devv"

	case $kernel in
	patched)
		if [ -n "$dev4" ]; then
			story ext4 "$dev4"
			admin_conf "$dev4"
		else
			fail e2e.U2.ext4.stick_appeared "no device with UUID $UUID_EXT4 after hot-plug"
		fi
		if [ -n "$dev2" ]; then
			story ext2 "$dev2"
			opt_out "$dev2" "$UUID_EXT2"
		else
			fail e2e.U2.ext2.stick_appeared "no device with UUID $UUID_EXT2 after hot-plug"
		fi
		if [ -n "$devv" ]; then
			internal "$devv"
		else
			fail e2e.U3.virtio.disk_appeared "no device with UUID $UUID_VIRTIO"
		fi
		;;
	unknown) fail "e2e.guest.args" "no kernel label (extown.args=) on the command line" ;;
	*)
		for fs in ext4 ext2; do
			if [ "$fs" = ext4 ]; then dev=$dev4; else dev=$dev2; fi
			if [ -n "$dev" ]; then
				fallback_story "$fs" "$dev"
			else
				fail "e2e.$kernel.$fs.stick_appeared" "no device after hot-plug"
			fi
		done
		if [ -n "$dev4" ]; then
			fallback_edges "$dev4"
		fi
		;;
	esac
	if [ -n "$dev4" ] && [ -n "$devv" ]; then
		note "helper tests (mount(8), fstab user entries)"
		helper_tests "$dev4" "$devv"
	fi
	journalctl -b --no-pager -u udisks2 >"$out/udisks.journal" 2>&1
	journalctl -b --no-pager -p warning >"$out/warnings.journal" 2>&1
}

# guest_end, on any exit: rc is 0 when main ran to its end (its checks
# say the rest), else the status the script died with (an abort under
# set -u, say: never 0), so that the host reports the tests it did not
# reach as e2e.KERNEL.guest_finished; then the results go to the host and
# the guest powers off.
# shellcheck disable=SC2317 # the EXIT trap runs it
guest_end() {
	local rc=$?
	trap - EXIT
	if [ "$main_done" != yes ]; then
		[ "$rc" -ne 0 ] || rc=1
		echo "guest.sh: stopped before the end of main (status $rc)"
	fi
	echo "$rc" >"$out/rc"
	touch /results/DONE
	dmesg >/results/dmesg 2>&1
	extown-write-results /results /dev/vda
	sync
	echo o >/proc/sysrq-trigger
}
main_done=no
trap guest_end EXIT
main
main_done=yes
