#!/bin/sh
# shellcheck shell=dash
# In-guest half of tests/privilege/run.sh (busybox VM, dash): every way we
# could think of for an unprivileged user (alice, 1000:1000) to end up with
# files owned by another uid or gid through fstab "user" entries, mount(8)
# and the setuid mount.ext4 helper.
#
#   guest.sh OUTDIR
#
# Disks: /dev/vdb = "stick" (faked udev database entry EXTOWN_REMOVABLE=1),
# /dev/vdc = "internal" (no udev data: not removable). Both are ext4 images
# of tools/vm/mkimages.sh (files of 1234:1234).
#
# /etc/fstab:
#   /dev/vdb  /media/stick     ext4  user,noauto        (a removable stick)
#   /dev/vdc  /media/internal  ext4  user,noauto        (untagged)
#   /dev/vdc  /media/granted   ext4  user,noauto,uid=1234,gid=1234
#                                   (root granted a fixed owner; alice
#                                    may use exactly that, nothing else)
#
# After every attempt the guest checks, as root:
#   privilege.NAME.no_foreign_owner  no mount of vdb/vdc carries a uid= or
#       gid= other than alice's (1000) or one root wrote into fstab for
#       that mount point; if something got mounted, a file alice creates
#       there stats as 1000:1000 (the host later checks every new inode on
#       both images is 1000:1000 on disk, tests/privilege/run.sh)
#   privilege.NAME.refused        (attempts that must fail) exit status not
#       0 and nothing mounted
#   privilege.NAME.mounted_own    (controls) mounted with uid=1000,gid=1000,
#       nosuid,nodev
# OUTDIR/attempts lists every attempt: name, command, exit status, what
# was mounted, first line of the message.
#
# The attempts and what they gave (run of 2026-12-03, patched kernel,
# util-linux 2.38.1 mount(8); the test lines are the authority):
#   control.fstab_user_mount     mount /media/stick -> mounted uid=1000,gid=1000,nosuid,nodev,noexec
#   control.symlinked_mountpoint mount ~/stick-link (symlink to /media/stick) -> mounted there, alice's
#   control.helper_direct        mount.ext4 /dev/vdb /media/stick -o ...,user (setuid, direct) -> alice's
#   opt.uid0, opt.gid0, opt.uid_bob (uid=1001)  -> refused by the helper (H4), exit 1
#   opt.uid_own_disk_root uid=1000:0, opt.uid_root_disk_own uid=0:1000,
#   opt.gid_own_disk_root gid=1000:0            -> refused (every part of N:M is checked)
#   opt.dup_last_wins uid=1000,uid=0, opt.dup_first uid=0,uid=1000 -> refused (every occurrence)
#   opt.uid_minus1 -1, uid_2pow32m1 4294967295, uid_2pow32 4294967296, uid_space "uid= 0",
#   uid_hex 0x0, uid_plus +0                    -> refused: "not N or N:M with decimal ids"
#   opt.uid_leading_zero uid=0001000            -> refused: since issue 10 users add no option
#                                                 mount(8) would not pass (an own uid= included)
#   inject.quoted_value -o 'nodev="x,uid=0"'    -> refused (libmount reads one nodev option with a
#                                                 quoted value; the 6.1 kernel would split it at
#                                                 the comma and see uid=0")
#   inject.sync_quote_split -o 'sync=a"b,uid=0,gid=0,sync="c' -> refused
#   inject.quoted_option -o '"uid=0"'           -> mount(8): "unsupported option format"
#   inject.x_option -o x-extown=1,uid=0         -> refused
#   inject.newline -o "uid=1000<newline>,uid=0" -> refused
#   inject.long_options 1000 x "ro," + uid=0    -> refused
#   inject.user_bob -o user=bob                 -> mounted as alice's: mount(8) 2.38 passes the
#                                                 helper exactly the argv of a plain `mount
#                                                 /media/stick`; refused with 2.39+, which passes
#                                                 user=bob on (mount(8) alone refuses it too)
#   inject.helper_quote_split (same on the helper directly) -> refused
#   inject.helper_unbalanced_quote -o 'ro,x"y,uid=0' -> refused: an unpaired quote would make
#                                                 libmount read 'x"y,uid=0' as one option
#   mode.options_mode_replace --options-mode=replace -o uid=0 -> mounted as alice's: mount(8)
#                                                 passes the argv of a plain mount (no uid=0)
#   mode.options_source_disable --options-source=disable -o uid=0 -> refused (no fstab: the helper
#                                                 got no mount point)
#   device.other_device mount /dev/vdc /media/stick (+ -o uid=1000) -> refused by the helper:
#                                                 "not in /etc/fstab with this source and mount point"
#   helper.other_device, helper.symlinked_device (/tmp/dev-link -> /dev/vdc),
#   helper.symlinked_target (/tmp/mnt-link -> /media/internal) -> refused, same message
#   helper.uid0 -o uid=0, helper.uid0_short -ouid=0 -> refused
#   helper.two_o -o uid=1000 -o uid=0            -> refused: "option '-o' given twice"
#   helper.suid_dev_exec -o suid,dev,exec        -> refused (not in the fstab entry)
#   helper.argv0_ext2 (bash exec -a mount.ext2)  -> refused (uid=0)
#   helper.type_ext2 -t ext2 -o uid=0            -> refused
#   helper.ns -N /proc/1/ns/mnt                  -> refused: "-N is for root only"
#   env.libmount_fstab_mount LIBMOUNT_FSTAB=/tmp/fstab (alice's, grants uid=0) mount -o uid=0
#                                                -> refused by the helper (setuid mount(8) ignores
#                                                 the variable; the helper clears its environment)
#   env.libmount_fstab_helper (same, helper directly) -> refused
#   env.libmount_debug LIBMOUNT_DEBUG=all mount  -> debug output (no addresses: setuid), alice's
#   env.libmount_debug_helper (+ -o uid=0)       -> refused
#   env.ld_preload_mount / _helper LD_PRELOAD=/tests/preload.so -> alice's; the library never ran
#                                                 as root (ld.so ignores it for setuid programs)
#   env.extown_conf EXTOWN_CONF=/tmp/evil.conf (default-owner = root) -> ignored; alice's
#   env.path PATH=/tmp:/usr/bin                  -> alice's
#   conf.default_owner_bob (root's /etc/extown.conf: default-owner = bob) -> alice's: default-owner
#                                                 is for root's mounts only
#   conf.user_owned_file (/etc/extown.conf owned by alice) -> "not trusted ..."; mounted without
#                                                 an owner (a policy that cannot be used fails
#                                                 closed since issue 10)
#   granted.exact mount /media/granted (fstab uid=1234,gid=1234) -> mounted uid=1234,gid=1234
#   granted.other -o uid=0 on it                 -> refused
#   granted.own_instead -o uid=1000,gid=1000 on it -> refused since issue 10: the owner root
#                                                 wrote in fstab is the only one
#   quote.fstab_unbalanced mount /media/quoted (root's fstab: commit="5, an unpaired
#                                                 quote) -> refused, "unbalanced '"' ... not mounting"
#   remount.uid0 alice: mount -o remount,uid=0 /media/stick -> refused by the helper; unchanged
#   chown.to_bob alice: chown 1001 on the stick  -> EPERM, owner unchanged
# Issue 10 attempts (i10.*) are listed with their defect where they run.
# Not tried: racing a symlink swap of the mount point against the helper
# (the helper canonicalises once; a TOCTOU test needs a loop of swaps),
# loop devices set up by users (util-linux refuses them to non-root), and
# devices with the same UUID as an fstab UUID= entry (this fstab names
# device paths).
set -u

