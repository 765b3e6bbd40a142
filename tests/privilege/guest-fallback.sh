#!/bin/sh
# shellcheck shell=dash
# In-guest half of the fallback run of tests/privilege/run.sh (busybox VM
# on the `unpatched` kernel, dash): the setuid helper's idmapped-mount
# fallback (docs/idmapped-fallback.md) attacked as issue 18 describes, one
# or a few tests per defect, names privilege.fallback.*.
#
#   guest-fallback.sh OUTDIR
#
# Disks (both faked "removable" in the udev database, as guest.sh does):
#   /dev/vdb  "stick": tools/vm/mkimages.sh's ext4 image (root directory
#             and files of 1234:1234)
#   /dev/vdc  "swap": root directory 1001:1001 (bob, the stick's owner X),
#             /diary 0600 1000:1000 (alice's own), /bobs 0600 1001:1001
#             (tests/privilege/run.sh makes it)
# /etc/fstab:
#   /dev/vdb        /media/stick   ext4 user,noauto
#   /dev/vdb        /media/shared  ext4 users,noauto
#   /dev/vdb        /media/link    ext4 user,noauto   (/media/link -> /media/x5)
#   /dev/vdc        /media/swap    ext4 user,noauto
#   /tmp/plain.img  /media/img     ext4 user,noauto   (an image file, no "loop")
#
# The tests, by defect of issue 18:
#  1 foreign_proc   alice parks 10 processes in fresh user namespaces
#                   (/tests/fbtool park) at consecutive pids A..A+9; root
#                   runs `mount -o uid=1000,gid=1000` in `unshare -p -f`
#                   (host /proc kept) after forking until the namespace's
#                   next pid is A-1, so the helper's child gets pid A in
#                   its own namespace. .attackers_unmapped: no parker's
#                   uid_map was ever written; .no_root: none read
#                   /etc/shadow or created a file in /root; .mounted: the
#                   mount still happened (exit 0)
#  2 sigchld_ignored  alice's `mount /media/stick` with SIGCHLD ignored
#                   (fbtool exec --sigign-chld), stderr a pipe pre-filled
#                   with 65536 bytes: the helper blocks on its message;
#                   while it does, .not_inherited: SIGCHLD is not in its
#                   SigIgn
#  6 stderr_full_pipe  (same hold) .utab_before_message: if mounted while
#                   held, /run/mount/utab already has the entry;
#                   .terminal_signals_blocked: SIGHUP, SIGINT, SIGQUIT,
#                   SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU blocked or ignored
#    stderr_closed  stderr a pipe whose reader has gone: .utab_if_mounted:
#                   nothing mounted or mounted with its utab entry;
#                   .alice_can_umount
#  3 swap           alice mounts /media/swap (X = 1001 = bob): bob cannot
#                   read, append to or chmod alice's 0600 diary; the diary
#                   is not shown as another user (1000 or 65534 only);
#                   nothing on the mount is shown as bob's (uid or gid 1001);
#                   X's files show as alice's; the host checks that the diary
#                   is unchanged and a file alice created is X (1001:1001)
#                   on disk
#  4 stack          alice mounts /media/stick twice: as mount(8) alone does,
#                   with libmount 2.38 (mount(2)) the second exits 32, one
#                   mount and one utab entry remain; users: bob's mount of
#                   alice's mounted /media/shared exits 32 and alice can
#                   still umount it. With libmount's fd-based mount (2.39+,
#                   "fd-based-mount" in mount -V) both stack: two idmapped
#                   mounts, two utab entries, alice umounts both; bob's
#                   mount stacks, he umounts his and alice hers
#  5 symlinked_mountpoint  alice mounts /media/link (symlink to /media/x5): mounted
#                   idmapped at /media/x5, and alice can umount it
#  7 image_without_loop  alice mounts /media/img: mounted; umount leaves
#                   no loop device bound
#  8 nofile_low     `mount /media/stick` by alice with RLIMIT_NOFILE 4..8
#                   (.mountN), and the helper run directly at 3..7
#                   (.helperN):
#                   exit 0 with the mount and its utab entry, or refused
#                   with nothing mounted, never exit 32 with a mount left
#  9 msg            the "new files written as U:G" of a message equals what
#                   the host's debugfs reads for a file created there (the
#                   guest writes OUTDIR/ondisk: "DISK PATH UID GID TEST",
#                   checked by run.sh; a file uid 2001 creates after root's
#                   `mount -o uid=2001` of the stick, a file alice creates on
#                   her own mounts); root's `mount -v -o uid=2001` names no
#                   gid it was not given (on the stick, and on an image
#                   whose owner is 2001:0 already); root's mount onto a missing
#                   target or a regular file fails without mounting the
#                   filesystem first (Mount count, Last mount time)
# OUTDIR/attempts lists every attempt: name | command | exit | mounts of
# vdb/vdc/loop (source target per-mount options) | message (lines joined
# with " // ").
set -u

OUT=$1
RES=$OUT/results
ATT=$OUT/attempts
ONDISK=$OUT/ondisk
: >"$RES"
: >"$ATT"
: >"$ONDISK"
ALICE=1000
BOB=1001
FB=/tests/fbtool

