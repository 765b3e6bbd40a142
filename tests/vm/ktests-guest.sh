#!/bin/sh
# shellcheck shell=dash
# In-guest kernel tests for the uid=/gid= mount options (K1-K14 of
# docs/semantics.md), run by busybox ash inside the test VM.
#
#   ktests-guest.sh OUTDIR MODE LABEL:DEVICE:FSTYPE:SUITE[+SUITE...]...
#
# MODE is "patched" or "unpatched"; SUITE names a suite_* function below
# (suites are joined with "+" because the VM harness splits its guest
# arguments at commas). Every image holds the tree made by
# tools/vm/mkimages.sh (files owned by 1234:1234, /high owned by 70000).
# Writes to OUTDIR:
#   results   one line per test: "PASS name" or "FAIL name: why"
#   expect    "LABEL PATH UID GID" owners the host must find on disk
#   modes     "LABEL PATH MODE" modes (octal) the host must find on disk
#   deleted   "LABEL PATH UID GID" owners the host must find on the inode
#             PATH had in the image's manifest, deleted in the VM
#   dmesg     the kernel messages, chunk by chunk with the test they follow
# Host-side truth (debugfs, e2fsck) is checked by tests/vm/run-ktests.sh.
set -u

OUT=$1
MODE=$2
shift 2
RES=$OUT/results
EXP=$OUT/expect
MODES=$OUT/modes
DELETED=$OUT/deleted
KLOG=$OUT/dmesg
VMTOOL=/tests/vmtool
ALICE=1000
BOB=1001
: >"$RES"
: >"$EXP"
: >"$MODES"
: >"$DELETED"
: >"$KLOG"

T_RESULTS=$RES
# shellcheck source=tests/lib/results.sh
. /tests/results.sh
owner() { stat -c '%u:%g' "$1" 2>&1; }
mode() { stat -c '%a' "$1" 2>&1; }
# Kernel messages since the last call, also kept in the dmesg file.
klog() {
	dmesg -c >"$OUT/.k" 2>/dev/null
	{ echo "--- after $1"; cat "$OUT/.k"; } >>"$KLOG"
	cat "$OUT/.k"
}
mounted_at() { grep -c " $1 " /proc/mounts; }
mount_opts() { awk -v m="$1" '$2 == m { print $4 }' /proc/mounts; }
# refused_mount REFUSED-NAME MESSAGE-NAME WHAT ERRNO WORD DEV MNT TYPE OPTS:
# mounting DEV on MNT with OPTS fails with ERRNO, and the kernel says why in
# a message containing WORD
refused_mount() {
	r=$($VMTOOL mount "$6" "$7" "$8" "$9")
	k=$(klog "$3")
	check_eq "$1" "$3" "$4" "$r"
	check_eq "$2" "kernel message naming '$5'" yes "$(echo "$k" | grep -qi "$5" && echo yes || echo no)"
	[ "$r" = OK ] && umount "$7"
}
has_opt() { # OPTS WORD
	case ",$1," in *",$2,"*) echo yes ;; *) echo no ;; esac
}

k10_feature() {
	if [ "$MODE" = unpatched ]; then
		check_eq "kernel.K10.no_feature_file_unpatched" "sysfs file" no \
			"$([ -e /sys/fs/ext4/features/uid_gid_override ] && echo yes || echo no)"
		return
	fi
	check_eq "kernel.K10.ext4_feature_file" "content of /sys/fs/ext4/features/uid_gid_override" \
		supported "$(cat /sys/fs/ext4/features/uid_gid_override 2>&1)"
	grep -qw ext2 /proc/filesystems || return
	# a legacy-API ext2 (fs/ext2 of 6.1 and 6.12) cannot be asked with
	# fsconfig: its patch keeps the sysfs file; on the mount API there is
	# none
	if [ "$($VMTOOL fsconfig ext2 extown_no_such_key 1 | head -n 1)" = OK ]; then
		check_eq "kernel.K10.ext2_feature_file" "content of /sys/fs/ext2/features/uid_gid_override" \
			supported "$(cat /sys/fs/ext2/features/uid_gid_override 2>&1)"
	else
		check_eq "kernel.K10.no_ext2_sysfs" "/sys/fs/ext2 exists" no \
			"$([ -e /sys/fs/ext2 ] && echo yes || echo no)"
	fi
}