OUT=$1
RES=$OUT/results
ATT=$OUT/attempts
: >"$RES"
: >"$ATT"
ALICE=1000

T_RESULTS=$RES T_PREFIX=privilege.
# shellcheck source=tests/lib/results.sh
. /tests/results.sh
# shellcheck source=tests/lib/vmguest.sh
. /tests/vmguest.sh
as_alice() { setpriv --reuid=$ALICE --regid=$ALICE --init-groups "$@"; }

# --- set-up ----------------------------------------------------------------
install_helper
mkdir -p /media/stick /media/internal /media/granted /media/quoted /media/devgrant \
	/media/nouser /media/loop
# the stick is "tagged" by our rules
tag_removable vdb 6a6b0e00-0000-4000-8000-000000000004
cat >/etc/fstab <<'EOF'
/dev/vdb /media/stick ext4 user,noauto 0 0
/dev/vdc /media/internal ext4 user,noauto 0 0
/dev/vdc /media/granted ext4 user,noauto,uid=1234,gid=1234 0 0
/dev/vdb /media/quoted ext4 user,noauto,commit="5 0 0
/dev/vdc /media/devgrant ext4 user,noauto,dev,suid,uid=1234,gid=1234 0 0
/dev/vdb /media/nouser ext4 user,nouser,noauto 0 0
/tmp/combo.img /media/loop ext4 user,noauto,loop,offset=8388608 0 0
EOF
# a user whose (NSS-valid) name carries option syntax
echo 'ev,il:x:1002:1002::/tmp:/bin/sh' >>/etc/passwd
echo 'ev,il:x:1002:' >>/etc/group
# two filesystems in one file: the fstab "loop" entry means the second one
truncate -s 16M /tmp/combo.img
mke2fs -q -F -t ext4 /tmp/combo.img 8M
mke2fs -q -F -t ext4 -E offset=8388608 /tmp/combo.img 8M
truncate -s 8M /tmp/plain-rebind.img
ln -s /media/stick /home/alice/stick-link
ln -s /dev/vdc /tmp/dev-link
ln -s /media/internal /tmp/mnt-link
# an fstab of alice's own that would grant uid=0
printf '/dev/vdb /media/stick ext4 user,noauto,uid=0,gid=0 0 0\n' >/tmp/fstab
printf 'default-owner = root\n' >/tmp/evil.conf
chown $ALICE:$ALICE /tmp/fstab /tmp/evil.conf
rm -f /tmp/preload-ran-*

# --- the check after every attempt -------------------------------------------
# mounts of our two devices: "DEV MOUNTPOINT OPTIONS"
our_mounts() { awk '$1 == "/dev/vdb" || $1 == "/dev/vdc" { print $1, $2, $4 }' /proc/mounts; }
has_opt() { # OPTS WORD
	case ",$1," in *",$2,"*) echo yes ;; *) echo no ;; esac
}
opt_value() { # OPTS NAME
	echo ",$1," | tr ',' '\n' | sed -n "s/^$2=//p" | tail -n 1
}
unmount_all() {
	for m in $(our_mounts | awk '{ print $2 }'); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
}