T_RESULTS=$RES T_PREFIX=privilege.fallback.
# shellcheck source=tests/lib/results.sh
. /tests/results.sh
# shellcheck source=tests/lib/vmguest.sh
. /tests/vmguest.sh
as_alice() { setpriv --reuid=$ALICE --regid=$ALICE --init-groups "$@"; }
as_bob() { setpriv --reuid=$BOB --regid=$BOB --init-groups "$@"; }

# mounts of our devices: "SOURCE TARGET PER-MOUNT-OPTIONS"
our_mounts() {
	awk '{ for (i = 7; i <= NF && $i != "-"; i++) ;
		if ($(i + 2) ~ /^\/dev\/(vd[bc]|loop)/) print $(i + 2), $5, $6 }' /proc/self/mountinfo
}
count_at() { awk -v t="$1" '$5 == t { n++ } END { print n + 0 }' /proc/self/mountinfo; }
# per-mount options of the topmost mount at TARGET
opts_at() { awk -v t="$1" '$5 == t { o = $6 } END { print o }' /proc/self/mountinfo; }
utab_has() { # TARGET: how many utab entries name it
	awk -v t="TARGET=$1" '{ for (i = 1; i <= NF; i++) if ($i == t) n++ } END { print n + 0 }' \
		/run/mount/utab 2>/dev/null || echo 0
}
idmapped_at() { case ",$(opts_at "$1")," in *,idmapped,*) return 0 ;; esac; return 1; }
loops() { for l in /sys/block/loop*; do [ -s "$l/loop/backing_file" ] && echo "${l##*/}"; done; }
unmount_all() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		m=$(our_mounts | awk '{ print $2 }')
		[ -n "$m" ] || break
		for t in $m; do umount "$t" 2>/dev/null || umount -l "$t" 2>/dev/null; done
	done
	for l in $(loops); do busybox losetup -d "/dev/$l" 2>/dev/null; done
}
oneline() { echo "$1" | awk 'NF { printf "%s%s", s, $0; s = " // " }' | head -c 600; }
record() { # NAME COMMAND EXIT MESSAGE
	printf '%s | %s | exit %s | %s | %s\n' "$1" "$2" "$3" "$(our_mounts | tr '\n' ';')" \
		"$(oneline "$4")" >>"$ATT"
}
# alice_umounts TEST RECORD MP AT: alice's umount MP succeeds and leaves no
# mount at AT (MP itself, or where its symbolic link leads)
alice_umounts() {
	msg=$(as_alice umount "$3" 2>&1)
	rc=$?
	n=$(count_at "$4")
	record "$2" "alice: umount $3" "$rc" "$msg"
	if [ "$rc" -eq 0 ] && [ "$n" -eq 0 ]; then
		pass "$1"
	else
		fail "$1" "exit $rc, $n mounts left: $(oneline "$msg")"
	fi
}
# "UID GID" that MSG says new files are written as, in either wording:
# "new files written as UID:GID" (ca37164) or "new files of uid N are
# written as uid UID, gid GID" / "..., their own gid" (GID is then the
# creator's, OWN_GID); "-" for a gid it does not name; empty when MSG
# names no ids at all
written_as() { # MSG OWN_GID
	echo "$1" | sed -n -e 's/.*new files written as \([0-9][0-9]*\):\([0-9][0-9]*\).*/\1 \2/p' \
		-e 's/.*written as uid \([0-9][0-9]*\), gid \([0-9][0-9]*\).*/\1 \2/p' \
		-e "s/.*written as uid \\([0-9][0-9]*\\), their own gid.*/\\1 $2/p" \
		-e 's/.*written as uid \([0-9][0-9]*\)$/\1 -/p' \
		-e 's/.*written as uid \([0-9][0-9]*\)[^,0-9].*/\1 -/p' | head -n 1
}
# expect_ondisk TEST DISK PATH MSG CREATOR_GID: the host compares the
# on-disk owner of PATH (created by a process of gid CREATOR_GID) with
# the ids MSG names
expect_ondisk() {
	w=$(written_as "$4" "$5")
	if [ -z "$w" ]; then
		fail "$1" "the message names no ids new files are written as: $(oneline "$4")"
	else
		echo "$2 $3 $w $1" >>"$ONDISK"
	fi
}
sb_field() { # DEV FIELD: a superblock field as debugfs reads it
	debugfs -R stats "$1" 2>/dev/null | sed -n "s/^$2: *//p" | head -n 1
}
owners() { # DIR: "UID GID MODE PATH" of everything under DIR, as shown
	find "$1" | while read -r f; do stat -c '%u %g %a %n' "$f"; done
}
helper_pid() {
	for d in /proc/[0-9]*; do
		c=""
		{ read -r c <"$d/comm"; } 2>/dev/null
		[ "$c" = mount.ext4 ] && { echo "${d#/proc/}"; return; }
	done
}

# --- set-up ----------------------------------------------------------------
install_helper
mkdir -p /media/stick /media/shared /media/x5 /media/swap /media/img /media/fp /media/m9 \
	/tmp/park