# K10: fsopen(TYPE) + fsconfig(FSCONFIG_SET_STRING, "uid", ...) tells
# whether TYPE takes uid=, before any device is touched. A type on the
# legacy mount API (fs/ext2 before 6.x's conversion) takes any key there,
# so the probe says nothing about it: checked with a key no filesystem has.
k10_probe() {
	for t in ext4 ext3 ext2; do
		grep -qw "$t" /proc/filesystems || continue
		r=$($VMTOOL fsconfig "$t" extown_no_such_key 1 | head -n 1)
		if [ "$r" = OK ]; then
			skip "kernel.K10.fsconfig_probe_$t" "-t $t is on the legacy mount API (takes any key)"
			continue
		fi
		r=$($VMTOOL fsconfig "$t" uid $ALICE)
		if [ "$MODE" = unpatched ]; then
			check_eq "kernel.K10.fsconfig_probe_${t}_unpatched" "fsconfig -t $t uid=$ALICE" \
				"EINVAL/Unknown parameter 'uid'" \
				"$(echo "$r" | head -n 1)/$(echo "$r" | grep -o "Unknown parameter 'uid'")"
		else
			check_eq "kernel.K10.fsconfig_probe_$t" "fsconfig -t $t uid=$ALICE" OK "$r"
		fi
	done
}

# The tree every image starts with (tools/vm/mkimages.sh).
OLD_PATHS=". file secret dir dir/inner link chardev fifo socket high lost+found"