# attempt NAME EXPECT CMD...   EXPECT: refused | own | plain | any | granted | nothing
#   plain: mounted at /media/stick without uid= or gid= (no owner added)
#   nothing: nothing mounted, whatever the exit status
attempt() {
	name=$1 expect=$2
	shift 2
	unmount_all
	msg=$("$@" 2>&1)
	rc=$?
	mounts=$(our_mounts)
	printf '%s | %s | exit %s | %s | %s\n' "$name" "$*" "$rc" \
		"$(echo "$mounts" | tr '\n' ';')" "$(echo "$msg" | head -n 1)" >>"$ATT"
	bad=""
	probe_owner=""
	while read -r dev mp opts; do
		[ -n "$dev" ] || continue
		u=$(opt_value "$opts" uid)
		g=$(opt_value "$opts" gid)
		case $mp in
		/media/granted | /media/devgrant) okid="1000 1234 1234:1234 1000:1000" ;;
		*) okid="1000 1000:1000" ;;
		esac
		for v in "$u" "$g"; do
			[ -z "$v" ] && continue
			case " $okid " in *" $v "*) ;; *) bad="$bad $mp has uid=$u gid=$g;" ;; esac
		done
		if [ -n "$u" ]; then
			[ "$(has_opt "$opts" nosuid)" = yes ] || bad="$bad $mp without nosuid;"
			[ "$(has_opt "$opts" nodev)" = yes ] || bad="$bad $mp without nodev;"
		fi
		# what alice's new file looks like there
		if as_alice touch "$mp/probe.$name" 2>/dev/null; then
			probe_owner=$(stat -c %u:%g "$mp/probe.$name")
			# shown as the mount's owner, which must be alice's (or
			# the one root wrote in fstab for /media/granted)
			want="${u:-?}:${g:-?}"
			[ "$mp" = /media/granted ] || want=1000:1000
			[ "$probe_owner" = "$want" ] || bad="$bad new file shows $probe_owner, mount says $want;"
		fi
	done <<EOF
$mounts
EOF
	for f in /tmp/preload-ran-*; do
		[ -e "$f" ] || continue
		case $f in *-0) bad="$bad LD_PRELOAD code ran with euid 0;" ;; esac
	done
	if [ -z "$bad" ]; then
		pass "$name.no_foreign_owner"
	else
		fail "$name.no_foreign_owner" "$bad (exit $rc: $(echo "$msg" | head -n 1))"
	fi
	case $expect in
	nothing)
		if [ -z "$mounts" ]; then
			pass "$name.nothing_mounted"
		else
			fail "$name.nothing_mounted" "exit $rc, mounted: $(echo "$mounts" | tr '\n' ';') $(echo "$msg" | head -n 1)"
		fi
		;;
	refused)
		if [ "$rc" -ne 0 ] && [ -z "$mounts" ]; then
			pass "$name.refused"
		else
			fail "$name.refused" "exit $rc, mounted: $(echo "$mounts" | tr '\n' ';') $(echo "$msg" | head -n 1)"
		fi
		;;
	own)
		o=$(echo "$mounts" | awk '$2 == "/media/stick" { print $3 }')
		if [ "$rc" -eq 0 ] && [ "$(opt_value "$o" uid)" = 1000 ] && [ "$(opt_value "$o" gid)" = 1000 ] &&
			[ "$(has_opt "$o" nosuid)$(has_opt "$o" nodev)" = yesyes ]; then
			pass "$name.mounted_own"
		else
			fail "$name.mounted_own" "exit $rc, mounted: $(echo "$mounts" | tr '\n' ';') $(echo "$msg" | head -n 1)"
		fi
		;;
	plain)
		o=$(echo "$mounts" | awk '$2 == "/media/stick" { print $3 }')
		if [ "$rc" -eq 0 ] && [ -n "$o" ] && [ -z "$(opt_value "$o" uid)$(opt_value "$o" gid)" ]; then
			pass "$name.mounted_without_owner"
		else
			fail "$name.mounted_without_owner" "exit $rc, mounted: $(echo "$mounts" | tr '\n' ';') $(echo "$msg" | head -n 1)"
		fi
		;;
	granted)
		o=$(echo "$mounts" | awk '$2 == "/media/granted" || $2 == "/media/devgrant" { print $3 }')
		if [ "$rc" -eq 0 ] && [ "$(opt_value "$o" uid)" = 1234 ] && [ "$(opt_value "$o" gid)" = 1234 ]; then
			pass "$name.mounted_granted"
		else
			fail "$name.mounted_granted" "exit $rc, mounted: $(echo "$mounts" | tr '\n' ';') $(echo "$msg" | head -n 1)"
		fi
		;;
	esac
}

H=/usr/sbin/mount.ext4
nl='
'
long=$(printf 'ro,%.0s' $(seq 1 1000))

# --- controls ------------------------------------------------------------------
attempt control.fstab_user_mount own as_alice mount /media/stick
attempt control.symlinked_mountpoint own as_alice mount /home/alice/stick-link
attempt control.helper_direct own as_alice $H /dev/vdb /media/stick -o rw,noexec,nosuid,nodev,user