ln -s x5 /media/link
rm -rf /media/missing
: >/tmp/fb-regular
tag_removable vdb
tag_removable vdc
cat >/etc/fstab <<'EOF'
/dev/vdb /media/stick ext4 user,noauto 0 0
/dev/vdb /media/shared ext4 users,noauto 0 0
/dev/vdb /media/link ext4 user,noauto 0 0
/dev/vdc /media/swap ext4 user,noauto 0 0
/tmp/plain.img /media/img ext4 user,noauto 0 0
EOF
truncate -s 16M /tmp/plain.img /tmp/own2001.img
mke2fs -q -F -t ext4 /tmp/plain.img
mke2fs -q -F -t ext4 -E root_owner=2001:0 /tmp/own2001.img
if [ -e /sys/fs/ext4/features/uid_gid_override ]; then
	fail kernel_unpatched "/sys/fs/ext4/features/uid_gid_override exists: the fallback does not run"
else
	pass kernel_unpatched
fi

# --- 1: the helper under a foreign /proc (first: the pids are still low) ----
pids=""
i=0
while [ "$i" -lt 10 ]; do
	setpriv --reuid=$ALICE --regid=$ALICE --init-groups $FB park 300 >"/tmp/park/$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
for _ in $(seq 1 80); do
	n=$(cat /tmp/park/* 2>/dev/null | grep -c '^parked')
	[ "$n" -ge 10 ] && break
	sleep 0.25
done
first=${pids# }
first=${first%% *}
bad_ns=""
for p in $pids; do
	[ "$(readlink "/proc/$p/ns/user")" != "$(readlink /proc/1/ns/user)" ] || bad_ns="$bad_ns $p"
done
# the namespace's pid 1 forks until its last pid is >= A-2; mount(8) then
# forks the helper (A-1), and the helper its user-namespace child (A)
target=$((first - 2))
# shellcheck disable=SC2016 # expanded by the inner shell
msg=$(unshare -p -f sh -c 'while :; do true & p=$!; wait "$p"; [ "$p" -lt "$1" ] || break; done
	exec mount -o uid=1000,gid=1000 /dev/vdb /media/fp' sh "$target" 2>&1)
rc=$?
sleep 1
maps="" roots=""
for p in $pids; do
	m=$(cat "/proc/$p/uid_map" 2>/dev/null)
	[ -z "$m" ] || maps="$maps pid $p has uid_map '$(echo "$m" | tr -s ' \n' ' ;')';"
done
for f in /tmp/park/*; do
	maps="$maps$(sed -n 's/^map: \(.*\)/ parker got map "\1";/p' "$f" | tr -d '\n')"
	roots="$roots$(grep -E '^(shadow: read|pwned: created)' "$f" | sed 's/$/;/' | tr '\n' ' ')"
done
record foreign_proc "parkers at$pids; unshare -p -f (ns pids to $target) mount -o uid=1000,gid=1000 /dev/vdb /media/fp" \
	"$rc" "$msg (parker namespaces not own:${bad_ns:- none}) idmapped: $(idmapped_at /media/fp && echo yes || echo no)"
for p in $pids; do kill "$p" 2>/dev/null; done
for p in $pids; do wait "$p" 2>/dev/null; done
if [ -n "$bad_ns" ]; then
	fail foreign_proc.attackers_unmapped "parkers$bad_ns are not in a user namespace of their own (harness)"
elif [ -z "$maps" ]; then
	pass foreign_proc.attackers_unmapped
else
	fail foreign_proc.attackers_unmapped "$maps (exit $rc: $(oneline "$msg"))"
fi
if [ -z "$roots" ]; then
	pass foreign_proc.no_root
else
	fail foreign_proc.no_root "an attacker as root: $roots"
fi
if [ "$rc" -eq 0 ] && [ "$(count_at /media/fp)" -ge 1 ]; then
	pass foreign_proc.mounted
else
	fail foreign_proc.mounted "exit $rc, $(count_at /media/fp) mounts at /media/fp: $(oneline "$msg")"
fi
rm -f /root/pwned-*
unmount_all

# --- 9: a missing target, a regular file: fail before the filesystem is mounted
for t in missing:/media/missing file:/tmp/fb-regular; do
	name=${t%%:*} dir=${t#*:}
	c0=$(sb_field /dev/vdb 'Mount count') l0=$(sb_field /dev/vdb 'Last mount time')
	msg=$(mount -o uid=1000,gid=1000 /dev/vdb "$dir" 2>&1)
	rc=$?
	c1=$(sb_field /dev/vdb 'Mount count') l1=$(sb_field /dev/vdb 'Last mount time')
	record "msg.${name}_target" "mount -o uid=1000,gid=1000 /dev/vdb $dir (mount count $c0 -> $c1)" "$rc" "$msg"
	if [ "$rc" -ne 0 ] && [ -n "$c0" ] && [ "$c0" = "$c1" ] && [ "$l0" = "$l1" ] && [ -z "$(our_mounts)" ]; then
		pass "msg.${name}_target.not_mounted_first"
	else
		fail "msg.${name}_target.not_mounted_first" "exit $rc, mount count $c0 -> $c1, last mount '$l0' -> '$l1': $(oneline "$msg")"
	fi
	unmount_all
done

# --- 9: root's uid= without gid=: no gid named that was not given -----------
# a filesystem already owned by 2001 (gid 0): nothing to map
msg=$(mount -v -o uid=2001 /tmp/own2001.img /media/m9 2>&1)
rc=$?
record msg.uid_only_owner "mount -v -o uid=2001 /tmp/own2001.img (root 2001:0) /media/m9" "$rc" "$msg"
if [ "$rc" -eq 0 ] && ! echo "$msg" | grep -q "2001:[0-9]"; then
	pass msg.uid_only_owner.no_gid_invented
else
	fail msg.uid_only_owner.no_gid_invented "exit $rc: $(echo "$msg" | grep '2001:[0-9]' | head -n 1)"
fi
unmount_all
# the stick (1234:1234): uid mapped, gid not
msg=$(mount -v -o uid=2001 /dev/vdb /media/m9 2>&1)
rc=$?
record msg.uid_only "mount -v -o uid=2001 /dev/vdb /media/m9" "$rc" "$msg"
if [ "$rc" -eq 0 ] && ! echo "$msg" | grep -q "2001:[0-9]"; then
	pass msg.uid_only.no_gid_invented
else
	fail msg.uid_only.no_gid_invented "exit $rc: $(echo "$msg" | grep '2001:[0-9]' | head -n 1)"
fi
if [ "$rc" -eq 0 ] && setpriv --reuid=2001 --regid=2001 --clear-groups touch /media/m9/m9-probe; then
	expect_ondisk msg.uid_only.new_file_matches_message stick /m9-probe "$msg" 2001
else
	fail msg.uid_only.new_file_matches_message "mount exit $rc, or uid 2001 cannot create a file: $(oneline "$msg")"
fi
unmount_all

# --- 2, 6b: SIGCHLD ignored, stderr full: the helper held on its message ----
rm -f /tmp/fb-release
mkfifo /tmp/fb-release
(
	{
		head -c 65536 /dev/zero
		exec $FB exec --sigign-chld setpriv --reuid=$ALICE --regid=$ALICE --init-groups \
			mount /media/stick
	} 2>&1 | {
		read -r _ </tmp/fb-release
		cat >/dev/null
	}
) &
bg=$!
hp="" held=no sc=""
for _ in $(seq 1 160); do
	[ -n "$hp" ] && [ -d "/proc/$hp" ] || hp=$(helper_pid)
	if [ -n "$hp" ]; then
		sc=""
		{ read -r sc <"/proc/$hp/syscall"; } 2>/dev/null
		case $sc in "1 0x2 "* | "20 0x2 "*) held=yes && break ;; esac
	fi
	sleep 0.25
done
sigign="" sigblk="" mounted=0 utab=0
if [ "$held" = yes ]; then
	sigign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$hp/status")
	sigblk=$(awk '/^SigBlk:/ { print $2 }' "/proc/$hp/status")
	mounted=$(count_at /media/stick)
	utab=$(utab_has /media/stick)
fi
echo go >/tmp/fb-release
wait "$bg"
record sigchld_stderr_full "SIGCHLD ignored, stderr full: mount /media/stick" "?" \
	"held: $held (helper $hp, syscall '$sc'); SigIgn $sigign, SigBlk $sigblk; while held: $mounted mounts, $utab utab entries"
if [ "$held" != yes ]; then
	fail sigchld_ignored.not_inherited "the helper never blocked on a write to stderr (pid '$hp', syscall '$sc')"
	fail stderr_full_pipe.utab_before_message "the helper never blocked on a write to stderr"
	fail stderr_full_pipe.terminal_signals_blocked "the helper never blocked on a write to stderr"
else
	# signals 1-32 are the low 8 hex digits: bit N-1 for signal N
	ign=$((0x${sigign#????????})) blk=$((0x${sigblk#????????}))
	if [ $((ign & 0x10000)) -eq 0 ]; then # SIGCHLD (17)
		pass sigchld_ignored.not_inherited
	else
		fail sigchld_ignored.not_inherited "the root helper runs with SIGCHLD ignored (SigIgn $sigign)"
	fi
	# SIGHUP, SIGINT, SIGQUIT (1-3), SIGPIPE (13), SIGTSTP, SIGTTIN, SIGTTOU (20-22)
	if [ $(((ign | blk) & 0x381007)) -eq $((0x381007)) ]; then
		pass stderr_full_pipe.terminal_signals_blocked
	else
		fail stderr_full_pipe.terminal_signals_blocked "held with SigBlk $sigblk, SigIgn $sigign"
	fi
	if [ "$mounted" -eq 0 ] || [ "$utab" -ge 1 ]; then
		pass stderr_full_pipe.utab_before_message
	else
		fail stderr_full_pipe.utab_before_message "held on its message with $mounted mounts and $utab utab entries"
	fi
fi
unmount_all

# --- 6a: stderr a pipe without a reader ---------------------------------------
{
	sleep 1
	exec setpriv --reuid=$ALICE --regid=$ALICE --init-groups mount /media/stick
} 2>&1 | true
mounted=$(count_at /media/stick)
utab=$(utab_has /media/stick)
record stderr_closed "mount /media/stick 2>&1 | (reader gone)" "?" "$mounted mounts, $utab utab entries"
if [ "$mounted" -eq 0 ] || [ "$utab" -ge 1 ]; then
	pass stderr_closed.utab_if_mounted
else
	fail stderr_closed.utab_if_mounted "$mounted mounts, $utab utab entries"
fi
if [ "$mounted" -eq 0 ]; then
	pass stderr_closed.alice_can_umount
else
	msg=$(as_alice umount /media/stick 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(count_at /media/stick)" -eq 0 ]; then
		pass stderr_closed.alice_can_umount
	else
		fail stderr_closed.alice_can_umount "umount exit $rc, $(count_at /media/stick) mounts left: $(oneline "$msg")"
	fi
fi
unmount_all

# --- 3: the swap map must not hand alice's files to bob -----------------------
msg=$(as_alice mount /media/swap 2>&1)
rc=$?
record swap "alice: mount /media/swap (stick owner 1001 = bob)" "$rc" "$msg"
if [ "$rc" -eq 0 ] && [ "$(count_at /media/swap)" -eq 1 ]; then
	pass swap.mounted
else
	fail swap.mounted "exit $rc: $(oneline "$msg")"
fi
if [ "$rc" -eq 0 ]; then
	out=$(as_bob cat /media/swap/diary 2>&1)
	r=$?
	if [ "$r" -ne 0 ]; then
		pass swap.bob_cannot_read_diary
	else
		fail swap.bob_cannot_read_diary "bob read it: $out"
	fi
	as_bob sh -c 'echo bob was here >>/media/swap/diary' 2>/dev/null
	r=$?
	if [ "$r" -ne 0 ]; then
		pass swap.bob_cannot_append_diary
	else
		fail swap.bob_cannot_append_diary "bob appended to it"
	fi
	as_bob chmod 0666 /media/swap/diary 2>/dev/null
	r=$?
	if [ "$r" -ne 0 ]; then
		pass swap.bob_cannot_chmod_diary
	else
		fail swap.bob_cannot_chmod_diary "bob chmodded it: $(stat -c %a /media/swap/diary)"
	fi
	o=$(stat -c %u:%g /media/swap/diary)
	case $o in
	1000:1000 | 1000:65534 | 65534:1000 | 65534:65534) pass swap.diary_not_shown_as_another_user ;;
	*) fail swap.diary_not_shown_as_another_user "alice's diary is shown as $o" ;;
	esac
	asbob=$(owners /media/swap | awk '$1 == 1001 || $2 == 1001 { print $4 }' | tr '\n' ' ')
	if [ -z "$asbob" ]; then
		pass swap.nothing_shown_as_bob
	else
		fail swap.nothing_shown_as_bob "shown as bob's: $asbob"
	fi
	if [ "$(stat -c %u:%g /media/swap)" = 1000:1000 ] && [ "$(stat -c %u:%g /media/swap/bobs)" = 1000:1000 ]; then
		pass swap.stick_owner_shown_as_caller
	else
		fail swap.stick_owner_shown_as_caller "/media/swap shown as $(stat -c %u:%g /media/swap), /bobs as $(stat -c %u:%g /media/swap/bobs)"
	fi
	echo "swap: shown as (uid gid mode path) $(owners /media/swap | tr '\n' ';')" >>"$ATT"
	if as_alice touch /media/swap/alice-new; then
		expect_ondisk swap.new_file_matches_message swap /alice-new "$msg" $ALICE
		echo "swap /alice-new 1001 1001 swap.new_file_on_disk_is_stick_owner" >>"$ONDISK"
	else
		fail swap.new_file_matches_message "alice cannot create a file on her mount"
	fi
fi
unmount_all

# --- 4: stacked mounts ---------------------------------------------------------
msg=$(as_alice mount /media/stick 2>&1)
rc=$?
record stack.first "alice: mount /media/stick" "$rc" "$msg"
if [ "$rc" -eq 0 ] && idmapped_at /media/stick; then
	pass stack.first_mount_idmapped
else
	fail stack.first_mount_idmapped "exit $rc, options '$(opts_at /media/stick)': $(oneline "$msg")"
fi
if [ "$rc" -eq 0 ] && as_alice touch /media/stick/fb-probe; then
	expect_ondisk msg.user_mount.new_file_matches_message stick /fb-probe "$msg" $ALICE
else
	fail msg.user_mount.new_file_matches_message "alice's mount failed or she cannot create a file"
fi
# mount(8) alone: mount(2) (libmount 2.38) refuses the same filesystem twice
# on one mount point, "already mounted" (32); libmount's fd-based mount
# (2.39+, move_mount(2)) stacks it. The helper does what mount(8) would.
stacks=no
case $(mount -V) in *fd-based-mount*) stacks=yes ;; esac
msg=$(as_alice mount /media/stick 2>&1)
rc=$?
record stack.second "alice: mount /media/stick (again)" "$rc" "$msg"
n=$(count_at /media/stick)
u=$(utab_has /media/stick)
if [ "$stacks" = no ]; then
	check_eq stack.second_mount_exit_32 "exit status ($(oneline "$msg"))" 32 "$rc"
	check_eq stack.one_mount "mounts at /media/stick" 1 "$n"
	check_eq stack.one_utab_entry "utab entries for /media/stick" 1 "$u"
else
	check_eq stack.second_mount_stacked "exit status ($(oneline "$msg"))" 0 "$rc"
	check_eq stack.two_mounts "mounts at /media/stick" 2 "$n"
	if idmapped_at /media/stick; then
		pass stack.second_mount_idmapped
	else
		fail stack.second_mount_idmapped "options '$(opts_at /media/stick)'"
	fi
	check_eq stack.two_utab_entries "utab entries for /media/stick" 2 "$u"
	msg=$(as_alice umount /media/stick 2>&1)
	rc=$?
	record stack.umount_top "alice: umount /media/stick (the top one)" "$rc" "$msg"
	check_eq stack.alice_umounts_top "exit status ($(oneline "$msg"))" 0 "$rc"
	alice_umounts stack.alice_umounts_lower stack.umount_lower /media/stick /media/stick
fi
unmount_all
msg=$(as_alice mount /media/shared 2>&1)
rc=$?
record stack.users_alice "alice: mount /media/shared (users)" "$rc" "$msg"
msg=$(as_bob mount /media/shared 2>&1)
rcb=$?
n=$(count_at /media/shared)
record stack.users_bob "bob: mount /media/shared (mounted by alice)" "$rcb" "$msg"
if [ "$stacks" = no ] && [ "$rc" -eq 0 ] && [ "$rcb" -eq 32 ] && [ "$n" -eq 1 ]; then
	pass users.other_user_refused
elif [ "$stacks" = yes ] && [ "$rc" -eq 0 ] && [ "$rcb" -eq 0 ] && [ "$n" -eq 2 ]; then
	pass users.other_user_stacked
else
	fail "users.other_user_$([ "$stacks" = no ] && echo refused || echo stacked)" \
		"alice's mount exit $rc; bob's exit $rcb, $n mounts: $(oneline "$msg")"
fi
if [ "$stacks" = yes ]; then
	msg=$(as_bob umount /media/shared 2>&1)
	rc=$?
	record stack.users_bob_umount "bob: umount /media/shared (his, on top)" "$rc" "$msg"
	check_eq users.other_user_umounts_his "exit status ($(oneline "$msg"))" 0 "$rc"
fi
alice_umounts users.first_user_can_umount stack.users_alice_umount /media/shared /media/shared
unmount_all

# --- 5: a symlinked fstab mount point -----------------------------------------
msg=$(as_alice mount /media/link 2>&1)
rc=$?
record symlinked_mountpoint "alice: mount /media/link (-> /media/x5)" "$rc" "$msg"
if [ "$rc" -eq 0 ] && idmapped_at /media/x5; then
	pass symlinked_mountpoint.mounted_idmapped
else
	fail symlinked_mountpoint.mounted_idmapped "exit $rc, options at /media/x5 '$(opts_at /media/x5)': $(oneline "$msg")"
fi
alice_umounts symlinked_mountpoint.alice_can_umount symlinked_mountpoint.umount /media/link /media/x5
unmount_all

# --- 7: an image file in a user entry, no "loop" option -------------------------
msg=$(as_alice mount /media/img 2>&1)
rc=$?
record image_without_loop "alice: mount /media/img (/tmp/plain.img, no loop option)" "$rc" "$msg"
if [ "$rc" -eq 0 ] && [ "$(count_at /media/img)" -eq 1 ]; then
	pass image_without_loop.mounted
else
	fail image_without_loop.mounted "exit $rc: $(oneline "$msg")"
fi
msg=$(as_alice umount /media/img 2>&1)
rc=$?
sleep 0.5
left=$(loops | tr '\n' ' ')
record image_without_loop.umount "alice: umount /media/img" "$rc" "$msg (loops bound: $left)"
if [ "$rc" -eq 0 ] && [ "$(count_at /media/img)" -eq 0 ] && [ -z "$left" ]; then
	pass image_without_loop.umount_no_loop_left
else
	fail image_without_loop.umount_no_loop_left "exit $rc, $(count_at /media/img) mounts, loops bound: $left: $(oneline "$msg")"
fi
unmount_all

# --- 8: few file descriptors ---------------------------------------------------------
# through mount(8), and on the helper directly (as mount(8) runs it)
for t in mount:4 mount:5 mount:6 mount:7 mount:8 helper:3 helper:4 helper:5 helper:6 helper:7; do
	how=${t%:*} nf=${t#*:}
	if [ "$how" = mount ]; then
		name=nofile_low.mount$nf
		msg=$($FB exec --nofile "$nf" setpriv --reuid=$ALICE --regid=$ALICE --init-groups \
			mount /media/stick 2>&1)
	else
		name=nofile_low.helper$nf
		msg=$($FB exec --nofile "$nf" setpriv --reuid=$ALICE --regid=$ALICE --init-groups \
			/usr/sbin/mount.ext4 /dev/vdb /media/stick -o rw,noexec,nosuid,nodev,user 2>&1)
	fi
	rc=$?
	n=$(count_at /media/stick)
	u=$(utab_has /media/stick)
	record "$name" "RLIMIT_NOFILE $nf, alice: $how /media/stick" "$rc" "$msg ($n mounts, $u utab entries)"
	if { [ "$rc" -eq 0 ] && [ "$n" -eq 1 ] && [ "$u" -ge 1 ]; } || { [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; }; then
		pass "$name.consistent"
	else
		fail "$name.consistent" "exit $rc, $n mounts, $u utab entries: $(oneline "$msg")"
	fi
	unmount_all
done

# --- utab by mount ID, the attach lock, utab failure (hooked helper) ----------
# /tests/hooks/mount.ext4: the helper built with -DEXTOWN_TEST_HOOKS (see
# tests/privilege/guest.sh), setuid root beside the real one
HK=/tests/hooks/mount.ext4
mkdir -p /tests/hooks /run/extown-test
cp /tests/mount.ext4-hooks $HK
chown root:root $HK
chmod 4755 $HK
UOPTS=rw,noexec,nosuid,nodev,user
hook_arm() { rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; mkfifo "/run/extown-test/$1"; }
hook_wait() {
	for _ in $(seq 1 200); do
		[ -e "/run/extown-test/$1.here" ] && return 0
		sleep 0.1
	done
	return 1
}
hook_go() { echo go >"/run/extown-test/$1"; rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; }
hook_off() { rm -f "/run/extown-test/$1" "/run/extown-test/$1.here"; }
sb_mounted() { [ -e /proc/fs/ext4/vdb ]; } # the stick's superblock exists (mounted, attached or not)

# race: as in guest.sh, on the idmapped path: alice's umount of her mount
# lands before the hooked helper's mount of the same entry
unmount_all
as_alice mount /media/stick >/dev/null 2>&1
first=$(count_at /media/stick)
hook_arm before-mount
as_alice $HK /dev/vdb /media/stick -o $UOPTS >/tmp/race.out 2>&1 &
hp=$!
urc=""
if hook_wait before-mount; then
	as_alice umount /media/stick >/dev/null 2>&1
	urc=$?
	hook_go before-mount
else
	hook_off before-mount
fi
wait "$hp"
rc=$?
n=$(count_at /media/stick)
u=$(utab_has /media/stick)
record utab_race "alice: mount ($first); hooked helper held before its mount; alice: umount ($urc)" "$rc" "$(cat /tmp/race.out) ($n mounts, $u utab entries)"
if [ "$first" -eq 1 ] && [ "$urc" = 0 ] && [ "$rc" -eq 0 ] && [ "$n" -eq 1 ] && [ "$u" -eq 1 ] && idmapped_at /media/stick; then
	pass utab_race.one_entry_for_one_mount
else
	fail utab_race.one_entry_for_one_mount "first $first, umount '$urc', exit $rc, $n mounts, $u utab entries: $(oneline "$(cat /tmp/race.out)")"
fi
as_alice umount /media/stick >/dev/null 2>&1
mount -i -t ext4 /dev/vdb /media/stick
msg=$(as_alice umount /media/stick 2>&1)
rc=$?
record utab_race.root_mount "root: mount -i /dev/vdb /media/stick; alice: umount" "$rc" "$msg"
if [ "$rc" -ne 0 ] && [ "$(count_at /media/stick)" -eq 1 ]; then
	pass utab_race.root_mount_not_alices
else
	fail utab_race.root_mount_not_alices "alice's umount exit $rc, $(count_at /media/stick) mounts: $(oneline "$msg")"
fi
unmount_all

# the attach lock: held by someone else, a mount waits 10 s at most and
# fails as mount(8) does on its own lock ("locking failed", 16), nothing
# mounted; the filesystem is mounted (detached) before the lock is asked
# for, so a slow stick never holds it
rm -f /tmp/lock.out
$FB lock /run/mount/extown.lock 40 >/tmp/lock.out 2>&1 &
lp=$!
for _ in $(seq 1 50); do grep -q locked /tmp/lock.out 2>/dev/null && break; sleep 0.1; done
t0=$(date +%s)
as_alice mount /media/stick >/tmp/lockwait.out 2>&1 &
mp=$!
sleep 3
io=no
sb_mounted && io=yes
wait "$mp"
rc=$?
t1=$(date +%s)
n=$(count_at /media/stick)
kill "$lp" 2>/dev/null
wait "$lp" 2>/dev/null
msg=$(cat /tmp/lockwait.out)
record lock_bounded "extown.lock held 40 s by root; alice: mount /media/stick" "$rc" "$msg (after $((t1 - t0)) s; superblock mounted while waiting: $io; $n mounts)"
if [ "$rc" -eq 16 ] && [ $((t1 - t0)) -le 20 ] && [ "$n" -eq 0 ] && [ "$(utab_has /media/stick)" -eq 0 ]; then
	pass lock.bounded_wait_exit_16
else
	fail lock.bounded_wait_exit_16 "exit $rc after $((t1 - t0)) s, $n mounts: $(oneline "$msg")"
fi
case $msg in
*"locking failed"*) pass lock.says_locking_failed ;;
*) fail lock.says_locking_failed "$(oneline "$msg")" ;;
esac
if [ "$io" = yes ]; then
	pass lock.filesystem_mounted_before_lock
else
	fail lock.filesystem_mounted_before_lock "no ext4 superblock of vdb while the mount waited for the lock"
fi
unmount_all
# a short hold: the mount goes on once the lock is free
$FB lock /run/mount/extown.lock 3 >/tmp/lock.out 2>&1 &
lp=$!
for _ in $(seq 1 50); do grep -q locked /tmp/lock.out 2>/dev/null && break; sleep 0.1; done
msg=$(as_alice mount /media/stick 2>&1)
rc=$?
wait "$lp" 2>/dev/null
record lock_short "extown.lock held 3 s; alice: mount /media/stick" "$rc" "$msg"
if [ "$rc" -eq 0 ] && [ "$(count_at /media/stick)" -eq 1 ] && idmapped_at /media/stick; then
	pass lock.mounted_after_release
else
	fail lock.mounted_after_release "exit $rc, $(count_at /media/stick) mounts: $(oneline "$msg")"
fi
unmount_all

# what the lock does not cover: a plain mount(2) of the same device on the
# same mount point by another program (root's mount -i) between the
# helper's check and its move_mount(): the idmapped mount is stacked on
# it; each keeps its own utab entry (alice unmounts hers, not root's)
hook_arm before-attach
as_alice $HK /dev/vdb /media/stick -o $UOPTS >/tmp/plain.out 2>&1 &
hp=$!
prc=""
if hook_wait before-attach; then
	mount -i -t ext4 /dev/vdb /media/stick
	prc=$?
	hook_go before-attach
else
	hook_off before-attach
fi
wait "$hp"
rc=$?
n=$(count_at /media/stick)
record plain_mount_race "hooked helper held before move_mount; root: mount -i ($prc)" "$rc" "$(cat /tmp/plain.out) ($n mounts)"
if [ "$prc" = 0 ] && [ "$rc" -eq 0 ] && [ "$n" -eq 2 ] && idmapped_at /media/stick; then
	pass plain_mount_race.stacked_on_top
else
	fail plain_mount_race.stacked_on_top "mount -i '$prc', helper exit $rc, $n mounts, top '$(opts_at /media/stick)': $(oneline "$(cat /tmp/plain.out)")"
fi
m1=$(as_alice umount /media/stick 2>&1)
r1=$?
m2=$(as_alice umount /media/stick 2>&1)
r2=$?
if [ "$r1" -eq 0 ] && [ "$r2" -ne 0 ] && [ "$(count_at /media/stick)" -eq 1 ] && ! idmapped_at /media/stick; then
	pass plain_mount_race.alice_umounts_hers_only
else
	fail plain_mount_race.alice_umounts_hers_only "umount $r1 ($(oneline "$m1")), again $r2 ($(oneline "$m2")), $(count_at /media/stick) left"
fi
unmount_all

# utab cannot be written (a full tmpfs on /run/mount): the mount stays and
# the status and message are the plain path's (mount(8)'s: libmount 2.38
# "filesystem was mounted, but any subsequent operation failed", 32; the
# helper's user= record on 2.39+, "... failed to update userspace mount
# table", 16), never 0
full_run_mount() {
	mount -t tmpfs -o size=12k tmpfs /run/mount
	: >/run/mount/utab
	dd if=/dev/zero of=/run/mount/fill bs=4k count=16 2>/dev/null
}
full_run_mount
msgp=$(as_alice /usr/sbin/mount.ext4 /tmp/plain.img /media/img -o $UOPTS 2>&1)
rcp=$?
umount /run/mount
full_run_mount
msg=$(as_alice /usr/sbin/mount.ext4 /dev/vdb /media/stick -o $UOPTS 2>&1)
rc=$?
umount /run/mount
n=$(count_at /media/stick)
record utab_full "/run/mount full; alice: mount.ext4 /dev/vdb /media/stick (plain path, /media/img: exit $rcp, $(oneline "$msgp"))" "$rc" "$msg ($n mounts)"
if [ "$rc" -eq "$rcp" ] && { [ "$rc" -eq 16 ] || [ "$rc" -eq 32 ]; } && [ "$n" -eq 1 ]; then
	pass utab_full.status_as_plain_path
else
	fail utab_full.status_as_plain_path "exit $rc (plain path $rcp), $n mounts: $(oneline "$msg")"
fi
case $msg in
*"filesystem was mounted, but"*) pass utab_full.says_mounted_but ;;
*) fail utab_full.says_mounted_but "$(oneline "$msg")" ;;
esac
unmount_all
sync