# K1, K5, K6, K2, K3, K4, K7, K13 on one mount with uid=1000,gid=1000.
suite_override() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	klog "start $l" >/dev/null
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE,gid=$ALICE")
	check_eq "$l.K1.mount_with_uid_gid" "mount -o uid=$ALICE,gid=$ALICE" OK "$r"
	[ "$r" = OK ] || return

	for p in $OLD_PATHS; do
		check_eq "$l.K1.shown_owner.$(echo "$p" | tr '/+' '__')" "owner of $p" \
			"$ALICE:$ALICE" "$(owner "$m/$p")"
	done

	o=$(mount_opts "$m")
	check_eq "$l.K6.proc_mounts_uid" "uid=$ALICE in '$o'" yes "$(has_opt "$o" uid=$ALICE)"
	check_eq "$l.K6.proc_mounts_gid" "gid=$ALICE in '$o'" yes "$(has_opt "$o" gid=$ALICE)"
	mi=$(awk -v m="$m" '$5 == m' /proc/self/mountinfo)
	check_eq "$l.K6.mountinfo_uid_gid" "uid=/gid= in mountinfo '$mi'" yes \
		"$(case "$mi" in *uid=$ALICE,*gid=$ALICE*) echo yes ;; *) echo no ;; esac)"

	# K5: permissions follow the shown owner; bob is the control.
	check_eq "$l.K5.owner_reads_0600" "alice opens secret (0600, 1234 on disk) rw" OK \
		"$($VMTOOL runas $ALICE $ALICE $VMTOOL access "$m/secret" rw)"
	check_eq "$l.K5.other_user_denied_0600" "bob opens secret r" EACCES \
		"$($VMTOOL runas $BOB $BOB $VMTOOL access "$m/secret" r)"
	$VMTOOL runas $ALICE $ALICE sh -c "echo edited-by-alice >> '$m/secret'" 2>/dev/null
	check_eq "$l.K5.owner_edits_0600" "last line of secret" edited-by-alice "$(tail -n 1 "$m/secret")"
	$VMTOOL runas $ALICE $ALICE sh -c "echo alice > '$m/by_alice' && mkdir '$m/dir/alice_dir'" 2>/dev/null
	check_eq "$l.K5.owner_creates_in_root" "owner of by_alice" "$ALICE:$ALICE" "$(owner "$m/by_alice")"
	check_eq "$l.K5.owner_creates_in_subdir" "owner of dir/alice_dir" "$ALICE:$ALICE" "$(owner "$m/dir/alice_dir")"
	printf '%s\n' "$l by_alice $ALICE $ALICE" "$l dir/alice_dir $ALICE $ALICE" >>"$EXP"

	# K2: every kind of new inode, created by root, shows and is written as 1000.
	echo new >"$m/new_file"
	mkdir "$m/new_dir"
	ln -s new_file "$m/new_link"
	mknod "$m/new_chr" c 1 3
	mkfifo "$m/new_fifo"
	r=$($VMTOOL tmpfile "$m" "$m/new_tmpfile")
	check_eq "$l.K2.o_tmpfile_linked" "O_TMPFILE + linkat" OK "$r"
	for p in new_file new_dir new_link new_chr new_fifo new_tmpfile; do
		check_eq "$l.K2.shown_owner.$p" "owner of $p" "$ALICE:$ALICE" "$(owner "$m/$p")"
		echo "$l $p $ALICE $ALICE" >>"$EXP"
	done

	# K3: change old inodes every way but chown; the host checks their
	# on-disk owners against the manifest after the VM has stopped.
	echo appended >>"$m/file"
	truncate -s 1 "$m/dir/inner"
	chmod 0640 "$m/file"
	touch -d "2020-01-02 03:04:05" "$m/dir"
	r=$($VMTOOL setxattr "$m/file" user.extown test)
	check_eq "$l.K3.setxattr_on_old_file" "setxattr user.extown" OK "$r"
	mv "$m/high" "$m/dir/high_renamed"
	ln "$m/dir/inner" "$m/inner_link"
	check_eq "$l.K3.old_inodes_still_shown_as_owner" "owner of dir/high_renamed" \
		"$ALICE:$ALICE" "$(owner "$m/dir/high_renamed")"

	# K4: giving a file away is refused; "giving" it to the shown owner is a no-op.
	check_eq "$l.K4.chown_other_uid_eperm" "chown secret 5" EPERM "$($VMTOOL chown "$m/secret" 5 -1)"
	check_eq "$l.K4.chgrp_other_gid_eperm" "chgrp secret 5" EPERM "$($VMTOOL chown "$m/secret" -1 5)"
	check_eq "$l.K4.chown_new_file_eperm" "chown new_file 0" EPERM "$($VMTOOL chown "$m/new_file" 0 0)"
	check_eq "$l.K4.chown_to_shown_owner_ok" "chown secret $ALICE:$ALICE" OK \
		"$($VMTOOL chown "$m/secret" $ALICE $ALICE)"
	check_eq "$l.K4.alice_chown_to_bob_eperm" "alice: chown by_alice to bob" EPERM \
		"$($VMTOOL runas $ALICE $ALICE $VMTOOL chown "$m/by_alice" $BOB -1)"
	check_eq "$l.K4.owner_unchanged_after_refusal" "owner of secret" "$ALICE:$ALICE" "$(owner "$m/secret")"
	klog "$l K1-K5" >/dev/null

	# K7: remount keeps the override; other ids are refused; ro<->rw works.
	mount -o remount,uid=5 "$m" 2>/dev/null
	k=$(klog "$l remount uid=5")
	check_eq "$l.K7.remount_other_uid_refused" "uid= still in options" yes "$(has_opt "$(mount_opts "$m")" uid=$ALICE)"
	check_eq "$l.K7.remount_refusal_message" "kernel message naming uid" yes \
		"$(echo "$k" | grep -qi 'uid' && echo yes || echo no)"
	r=$(mount -o remount,ro "$m" 2>&1 && echo OK)
	check_eq "$l.K7.remount_ro" "remount,ro" OK "$r"
	o=$(mount_opts "$m")
	check_eq "$l.K7.ro_keeps_override" "ro and uid=$ALICE in '$o'" yesyes \
		"$(has_opt "$o" ro)$(has_opt "$o" uid=$ALICE)"
	check_eq "$l.K7.ro_still_shows_owner" "owner of file" "$ALICE:$ALICE" "$(owner "$m/file")"
	r=$(mount -o remount,rw "$m" 2>&1 && echo OK)
	check_eq "$l.K7.remount_rw" "remount,rw" OK "$r"
	r=$(mount -o "remount,rw,uid=$ALICE,gid=$ALICE" "$m" 2>&1 && echo OK)
	check_eq "$l.K7.remount_same_ids_ok" "remount with the same ids" OK "$r"
	echo after-remount >"$m/after_remount"
	check_eq "$l.K7.create_after_remount" "owner of after_remount" "$ALICE:$ALICE" "$(owner "$m/after_remount")"
	echo "$l after_remount $ALICE $ALICE" >>"$EXP"
	klog "$l K7" >/dev/null

	# K13: a second mount of the same device shares the superblock.
	refused_mount "$l.K13.second_mount_other_ids_refused" "$l.K13.second_mount_message" \
		"$l: second mount with uid=7" EBUSY uid "$dev" "$m.2" "$t" "uid=7,gid=7"
	r=$($VMTOOL mount "$dev" "$m.2" "$t" "uid=$ALICE,gid=$ALICE")
	check_eq "$l.K13.second_mount_same_ids_ok" "second mount with the same ids" OK "$r"
	[ "$r" = OK ] && umount "$m.2"

	umount "$m"
	check_eq "$l.unmounted" "mounts at $m" 0 "$(mounted_at "$m")"
	klog "$l end of override suite" >/dev/null
}