# --- options -------------------------------------------------------------------
attempt opt.uid0 refused as_alice mount -o uid=0 /media/stick
attempt opt.gid0 refused as_alice mount -o gid=0 /media/stick
attempt opt.uid_bob refused as_alice mount -o uid=1001 /media/stick
attempt opt.uid_own_disk_root refused as_alice mount -o uid=1000:0 /media/stick
attempt opt.uid_root_disk_own refused as_alice mount -o uid=0:1000 /media/stick
attempt opt.gid_own_disk_root refused as_alice mount -o gid=1000:0 /media/stick
attempt opt.dup_last_wins refused as_alice mount -o uid=1000,uid=0 /media/stick
attempt opt.dup_first refused as_alice mount -o uid=0,uid=1000 /media/stick
attempt opt.uid_minus1 refused as_alice mount -o uid=-1 /media/stick
attempt opt.uid_2pow32m1 refused as_alice mount -o uid=4294967295 /media/stick
attempt opt.uid_2pow32 refused as_alice mount -o uid=4294967296 /media/stick
attempt opt.uid_space refused as_alice mount -o "uid= 0" /media/stick
attempt opt.uid_hex refused as_alice mount -o uid=0x0 /media/stick
attempt opt.uid_plus refused as_alice mount -o uid=+0 /media/stick
attempt opt.uid_leading_zero refused as_alice mount -o uid=0001000 /media/stick

# --- injection -------------------------------------------------------------------
attempt inject.quoted_value refused as_alice mount -o 'nodev="x,uid=0"' /media/stick
attempt inject.sync_quote_split refused as_alice mount -o 'sync=a"b,uid=0,gid=0,sync="c' /media/stick
attempt inject.quoted_option refused as_alice mount -o '"uid=0"' /media/stick
attempt inject.x_option refused as_alice mount -o x-extown=1,uid=0 /media/stick
attempt inject.newline refused as_alice mount -o "uid=1000${nl},uid=0" /media/stick
attempt inject.long_options refused as_alice mount -o "${long}uid=0" /media/stick
# util-linux 2.38 passes the helper the argv of a plain mount (alice's);
# 2.39+ (libmount with "fd-based-mount") passes user=bob on, and mount(8)
# alone refuses it
case $(mount -V) in *fd-based-mount*) user_bob=refused ;; *) user_bob=own ;; esac
attempt inject.user_bob "$user_bob" as_alice mount -o user=bob /media/stick
attempt inject.helper_quote_split refused as_alice $H /dev/vdb /media/stick -o 'sync=a"b,uid=0,gid=0,sync="c'
attempt inject.helper_unbalanced_quote refused as_alice $H /dev/vdb /media/stick -o 'ro,x"y,uid=0'

# --- mount(8) modes ----------------------------------------------------------------
attempt mode.options_mode_replace own as_alice mount --options-mode=replace -o uid=0 /media/stick
attempt mode.options_source_disable refused as_alice mount --options-source=disable -o uid=0 /media/stick

# --- other devices, symlinks -------------------------------------------------------
attempt device.other_device refused as_alice mount /dev/vdc /media/stick
attempt device.other_device_uid refused as_alice mount -o uid=1000 /dev/vdc /media/stick
attempt helper.other_device refused as_alice $H /dev/vdc /media/stick -o uid=1000
attempt helper.symlinked_device refused as_alice $H /tmp/dev-link /media/stick
attempt helper.symlinked_target refused as_alice $H /dev/vdb /tmp/mnt-link
attempt helper.uid0 refused as_alice $H /dev/vdb /media/stick -o uid=0
attempt helper.uid0_short refused as_alice $H /dev/vdb /media/stick -ouid=0
attempt helper.two_o refused as_alice $H /dev/vdb /media/stick -o uid=1000 -o uid=0
attempt helper.suid_dev_exec refused as_alice $H /dev/vdb /media/stick -o suid,dev,exec
attempt helper.argv0_ext2 refused as_alice bash -c 'exec -a mount.ext2 /usr/sbin/mount.ext4 /dev/vdb /media/stick -o uid=0'
attempt helper.type_ext2 refused as_alice $H /dev/vdb /media/stick -t ext2 -o uid=0
attempt helper.ns refused as_alice $H /dev/vdb /media/stick -N /proc/1/ns/mnt -o uid=0

# --- environment ---------------------------------------------------------------------
attempt env.libmount_fstab_mount refused as_alice env LIBMOUNT_FSTAB=/tmp/fstab /usr/bin/mount -o uid=0 /media/stick
attempt env.libmount_fstab_helper refused as_alice env LIBMOUNT_FSTAB=/tmp/fstab $H /dev/vdb /media/stick -o uid=0
attempt env.libmount_debug own as_alice env LIBMOUNT_DEBUG=all /usr/bin/mount /media/stick
attempt env.libmount_debug_helper refused as_alice env LIBMOUNT_DEBUG=all $H /dev/vdb /media/stick -o uid=0
attempt env.ld_preload_mount own as_alice env LD_PRELOAD=/tests/preload.so /usr/bin/mount /media/stick
attempt env.ld_preload_helper own as_alice env LD_PRELOAD=/tests/preload.so $H /dev/vdb /media/stick -o rw,noexec,nosuid,nodev,user
attempt env.extown_conf own as_alice env EXTOWN_CONF=/tmp/evil.conf /usr/bin/mount /media/stick
attempt env.path own as_alice env PATH=/tmp:/usr/bin /usr/bin/mount /media/stick
if ls /tmp/preload-ran-* >/dev/null 2>&1; then
	echo "preload ran: $(ls /tmp/preload-ran-*)" >>"$ATT"
fi

# --- policy file ----------------------------------------------------------------------
printf 'default-owner = bob\n' >/etc/extown.conf
chmod 0644 /etc/extown.conf
attempt conf.default_owner_bob own as_alice mount /media/stick
printf 'enabled = yes\ndefault-owner = root\n' >/etc/extown.conf
chown $ALICE:$ALICE /etc/extown.conf
attempt conf.user_owned_file plain as_alice mount /media/stick
rm -f /etc/extown.conf