# uid=n:m writes m for new inodes while showing n; 0 is a valid id.
suite_split_ids() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=2000:3000,gid=2001:3001")
	check_eq "$l.K2.mount_uid_n_m" "mount -o uid=2000:3000,gid=2001:3001" OK "$r"
	[ "$r" = OK ] || return
	o=$(mount_opts "$m")
	check_eq "$l.K6.proc_mounts_uid_n_m" "uid=2000:3000,gid=2001:3001 in '$o'" yesyes \
		"$(has_opt "$o" uid=2000:3000)$(has_opt "$o" gid=2001:3001)"
	echo x >"$m/split_file"
	mkdir "$m/split_dir"
	check_eq "$l.K2.split_shown_owner" "owner of split_file" 2000:2001 "$(owner "$m/split_file")"
	check_eq "$l.K1.split_old_shown_owner" "owner of file" 2000:2001 "$(owner "$m/file")"
	printf '%s\n' "$l split_file 3000 3001" "$l split_dir 3000 3001" >>"$EXP"
	# a new inode whose first write is an xattr: the access ACL it
	# inherits from a default ACL (ext4 stores it in the inode itself)
	mkdir "$m/acl_dir"
	r=$($VMTOOL defacl "$m/acl_dir" 1234)
	check_eq "$l.K2.default_acl_set" "default ACL on acl_dir" OK "$r"
	echo x >"$m/acl_dir/acl_file"
	mkdir "$m/acl_dir/acl_subdir"
	printf '%s\n' "$l acl_dir 3000 3001" "$l acl_dir/acl_file 3000 3001" \
		"$l acl_dir/acl_subdir 3000 3001" >>"$EXP"
	umount "$m"

	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=0,gid=0")
	check_eq "$l.K1.uid_zero_is_valid" "mount -o uid=0,gid=0" OK "$r"
	[ "$r" = OK ] || return
	check_eq "$l.K1.uid_zero_shown" "owner of secret" 0:0 "$(owner "$m/secret")"
	check_eq "$l.K6.proc_mounts_uid_zero" "uid=0 in options" yes "$(has_opt "$(mount_opts "$m")" uid=0)"
	umount "$m"

	# uid= alone leaves the group as it is on disk.
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE")
	check_eq "$l.K1.uid_without_gid" "mount -o uid=$ALICE" OK "$r"
	[ "$r" = OK ] || return
	check_eq "$l.K1.uid_only_keeps_group" "owner of file" "$ALICE:1234" "$(owner "$m/file")"
	umount "$m"
	klog "$l split ids" >/dev/null
}

# uid= under an idmapped bind mount. Only the "ext4" type allows idmapped
# mounts (FS_ALLOW_IDMAP; ext4's ext2 and ext3 types do not). The bind
# mount's idmapping maps 1000 to 2000 and 0-999 to themselves, on top of
# a uid=1000:3000,gid=1000:3001 mount: every inode must show as 2000:2000
# there (1000 mapped), still 1000:1000 on the uid= mount itself; files
# created through it show 2000 there and are written to disk as
# 3000:3001; chown there succeeds only to the shown owner; old inodes
# keep their on-disk owner (the host checks both after the VM).
IDMAP=0:0:1000,$ALICE:2000:1
suite_idmap() {
	l=$1 dev=$2 t=$3 m=/mnt/$1 i=/mnt/$1.2
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE:3000,gid=$ALICE:3001")
	check_eq "$l.idmap.mount_uid_n_m" "mount -o uid=$ALICE:3000,gid=$ALICE:3001" OK "$r"
	[ "$r" = OK ] || return
	r=$($VMTOOL idmap "$m" "$i" "$IDMAP")
	if [ "$t" != ext4 ]; then
		check_eq "$l.idmap.type_without_idmap_refused" "idmapped bind mount of -t $t" EINVAL "$r"
		[ "$r" = OK ] && umount "$i"
		umount "$m"
		return
	fi
	check_eq "$l.idmap.bind_mount_allowed" "idmapped bind mount ($IDMAP) of the uid= mount" OK "$r"
	if [ "$r" != OK ]; then
		umount "$m"
		return
	fi
	for p in . file secret dir high; do
		q=$(echo "$p" | tr '/+' '__')
		[ "$p" = . ] && q=root
		check_eq "$l.idmap.shown_owner_mapped.$q" "owner of $p on the idmapped mount" \
			2000:2000 "$(owner "$i/$p")"
		check_eq "$l.idmap.uid_mount_unchanged.$q" "owner of $p on the uid= mount" \
			"$ALICE:$ALICE" "$(owner "$m/$p")"
	done
	o=$(awk -v m="$i" '$5 == m' /proc/self/mountinfo)
	check_eq "$l.idmap.mountinfo_idmapped_and_uid" "idmapped and uid=$ALICE:3000 in '$o'" yesyes \
		"$(case "$o" in *idmapped*) echo yes ;; *) echo no ;; esac)$(case "$o" in *uid=$ALICE:3000*) echo yes ;; *) echo no ;; esac)"
	# K5 through the idmapping: 2000 owns the 0600 file there, alice not
	check_eq "$l.idmap.mapped_owner_reads_0600" "uid 2000 opens secret rw on the idmapped mount" OK \
		"$($VMTOOL runas 2000 2000 $VMTOOL access "$i/secret" rw)"
	check_eq "$l.idmap.unmapped_user_denied_0600" "alice opens secret r on the idmapped mount" EACCES \
		"$($VMTOOL runas $ALICE $ALICE $VMTOOL access "$i/secret" r)"
	$VMTOOL runas 2000 2000 sh -c "echo by-2000 >> '$i/file'" 2>/dev/null
	check_eq "$l.idmap.mapped_owner_writes_old_file" "last line of file" by-2000 "$(tail -n 1 "$m/file")"
	# K2 through the idmapping
	$VMTOOL runas 2000 2000 sh -c "echo x > '$i/idmap_file' && mkdir '$i/idmap_dir'" 2>/dev/null
	echo root >"$i/idmap_root"
	for p in idmap_file idmap_dir idmap_root; do
		check_eq "$l.idmap.new_shown_mapped.$p" "owner of $p on the idmapped mount" 2000:2000 "$(owner "$i/$p")"
		check_eq "$l.idmap.new_shown_n.$p" "owner of $p on the uid= mount" "$ALICE:$ALICE" "$(owner "$m/$p")"
		echo "$l $p 3000 3001" >>"$EXP"
	done
	# K4 through the idmapping: the shown owner is 2000 there
	check_eq "$l.idmap.chown_to_shown_owner_ok" "chown idmap_file 2000:2000 on the idmapped mount" OK \
		"$($VMTOOL chown "$i/idmap_file" 2000 2000)"
	check_eq "$l.idmap.chown_other_uid_eperm" "chown idmap_file 5 on the idmapped mount" EPERM \
		"$($VMTOOL chown "$i/idmap_file" 5 -1)"
	check_eq "$l.idmap.chgrp_other_gid_eperm" "chgrp secret 0 on the idmapped mount" EPERM \
		"$($VMTOOL chown "$i/secret" -1 0)"
	# an id the idmapping cannot map back is refused by the VFS first
	check_eq "$l.idmap.chown_unmappable_uid_eoverflow" "chown idmap_file $ALICE on the idmapped mount" EOVERFLOW \
		"$($VMTOOL chown "$i/idmap_file" $ALICE -1)"
	check_eq "$l.idmap.owner_unchanged_after_refusals" "owner of idmap_file on the idmapped mount" 2000:2000 \
		"$(owner "$i/idmap_file")"
	umount "$i"
	umount "$m"
	check_eq "$l.idmap.unmounted" "mounts at $m and $i" 00 "$(mounted_at "$m")$(mounted_at "$i")"
	klog "$l idmap" >/dev/null
}

# K8: malformed values never mount and always say why.
suite_bad_values() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	i=0
	for v in "uid=" "uid=abc" "uid=-1" "uid=1:2:3" "uid=1:" "uid=:1" \
		"uid=99999999999" "uid=4294967295" "uid=0x10" "uid=+5" "uid= 5" \
		"uid=1 000" "gid=abc" "gid=4294967295" "gid=1:2:3" "uid=1000:4294967295"; do
		i=$((i + 1))
		klog "before bad value" >/dev/null
		r=$($VMTOOL mount "$dev" "$m" "$t" "$v")
		k=$(klog "$l bad value '$v'")
		key=${v%%=*}
		check_eq "$l.K8.bad_value_$i.refused" "mount -o '$v'" EINVAL "$r"
		check_eq "$l.K8.bad_value_$i.nothing_mounted" "mounts at $m for '$v'" 0 "$(mounted_at "$m")"
		check_eq "$l.K8.bad_value_$i.message" "kernel message naming '$key' for '$v'" yes \
			"$(echo "$k" | grep -q "$key" && echo yes || echo no)"
		[ "$r" = OK ] && umount "$m"
	done
	# An fsconfig(2) caller reads the message from its context fd (not on
	# the legacy mount API, which takes any key and parses at mount time).
	if [ "$($VMTOOL fsconfig "$t" extown_no_such_key 1 | head -n 1)" = OK ]; then
		skip "$l.K8.fsconfig_message" "-t $t is on the legacy mount API"
		return
	fi
	for v in "uid abc" "gid 1:2:3" "uid 4294967295"; do
		key=${v%% *} val=${v#* }
		n=$l.K8.fsconfig_${key}_$(echo "$val" | tr -c '0-9a-z\n' _)
		r=$($VMTOOL fsconfig "$t" "$key" "$val")
		check_eq "$n.refused" "fsconfig $key=$val" EINVAL "$(echo "$r" | head -n 1)"
		check_eq "$n.message_on_fd" "message read from the fsopen fd" "Invalid $key value: $val" \
			"$(echo "$r" | sed -n 's/^e [a-z0-9]*: //p' | head -n 1)"
	done
	klog "$l fsconfig" >/dev/null
}