# --- root's grant ---------------------------------------------------------------------
attempt granted.exact granted as_alice mount /media/granted
attempt granted.other refused as_alice mount -o uid=0 /media/granted
attempt granted.own_instead refused as_alice mount -o uid=1000,gid=1000 /media/granted

# --- root's typo: an unpaired '"' would swallow nosuid,nodev,uid= ----------------------
attempt quote.fstab_unbalanced refused as_alice mount /media/quoted
case $msg in
*"unbalanced"*) pass quote.fstab_unbalanced.says_why ;;
*) fail quote.fstab_unbalanced.says_why "no word of the unbalanced quote: $(echo "$msg" | head -n 1)" ;;
esac

# --- issue 10: what mount(8) refuses, the helper refuses ----------------------------
# defect 1: a user's own uid= on an untagged disk, or where the policy says no
attempt i10.own_uid_internal refused as_alice mount -o uid=1000,gid=1000 /media/internal
attempt i10.own_uid_internal_helper refused as_alice $H /dev/vdc /media/internal -o rw,user,uid=1000
printf 'enabled = no\n' >/etc/extown.conf
attempt i10.own_uid_enabled_no refused as_alice mount -o uid=1000 /media/stick
attempt i10.enabled_no plain as_alice mount /media/stick
rm -f /etc/extown.conf
# defect 1: an owner root granted on a "dev,suid" entry comes with nosuid,nodev
attempt i10.granted_dev_suid granted as_alice mount /media/devgrant
# defect 2: the policy is read as root, a symlink to a trusted file is
# followed, and any error adds no owner
printf 'enabled = no\n' >/etc/extown.conf
chmod 0600 /etc/extown.conf
attempt i10.conf_root_0600 plain as_alice mount /media/stick
mv /etc/extown.conf /etc/extown.real
chmod 0644 /etc/extown.real
ln -s extown.real /etc/extown.conf
attempt i10.conf_symlink plain as_alice mount /media/stick
rm -f /etc/extown.conf /etc/extown.real
printf 'enabled = yes\nallow-group = no-such-group\n' >/etc/extown.conf
attempt i10.conf_unresolvable_group plain as_alice mount /media/stick
printf 'enabled = yes\nbogus\n' >/etc/extown.conf
attempt i10.conf_malformed plain as_alice mount /media/stick
# defect 9: more than 256 supplementary groups, one of them allowed
printf 'allow-group = 2250\n' >/etc/extown.conf
attempt i10.groups_300 own setpriv --reuid=$ALICE --regid=$ALICE \
	--groups="$(seq -s, 2000 2300)" mount /media/stick
rm -f /etc/extown.conf
# defect 5: -f and -n would write or skip utab as root; a user's -f only
# pretends, as mount(8)'s does once it has dropped its setuid for it
attempt i10.fake nothing as_alice mount -f /media/stick
attempt i10.fake_helper nothing as_alice $H /dev/vdb /media/stick -f -o rw,noexec,nosuid,nodev,user
if grep -q 'TARGET=/media/stick ' /run/mount/utab 2>/dev/null; then
	fail i10.fake.no_utab_entry "$(grep 'TARGET=/media/stick ' /run/mount/utab)"
else
	pass i10.fake.no_utab_entry
fi
attempt i10.nomtab_helper refused as_alice $H /dev/vdb /media/stick -n -o rw,noexec,nosuid,nodev,user
# defect 6: user,nouser grants nothing
attempt i10.user_nouser refused as_alice mount /media/nouser
attempt i10.user_nouser_helper refused as_alice $H /dev/vdb /media/nouser -o rw,noexec,nosuid,nodev,user
# defect 8: a user name with option syntax cannot go into utab
attempt i10.name_with_comma refused setpriv --reuid=1002 --regid=1002 --clear-groups mount /media/stick
case $msg in
*"user name"*) pass i10.name_with_comma.says_why ;;
*) fail i10.name_with_comma.says_why "refusal does not name the user name: $(echo "$msg" | head -n 1)" ;;
esac
# defect 11: a flag this helper does not know breaks no mount
attempt i10.unknown_flag own as_alice $H /dev/vdb /media/stick -Z -o rw,noexec,nosuid,nodev,user

# defect 3: root's remount passes through, also with a default-owner
unmount_all
mount /dev/vdb /media/stick
printf 'default-owner = alice\n' >/etc/extown.conf
msg=$(mount -o remount,ro /media/stick 2>&1)
rc=$?
o=$(awk '$2 == "/media/stick" { print $4 }' /proc/mounts)
echo "i10.root_remount | mount -o remount,ro /media/stick (default-owner) | exit $rc | $o | $msg" >>"$ATT"
if [ "$rc" -eq 0 ] && [ "$(has_opt "$o" ro)" = yes ] && [ -z "$(opt_value "$o" uid)" ]; then
	pass i10.root_remount_untouched
else
	fail i10.root_remount_untouched "exit $rc, options now $o: $(echo "$msg" | head -n 1)"
fi
unmount_all
# defect 3: a filesystem mounted at boot from fstab gets no default owner
cp /etc/fstab /etc/fstab.orig
echo '/dev/vdb /media/internal ext4 defaults 0 2' >>/etc/fstab
mount /dev/vdb /media/stick
o=$(awk '$2 == "/media/stick" { print $4 }' /proc/mounts)
echo "i10.boot_fs | mount /dev/vdb (fstab entry without noauto, default-owner) | | $o |" >>"$ATT"
if [ -n "$o" ] && [ -z "$(opt_value "$o" uid)" ]; then
	pass i10.boot_fs_no_default_owner
else
	fail i10.boot_fs_no_default_owner "options $o"
fi
unmount_all
mv /etc/fstab.orig /etc/fstab
rm -f /etc/extown.conf

# defects 4, 7: fstab "loop" entries
loops() { for l in /sys/block/loop*; do [ -s "$l/loop/backing_file" ] && echo "${l##*/}"; done; }
msg=$(as_alice mount /media/loop 2>&1)
rc=$?
o=$(awk '$2 == "/media/loop" { print $1, $4 }' /proc/mounts)
umsg=$(as_alice umount /media/loop 2>&1)
urc=$?
left=$(loops | tr '\n' ' ')
echo "i10.loop_user | mount /media/loop; umount | exit $rc/$urc | $o | $msg $umsg; loops left: $left" >>"$ATT"
if [ "$rc" -eq 0 ] && [ "$urc" -eq 0 ] && [ -z "$left" ] && ! grep -q ' /media/loop ' /proc/mounts; then
	pass i10.loop_user_mount_and_umount
else
	fail i10.loop_user_mount_and_umount "mount $rc ($o) $msg; umount $urc $umsg; loops left: $left"
fi
umount /media/loop 2>/dev/null
for l in $(loops); do busybox losetup -d "/dev/$l"; done
# a loop device serving the entry's file at another offset
busybox losetup /dev/loop5 /tmp/combo.img
msg=$(as_alice $H /dev/loop5 /media/loop -o rw,noexec,nosuid,nodev,user 2>&1)
rc=$?
o=$(awk '$2 == "/media/loop" { print $1, $4 }' /proc/mounts)
echo "i10.loop_other_offset | mount.ext4 /dev/loop5 (offset 0) /media/loop | exit $rc | $o | $msg" >>"$ATT"
if [ "$rc" -ne 0 ] && [ -z "$o" ]; then
	pass i10.loop_other_offset_refused
else
	fail i10.loop_other_offset_refused "exit $rc, mounted $o"
fi
umount /media/loop 2>/dev/null
busybox losetup -d /dev/loop5
# defect 7: what the helper relies on — while a descriptor of a loop device
# is open, a detach only marks it for clearing and it cannot be re-bound
busybox losetup /dev/loop6 /tmp/combo.img
exec 3</dev/loop6
d_rc=0 r_rc=0
busybox losetup -d /dev/loop6 2>/dev/null || d_rc=$?
busybox losetup /dev/loop6 /tmp/plain-rebind.img 2>/dev/null || r_rc=$?
held=$(cat /sys/block/loop6/loop/backing_file 2>/dev/null)
exec 3<&-
sleep 1
after=$(cat /sys/block/loop6/loop/backing_file 2>/dev/null)
echo "i10.loop_held | detach $d_rc, rebind $r_rc, while held: $held, after close: $after" >>"$ATT"
if [ "$r_rc" -ne 0 ] && [ "$held" = /tmp/combo.img ] && [ -z "$after" ]; then
	pass i10.loop_held_device_not_rebound
else
	fail i10.loop_held_device_not_rebound "detach $d_rc, rebind $r_rc, backing while held '$held', after close '$after'"
fi
busybox losetup -d /dev/loop6 2>/dev/null

# --- after a good mount -----------------------------------------------------------------
unmount_all
as_alice mount /media/stick >/dev/null 2>&1
msg=$(as_alice mount -o remount,uid=0 /media/stick 2>&1)
rc=$?
o=$(awk '$2 == "/media/stick" { print $4 }' /proc/mounts)
echo "remount.uid0 | mount -o remount,uid=0 /media/stick | exit $rc | $o | $msg" >>"$ATT"
if [ "$rc" -ne 0 ] && [ "$(opt_value "$o" uid)" = 1000 ]; then
	pass remount.uid0.refused
else
	fail remount.uid0.refused "exit $rc, options now $o: $msg"
fi
as_alice touch /media/stick/alice-file
msg=$(as_alice chown 1001 /media/stick/alice-file 2>&1)
rc=$?
echo "chown.to_bob | chown 1001 alice-file | exit $rc | | $msg" >>"$ATT"
if [ "$rc" -ne 0 ] && [ "$(stat -c %u /media/stick/alice-file)" = 1000 ]; then
	pass chown.to_bob_refused
else
	fail chown.to_bob_refused "exit $rc, owner now $(stat -c %u:%g /media/stick/alice-file)"
fi
unmount_all

# --- utab, X-mount.*, inherited priorities (the helper with test hooks) --------
# /tests/hooks/mount.ext4: the helper built with -DEXTOWN_TEST_HOOKS, setuid
# root beside the real one: at a named point it waits while the FIFO
# /run/extown-test/POINT exists (hook_arm), after creating POINT.here
HK=/tests/hooks/mount.ext4
mkdir -p /tests/hooks /run/extown-test
cp /tests/mount.ext4-hooks $HK
chown root:root $HK
chmod 4755 $HK
FB=/tests/fbtool
UOPTS=rw,noexec,nosuid,nodev,user
count_at() { awk -v t="$1" '$5 == t { n++ } END { print n + 0 }' /proc/self/mountinfo; }
utab_n() { # TARGET: the utab entries that name it
	awk -v t="TARGET=$1" '{ for (i = 1; i <= NF; i++) if ($i == t) n++ } END { print n + 0 }' \
		/run/mount/utab 2>/dev/null || echo 0
}
hook_arm() { rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; mkfifo "/run/extown-test/$1"; }
hook_wait() { # POINT: until the hooked helper waits there (20 s at most)
	for _ in $(seq 1 200); do
		[ -e "/run/extown-test/$1.here" ] && return 0
		sleep 0.1
	done
	return 1
}
hook_go() { echo go >"/run/extown-test/$1"; rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; }
hook_off() { rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; }
hooked_pid() {
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/exe" 2>/dev/null)" = $HK ] && { echo "${d#/proc/}"; return; }
	done
}
oneline() { echo "$1" | awk 'NF { printf "%s%s", s, $0; s = " // " }' | head -c 400; }