# K9: the override and quota do not mix.
suite_quota() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	for q in usrquota grpquota quota; do
		refused_mount "$l.K9.$q.refused" "$l.K9.$q.message" \
			"$l: mount -o uid=$ALICE,$q" EINVAL quota "$dev" "$m" "$t" "uid=$ALICE,$q"
	done
}

suite_quota_feature() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	refused_mount "$l.K9.quota_feature_refused" "$l.K9.quota_feature_message" \
		"$l: mount -o uid=$ALICE on the -O quota image" EINVAL quota "$dev" "$m" "$t" "uid=$ALICE"
	r=$($VMTOOL mount "$dev" "$m" "$t" "")
	check_eq "$l.K9.quota_feature_mounts_without_uid" "plain mount of the quota image" OK "$r"
	[ "$r" = OK ] && umount "$m"
}

# K9: a superblock whose default mount options carry usrquota (tune2fs -E
# mount_opts=usrquota on the host) refuses uid= alone, but takes
# uid=,noquota.
suite_noquota() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	refused_mount "$l.K9.sb_usrquota_refused" "$l.K9.sb_usrquota_message" \
		"$l: mount -o uid=$ALICE with usrquota in the superblock" EINVAL quota "$dev" "$m" "$t" "uid=$ALICE"
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE,noquota")
	klog "$l uid=,noquota" >/dev/null
	check_eq "$l.K9.sb_usrquota_noquota_mounts" "mount -o uid=$ALICE,noquota" OK "$r"
	[ "$r" = OK ] || return
	o=$(mount_opts "$m")
	check_eq "$l.K9.noquota_no_quota_option" "usrquota in '$o'" no "$(has_opt "$o" usrquota)"
	umount "$m"
}

# K3: an inode deleted under the options loses the high 16 bits of its
# on-disk owner, as without them (the host reads the inode of /high,
# 70000:70000, by its number).
suite_deleted() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE,gid=$ALICE")
	check_eq "$l.K3.mount_for_delete" "mount -o uid=$ALICE,gid=$ALICE" OK "$r"
	[ "$r" = OK ] || return
	rm -f "$m/high"
	echo "$l high 4464 4464" >>"$DELETED"
	umount "$m"
}