# utab.race: alice's own umount of the target lands between the helper's
# start and its mount (the helper held before the mount); afterwards one
# entry for her one mount, none once she has unmounted it, and root's next
# mount there is not hers to unmount. The count inference wrote a second
# entry (util-linux 2.38), which then went to root's mount.
unmount_all
as_alice mount /media/internal >/dev/null 2>&1
first=$(count_at /media/internal)
hook_arm before-mount
as_alice $HK /dev/vdc /media/internal -o $UOPTS >/tmp/race.out 2>&1 &
hp=$!
umsg="" urc=""
if hook_wait before-mount; then
	umsg=$(as_alice umount /media/internal 2>&1)
	urc=$?
	hook_go before-mount
else
	hook_off before-mount
fi
wait "$hp"
rc=$?
n=$(count_at /media/internal)
u=$(utab_n /media/internal)
echo "utab.race | alice: mount /media/internal ($first); hooked helper held before its mount; alice: umount ($urc: $umsg) | exit $rc | $n mounts, $u utab entries | $(oneline "$(cat /tmp/race.out)")" >>"$ATT"
if [ "$first" -eq 1 ] && [ "$urc" = 0 ] && [ "$rc" -eq 0 ] && [ "$n" -eq 1 ] && [ "$u" -eq 1 ]; then
	pass utab.race.one_entry_for_one_mount
else
	fail utab.race.one_entry_for_one_mount "first mount $first, umount '$urc', helper exit $rc, $n mounts, $u utab entries: $(oneline "$(cat /tmp/race.out)")"
fi
msg=$(as_alice umount /media/internal 2>&1)
rc=$?
u=$(utab_n /media/internal)
if [ "$rc" -eq 0 ] && [ "$(count_at /media/internal)" -eq 0 ] && [ "$u" -eq 0 ]; then
	pass utab.race.no_entry_left
else
	fail utab.race.no_entry_left "umount exit $rc, $(count_at /media/internal) mounts, $u utab entries left ($(grep 'TARGET=/media/internal ' /run/mount/utab | tr '\n' ';')): $(oneline "$msg")"
fi
unmount_all
mount /dev/vdc /media/internal
msg=$(as_alice umount /media/internal 2>&1)
rc=$?
echo "utab.race.root_mount | root: mount /dev/vdc /media/internal; alice: umount | exit $rc | $(count_at /media/internal) mounts | $(oneline "$msg")" >>"$ATT"
if [ "$rc" -ne 0 ] && [ "$(count_at /media/internal)" -eq 1 ]; then
	pass utab.race.root_mount_not_alices
else
	fail utab.race.root_mount_not_alices "alice unmounted root's mount (exit $rc): $(oneline "$msg")"
fi
unmount_all

# utab.gone: alice's umount lands after the mount, before its utab entry:
# nothing is recorded for a mount that is gone, and the mount underneath
# keeps its own entry (2.39+ stacks the second mount; 2.38 refuses it)
as_alice mount /media/internal >/dev/null 2>&1
hook_arm before-record
as_alice $HK /dev/vdc /media/internal -o $UOPTS >/tmp/race.out 2>&1 &
hp=$!
held=no
if hook_wait before-record; then
	held=yes
	umsg=$(as_alice umount /media/internal 2>&1)
	urc=$?
	hook_go before-record
else
	hook_off before-record
fi
wait "$hp"
rc=$?
n=$(count_at /media/internal)
u=$(utab_n /media/internal)
echo "utab.gone | held before the record: $held; alice's umount then: $urc $umsg | exit $rc | $n mounts, $u utab entries | $(oneline "$(cat /tmp/race.out)")" >>"$ATT"
if [ "$n" -eq "$u" ]; then
	pass utab.gone.entries_match_mounts
else
	fail utab.gone.entries_match_mounts "$n mounts, $u utab entries (held: $held, umount $urc, helper exit $rc)"
fi
while [ "$(count_at /media/internal)" -gt 0 ]; do
	as_alice umount /media/internal >/dev/null 2>&1 || break
done
if [ "$(count_at /media/internal)" -eq 0 ] && [ "$(utab_n /media/internal)" -eq 0 ]; then
	pass utab.gone.alice_umounts_all
else
	fail utab.gone.alice_umounts_all "$(count_at /media/internal) mounts, $(utab_n /media/internal) utab entries left"
fi
unmount_all