# K14: no set-id bit reaches the disk under ids that did not set it. A
# chmod or a creation by a caller who is not the owner on disk leaves no
# S_ISUID there, and by one outside the group on disk no S_ISGID;
# CAP_FSETID (root) keeps them, and the caller's own ids (uid=N with M = N,
# the caller's group) too. Set-id files already on the medium show as they
# are; exec honours them only without nosuid, as the shown owner. The host
# reads the modes back with debugfs ("modes").
suite_setid() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	alice() { $VMTOOL runas $ALICE $ALICE "$@"; }
	# a set-uid file of 1234's on the medium, made without options
	r=$($VMTOOL mount "$dev" "$m" "$t" "")
	check_eq "$l.K14.plain_mount" "mount without options" OK "$r"
	[ "$r" = OK ] || return
	cp /tests/vmtool "$m/setid_old"
	chown 1234:1234 "$m/setid_old"
	chmod 6755 "$m/setid_old"
	umount "$m"

	r=$(mount -t "$t" -o "nosuid,uid=$ALICE,gid=$ALICE" "$dev" "$m" 2>&1 && echo OK)
	check_eq "$l.K14.mount_nosuid" "mount -o nosuid,uid=$ALICE,gid=$ALICE" OK "$r"
	if [ "$r" = OK ]; then
		check_eq "$l.K14.old_setid_shown" "mode of setid_old" 6755 "$(mode "$m/setid_old")"
		check_eq "$l.K14.old_setid_nosuid_exec" "euid of bob running setid_old under nosuid" $BOB \
			"$($VMTOOL runas $BOB $BOB "$m/setid_old" euid)"
		umount "$m"
	fi

	r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE,gid=$ALICE")
	check_eq "$l.K14.mount_uid_n" "mount -o uid=$ALICE,gid=$ALICE" OK "$r"
	[ "$r" = OK ] || return
	check_eq "$l.K14.old_setid_exec_as_shown_owner" \
		"euid of bob running setid_old without nosuid" $ALICE \
		"$($VMTOOL runas $BOB $BOB "$m/setid_old" euid)"
	# alice, shown owner of everything, on 1234's files
	check_eq "$l.K14.chmod_foreign_ok" "alice: chmod 6755 file (1234:1234 on disk)" OK \
		"$(alice $VMTOOL chmod "$m/file" 6755)"
	check_eq "$l.K14.chmod_foreign_stripped" "mode of file" 755 "$(mode "$m/file")"
	check_eq "$l.K14.chmod_old_setid_stripped" "alice: chmod 6755 setid_old, then its mode" OK/755 \
		"$(alice $VMTOOL chmod "$m/setid_old" 6755)/$(mode "$m/setid_old")"
	# her own: written as 1000:1000, she is in group 1000
	check_eq "$l.K14.create_own_setid_kept" "alice: create setid_own 6755, then its mode" OK/6755 \
		"$(alice $VMTOOL create "$m/setid_own" 6755)/$(mode "$m/setid_own")"
	alice $VMTOOL create "$m/setid_own2" 0755 >/dev/null
	check_eq "$l.K14.chmod_own_setid_kept" "alice: chmod 6755 setid_own2, then its mode" OK/6755 \
		"$(alice $VMTOOL chmod "$m/setid_own2" 6755)/$(mode "$m/setid_own2")"
	# root has CAP_FSETID
	check_eq "$l.K14.root_chmod_foreign_kept" "root: chmod 6755 secret, then its mode" OK/6755 \
		"$($VMTOOL chmod "$m/secret" 6755)/$(mode "$m/secret")"
	printf '%s\n' "$l file 755" "$l setid_old 755" "$l setid_own 6755" \
		"$l setid_own2 6755" "$l secret 6755" >>"$MODES"
	printf '%s\n' "$l setid_own $ALICE $ALICE" "$l setid_own2 $ALICE $ALICE" \
		"$l setid_old 1234 1234" >>"$EXP"
	umount "$m"

	# uid=N:M: new inodes are M's on disk, not alice's
	for ids in 3000:3001 0:0; do
		du=${ids%:*} dg=${ids#*:} s=$(echo "$ids" | tr : _)
		r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE:$du,gid=$ALICE:$dg")
		check_eq "$l.K14.mount_$s" "mount -o uid=$ALICE:$du,gid=$ALICE:$dg" OK "$r"
		[ "$r" = OK ] || continue
		for how in create mknod; do
			check_eq "$l.K14.${s}_${how}_stripped" "alice: $how ${how}_$s 6755, then its mode" OK/755 \
				"$(alice $VMTOOL $how "$m/${how}_$s" 6755)/$(mode "$m/${how}_$s")"
			printf '%s\n' "$l ${how}_$s $du $dg" >>"$EXP"
			echo "$l ${how}_$s 755" >>"$MODES"
		done
		alice $VMTOOL create "$m/chmod_$s" 0755 >/dev/null
		check_eq "$l.K14.${s}_chmod_stripped" "alice: chmod 6755 chmod_$s, then its mode" OK/755 \
			"$(alice $VMTOOL chmod "$m/chmod_$s" 6755)/$(mode "$m/chmod_$s")"
		check_eq "$l.K14.${s}_root_create_kept" "root: create root_$s 6755, then its mode" OK/6755 \
			"$($VMTOOL create "$m/root_$s" 6755)/$(mode "$m/root_$s")"
		# set-gid directory inheritance: root makes a 2777 directory (M's
		# group on disk); what alice makes in it does not keep S_ISGID
		mkdir "$m/sgid_$s"
		chmod 2777 "$m/sgid_$s"
		check_eq "$l.K14.${s}_sgid_dir_root" "mode of sgid_$s" 2777 "$(mode "$m/sgid_$s")"
		check_eq "$l.K14.${s}_sgid_inherit_dir_stripped" "alice: mkdir sgid_$s/d 0755, then its mode" OK/755 \
			"$(alice $VMTOOL mkdir "$m/sgid_$s/d" 0755)/$(mode "$m/sgid_$s/d")"
		check_eq "$l.K14.${s}_sgid_inherit_file_stripped" "alice: create sgid_$s/f 2755, then its mode" OK/755 \
			"$(alice $VMTOOL create "$m/sgid_$s/f" 2755)/$(mode "$m/sgid_$s/f")"
		printf '%s\n' "$l chmod_$s $du $dg" "$l root_$s $du $dg" "$l sgid_$s $du $dg" \
			"$l sgid_$s/d $du $dg" "$l sgid_$s/f $du $dg" >>"$EXP"
		printf '%s\n' "$l chmod_$s 755" "$l root_$s 6755" "$l sgid_$s 2777" \
			"$l sgid_$s/d 755" "$l sgid_$s/f 755" >>"$MODES"
		umount "$m"
	done
	klog "$l set-id" >/dev/null
}