# xmount.*: what restricted mount(8) refuses a user or does not let the
# helper do (it never passes X-* to a helper) is not done as root for a
# direct call: X-mount.mkdir of a missing mount point is refused
# ("operation permitted for root only", 1) and nothing is created, also
# through alice's symbolic link; every other X-mount.* is left out
mkdir -p /media/xm /media/xe /media/xo /media/xs /media/xi /media/xa /home/alice/own
chown $ALICE:$ALICE /home/alice/own
ln -s /root /home/alice/own/lnk
chown -h $ALICE:$ALICE /home/alice/own/lnk
rm -rf /media/xm/new /root/made
cat >>/etc/fstab <<'EOF'
/dev/vdc /media/xm/new/dir ext4 user,noauto,X-mount.mkdir 0 0
/dev/vdc /media/xm/low ext4 user,noauto,x-mount.mkdir=0777 0 0
/dev/vdc /home/alice/own/lnk/made ext4 user,noauto,X-mount.mkdir 0 0
/dev/vdc /media/xe ext4 user,noauto,X-mount.mkdir=0700 0 0
/dev/vdc /media/xo ext4 user,noauto,X-mount.owner=1001,X-mount.group=1001,X-mount.mode=0777 0 0
/dev/vdc /media/xs ext4 user,noauto,X-mount.subdir=lost+found 0 0
/dev/vdc /media/xi ext4 user,noauto,X-mount.idmap=b:0:1000:1 0 0
/dev/vdc /media/xa ext4 user,noauto,X-mount.auto-fstypes=ext4,X-mount.noloop,X-mount.nocanonicalize 0 0
EOF
for t in mkdir:/media/xm/new/dir:/media/xm/new mkdir_lowercase:/media/xm/low:/media/xm/low \
	mkdir_symlink:/home/alice/own/lnk/made:/root/made; do
	name=${t%%:*} rest=${t#*:}
	mp=${rest%%:*} made=${rest#*:}
	msg=$(as_alice $H /dev/vdc "$mp" -o $UOPTS 2>&1)
	rc=$?
	echo "xmount.$name | mount.ext4 /dev/vdc $mp (X-mount.mkdir, missing) | exit $rc | $(our_mounts | tr '\n' ';') | $(oneline "$msg")" >>"$ATT"
	if [ "$rc" -eq 1 ] && [ ! -e "$made" ] && [ -z "$(our_mounts)" ]; then
		pass "xmount.$name.refused_nothing_created"
	else
		fail "xmount.$name.refused_nothing_created" "exit $rc, $made $([ -e "$made" ] && echo created || echo absent): $(oneline "$msg")"
	fi
	case $msg in
	*"permitted for root only"*) pass "xmount.$name.says_root_only" ;;
	*) fail "xmount.$name.says_root_only" "$(oneline "$msg")" ;;
	esac
	unmount_all
done
msg=$(as_alice mount /media/xm/new/dir 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && [ ! -e /media/xm/new ]; then
	pass xmount.mkdir_mount8.refused_nothing_created
else
	fail xmount.mkdir_mount8.refused_nothing_created "exit $rc: $(oneline "$msg")"
fi
unmount_all
# xmount_direct NAME MP CHECK: alice's direct call mounts; CHECK (a command
# given MP) says root did nothing the option asks for
xmount_direct() {
	msg=$(as_alice $H /dev/vdc "$2" -o $UOPTS 2>&1)
	rc=$?
	echo "xmount.$1 | mount.ext4 /dev/vdc $2 | exit $rc | $(our_mounts | tr '\n' ';') | $(oneline "$msg")" >>"$ATT"
	if [ "$rc" -eq 0 ] && [ "$(count_at "$2")" -eq 1 ] && "$3" "$2"; then
		pass "xmount.$1.mounted_option_not_applied"
	else
		fail "xmount.$1.mounted_option_not_applied" "exit $rc, $(count_at "$2") mounts, $($3 "$2" && echo check ok || echo check failed): $(oneline "$msg")"
	fi
	unmount_all
}
not_0700() { [ "$(stat -c %a "$1")" != 700 ]; }
not_chowned() { [ "$(stat -c %u:%g:%a "$1")" != 1001:1001:777 ] && [ "$(stat -c %u "$1")" != 1001 ]; }
root_is_fs_root() { awk -v t="$1" '$5 == t { r = $4 } END { exit r != "/" }' /proc/self/mountinfo; }
not_idmapped() { ! awk -v t="$1" '$5 == t { print $6 }' /proc/self/mountinfo | grep -q idmapped; }
mounted_ok() { [ -d "$1" ]; }
xmount_direct mkdir_existing /media/xe not_0700
xmount_direct owner_group_mode /media/xo not_chowned
xmount_direct subdir /media/xs root_is_fs_root
xmount_direct idmap /media/xi not_idmapped
xmount_direct auto_fstypes_noloop_nocanonicalize /media/xa mounted_ok

# priorities: a caller's SCHED_IDLE, nice 19 and idle I/O class do not
# reach the setuid helper (held before its mount, read from outside)
unmount_all
hook_arm before-mount
$FB exec --sched-idle --nice 19 --ioprio-idle setpriv --reuid=$ALICE --regid=$ALICE --init-groups \
	$HK /dev/vdc /media/internal -o $UOPTS >/tmp/prio.out 2>&1 &
hp=$!
got=""
if hook_wait before-mount; then
	got=$($FB sched "$(hooked_pid)" 2>&1)
	hook_go before-mount
else
	hook_off before-mount
fi
wait "$hp"
rc=$?
echo "priorities | SCHED_IDLE, nice 19, ioprio idle: mount.ext4 (hooked) | exit $rc | $got | $(oneline "$(cat /tmp/prio.out)")" >>"$ATT"
if [ "$got" = "policy 0 nice 0 ioprio 0" ] && [ "$rc" -eq 0 ]; then
	pass priorities.reset_in_helper
else
	fail priorities.reset_in_helper "while held: '$got' (want policy 0 nice 0 ioprio 0), exit $rc"
fi
unmount_all
sync