# What the idmapped-mount fallback (kernels without the options) leaves:
# the helper's map shows the stick's owner X (1234) as the caller; the
# caller may then chmod +s a file of X, and the bits reach the disk with
# X as owner (no kernel hook strips them there). nosuid, which the helper
# forces, is what keeps them from taking effect on this machine.
suite_idmap_setid() {
	l=$1 dev=$2 t=$3 m=/mnt/$1 i=/mnt/$1.2
	r=$($VMTOOL mount "$dev" "$m" "$t" "")
	check_eq "$l.K14.fallback.plain_mount" "mount without options" OK "$r"
	[ "$r" = OK ] || return
	cp /tests/vmtool "$m/fallback_prog"
	chown 1234:1234 "$m/fallback_prog"
	r=$($VMTOOL idmap "$m" "$i" "0:0:1000,1234:$ALICE:1")
	check_eq "$l.K14.fallback.idmapped_mount" "idmapped bind mount 1234 -> $ALICE" OK "$r"
	if [ "$r" = OK ]; then
		check_eq "$l.K14.fallback.shown_as_caller" "owner of file there" "$ALICE:$ALICE" "$(owner "$i/file")"
		check_eq "$l.K14.fallback.caller_chmod_setid_kept" "alice: chmod 6755 file there, then its mode" \
			OK/6755 "$($VMTOOL runas $ALICE $ALICE $VMTOOL chmod "$i/file" 6755)/$(mode "$i/file")"
		$VMTOOL runas $ALICE $ALICE $VMTOOL chmod "$i/fallback_prog" 4755 >/dev/null
		check_eq "$l.K14.fallback.setuid_exec_without_nosuid" "euid of bob running fallback_prog there" \
			$ALICE "$($VMTOOL runas $BOB $BOB "$i/fallback_prog" euid)"
		r=$(mount -o remount,bind,nosuid "$i" 2>&1 && echo OK)
		check_eq "$l.K14.fallback.remount_nosuid" "remount,bind,nosuid of the idmapped mount" OK "$r"
		[ "$r" = OK ] && check_eq "$l.K14.fallback.setuid_exec_nosuid" \
			"euid of bob running fallback_prog under nosuid" $BOB \
			"$($VMTOOL runas $BOB $BOB "$i/fallback_prog" euid)"
		umount "$i"
	fi
	printf '%s\n' "$l file 6755" "$l fallback_prog 4755" >>"$MODES"
	echo "$l fallback_prog 1234 1234" >>"$EXP"
	umount "$m"
}

# The same workload without options, on the patched and the unpatched
# kernel: the host compares the two images' owners (K11).
suite_plain() {
	l=$1 dev=$2 t=$3 m=/mnt/$1
	r=$($VMTOOL mount "$dev" "$m" "$t" "")
	check_eq "$l.K11.plain_mount" "mount without options" OK "$r"
	[ "$r" = OK ] || return
	check_eq "$l.K11.plain_shows_disk_owner" "owner of file" 1234:1234 "$(owner "$m/file")"
	check_eq "$l.K11.plain_shows_high_owner" "owner of high" 70000:70000 "$(owner "$m/high")"
	echo plain >"$m/plain_root"
	mkdir -m 1777 "$m/plain_dir"
	$VMTOOL runas $ALICE $ALICE $VMTOOL access "$m/secret" r >/dev/null
	$VMTOOL runas 1234 1234 sh -c "echo 1234 >> '$m/secret'; echo x > '$m/plain_dir/x'" 2>/dev/null
	r=$($VMTOOL chown "$m/file" 4321 4322)
	check_eq "$l.K11.plain_chown_works" "chown file 4321:4322" OK "$r"
	printf '%s\n' "$l plain_root 0 0" "$l plain_dir/x 1234 1234" "$l file 4321 4322" >>"$EXP"
	umount "$m"
	if [ "$MODE" = unpatched ]; then
		r=$($VMTOOL mount "$dev" "$m" "$t" "uid=$ALICE")
		check_eq "$l.K11.unpatched_refuses_uid" "mount -o uid=$ALICE on the unpatched kernel" EINVAL "$r"
		[ "$r" = OK ] && umount "$m"
	fi
	klog "$l plain" >/dev/null
}

k10_feature
k10_probe
for spec in "$@"; do
	IFS=: read -r label dev fstype suites <<EOF
$spec
EOF
	mkdir -p "/mnt/$label" "/mnt/$label.2"
	for s in $(echo "$suites" | tr '+' ' '); do
		"suite_$s" "$label" "$dev" "$fstype"
	done
done
sync
