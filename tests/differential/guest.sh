#!/bin/sh
# shellcheck shell=dash
# In-guest half of tests/differential/run.sh (busybox VM, dash): every case
# of /tests/cases run twice by the real setuid util-linux mount(8), first
# with no mount.ext* helper installed ("nohelper"), then with the helper
# installed as it is on a real system ("helper": /usr/sbin/mount.ext4
# setuid root, mount.ext3 and mount.ext2 symlinks to it). The guest only
# records; run.sh on the host compares and judges.
#
#   guest.sh OUTDIR
#
# Disks: /dev/vdb ext4 "stick", tagged (faked udev database entry
# EXTOWN_REMOVABLE=1 with its UUID), /dev/vdc ext3 untagged,
# /dev/vdd ext2 tagged. Loop images are made here in /tmp. The same
# guest runs on the patched and on the unpatched kernel (where the helper
# takes its idmapped fallback); it does not need to know which.
#
# For every pass P and case C, OUTDIR/P/C/ holds:
#   before        output of the set-up step of the case (e.g. alice's mount)
#   rc, msg       exit status and output (stdout+stderr) of the command
#   mounts        mounts under /media after it, one per line:
#                 "MOUNTPOINT ROOT SOURCE FSTYPE PER-MOUNT-OPTS SUPER-OPTS"
#                 (from /proc/self/mountinfo)
#   owners        "MOUNTPOINT SOURCE UID:GID" per line of mounts: the owner
#                 root sees on the mount point (its topmost mount's root
#                 directory; the idmapped fallback shows no uid= in
#                 mountinfo, this shows the owner it gives)
#   utab          /run/mount/utab after it (the ID= field removed)
#   loops         bound loop devices: "loopN BACKING-FILE offset=N"
#   umount        "MOUNTPOINT STATUS MESSAGE" for every mount of "mounts",
#                 last first, unmounted by the case's caller (the second
#                 name of a caller "bob/alice": bob mounts, alice unmounts)
#   mounts_after, utab_after, loops_after   the same after those umounts
#   dirty         present when the reset before the case left something
# OUTDIR/argv/C/argv: the argv mount(8) gave a logging helper (pass 0,
#   only cases that have or are a same-as case; "[arg] " per argument).
# OUTDIR/info: kernel, mount(8) version, helper files, ext feature files.
# OUTDIR/results gets a FAIL line only when the set-up itself broke.
set -u

OUT=$1
RES=$OUT/results
: >"$RES"
TAB=$(printf '\t')
STICK_UUID=6a6b0e00-0000-4000-8000-000000000004

setup_fail() {
	echo "FAIL differential.guest_setup: $1" >>"$RES"
	exit 1
}

# --- set-up -----------------------------------------------------------------------
# shellcheck source=tests/lib/vmguest.sh
. /tests/vmguest.sh
chmod 4755 /usr/bin/mount /usr/bin/umount
for m in stick users owner group nouser usernouser nouseruser usersnousers exec devsuid \
	ro byuuid bylabel linked rootonly internal intusers ext2 loop loopplain imgnoloop bindtgt adhoc; do
	mkdir -p "/media/$m"
done
ln -s linked /media/link
setpriv --reuid=1000 --regid=1000 --init-groups ln -s /media/stick /home/alice/stick-link ||
	setup_fail "cannot make alice's symlink"
mkdir -p /run/mount
# the UUIDs are mkimages.sh's fixed ones
tag_removable vdb "$STICK_UUID"
tag_removable vdd 6a6b0e00-0000-4000-8000-000000000002
cat >/etc/fstab <<EOF
/dev/vdb /media/stick ext4 user,noauto 0 0
/dev/vdb /media/users ext4 users,noauto 0 0
/dev/vdb /media/owner ext4 owner,noauto 0 0
/dev/vdb /media/group ext4 group,noauto 0 0
/dev/vdb /media/nouser ext4 nouser,noauto 0 0
/dev/vdb /media/usernouser ext4 user,nouser,noauto 0 0
/dev/vdb /media/nouseruser ext4 nouser,user,noauto 0 0
/dev/vdb /media/usersnousers ext4 users,nousers,noauto 0 0
/dev/vdb /media/exec ext4 user,noauto,exec 0 0
/dev/vdb /media/devsuid ext4 users,noauto,exec,dev,suid 0 0
/dev/vdb /media/ro ext4 user,noauto,ro 0 0
UUID=$STICK_UUID /media/byuuid ext4 user,noauto 0 0
LABEL=extown-ext4 /media/bylabel ext4 user,noauto 0 0
/dev/vdb /media/link ext4 user,noauto 0 0
/dev/vdb /media/rootonly ext4 noauto 0 0
/dev/vdc /media/internal ext3 user,noauto 0 0
/dev/vdc /media/intusers ext3 users,noauto,dev,suid 0 0
/dev/vdd /media/ext2 ext2 user,noauto 0 0
/tmp/combo.img /media/loop ext4 user,noauto,loop,offset=8388608 0 0
/tmp/plain.img /media/loopplain ext4 user,noauto,loop 0 0
/tmp/plain2.img /media/imgnoloop ext4 user,noauto 0 0
EOF
# two filesystems in one file: the fstab "loop,offset=" entry means the second
truncate -s 16M /tmp/combo.img
mke2fs -q -F -t ext4 /tmp/combo.img 8M || setup_fail "mke2fs combo.img"
mke2fs -q -F -t ext4 -E offset=8388608 /tmp/combo.img 8M || setup_fail "mke2fs combo.img offset"
truncate -s 8M /tmp/plain.img
mke2fs -q -F -t ext4 /tmp/plain.img || setup_fail "mke2fs plain.img"
# a regular file in a "user" entry without "loop": libmount sets up the
# loop device itself
truncate -s 8M /tmp/plain2.img
mke2fs -q -F -t ext4 /tmp/plain2.img || setup_fail "mke2fs plain2.img"
chmod 0644 /tmp/combo.img /tmp/plain.img /tmp/plain2.img
vdb_mode=$(stat -c %a /dev/vdb)
[ -f /tests/cases ] || setup_fail "no /tests/cases"
[ -f /tests/mount.ext4 ] || setup_fail "no /tests/mount.ext4"
# the table: comments and blank lines out, fields trimmed, tab-separated
awk -F'|' -v OFS='\t' '/^[[:space:]]*(#|$)/ { next }
	{ for (i = 1; i <= NF; i++) { gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i) } print }' \
	/tests/cases >/tmp/cases.tsv

# --- what the guest records (shell builtins where it can: TCG forks are slow) ----
set -f
NL='
'
# "MOUNTPOINT ROOT SOURCE FSTYPE PER-MOUNT-OPTS SUPER-OPTS" for mounts under /media
media_mounts() {
	while read -r _id _parent _majmin root mp per rest; do
		case $mp in /media/*) ;; *) continue ;; esac
		# shellcheck disable=SC2086 # split on purpose: optional fields, "-", type, source, options
		set -- $rest
		while [ $# -gt 0 ] && [ "$1" != - ]; do shift; done
		echo "$mp $root $3 $2 $per $4"
	done </proc/self/mountinfo
}
# "MOUNTPOINT SOURCE UID:GID" for mounts under /media: the owner of what is
# seen at the mount point (stat as root; a stacked mount hides the one below)
media_owners() {
	while read -r _id _parent _majmin _root mp _per rest; do
		case $mp in /media/*) ;; *) continue ;; esac
		# shellcheck disable=SC2086 # split on purpose, as in media_mounts
		set -- $rest
		while [ $# -gt 0 ] && [ "$1" != - ]; do shift; done
		echo "$mp $3 $(stat -c %u:%g "$mp" 2>&1)"
	done </proc/self/mountinfo
}
# mount points under /media, last mounted first
media_mps_reversed() {
	rev=""
	while read -r _id _parent _majmin _root mp _rest; do
		case $mp in /media/*) rev="$mp $rev" ;; esac
	done </proc/self/mountinfo
	echo "$rev"
}
utab() {
	[ -f /run/mount/utab ] || return 0
	while read -r line; do echo "${line#ID=* }"; done </run/mount/utab
}
loops() {
	set +f
	for l in /sys/block/loop*; do
		[ -r "$l/loop/backing_file" ] || continue
		read -r b <"$l/loop/backing_file"
		read -r o <"$l/loop/offset"
		[ -n "$b" ] && echo "${l##*/} $b offset=$o"
	done
	set -f
}
as_caller() { # CALLER CMD...
	c=$1
	shift
	case $c in
	root) "$@" ;;
	alice) setpriv --reuid=1000 --regid=1000 --init-groups "$@" ;;
	bob) setpriv --reuid=1001 --regid=1001 --init-groups "$@" ;;
	*) echo "guest.sh: unknown caller $c" ;;
	esac
}

devnode_changed=""
reset() {
	for mp in $(media_mps_reversed); do
		umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || busybox umount -l "$mp"
	done
	set +f
	for l in /sys/block/loop*; do
		[ -r "$l/loop/backing_file" ] && busybox losetup -d "/dev/${l##*/}" 2>/dev/null
	done
	set -f
	for f in /run/mount/utab /run/mount/utab.lock /etc/extown.conf; do
		[ ! -e "$f" ] || rm -f "$f"
	done
	if [ -n "$devnode_changed" ]; then
		chown root:root /dev/vdb
		chmod "$vdb_mode" /dev/vdb
		devnode_changed=""
	fi
}

set_policy() { # NAME; root writes it: owner root, 0644 (0600 for *0600)
	[ "$1" != none ] || return 0
	case $1 in *0600) umask 077 ;; esac
	case $1 in
	yes | yes0600) printf 'enabled = yes\n' ;;
	no | no0600) printf 'enabled = no\n' ;;
	malformed) printf 'enabled = yes\nbogus\n' ;;
	defowner) printf 'default-owner = alice\n' ;;
	defownerbob) printf 'default-owner = bob\n' ;;
	denyuuid) printf 'deny-uuid = %s\n' "$STICK_UUID" ;;
	allowgroup) printf 'allow-group = bob\n' ;;
	*) echo "guest.sh: unknown policy $1" >&2 ;;
	esac >/etc/extown.conf
	umask 022
}

before() {
	case $1 in
	-) ;;
	usermount:*) as_caller alice mount "${1#usermount:}" ;;
	bobmount:*) as_caller bob mount "${1#bobmount:}" ;;
	rootmount:*) mount "${1#rootmount:}" ;;
	devowner)
		devnode_changed=1
		chown alice /dev/vdb
		;;
	devgroup)
		devnode_changed=1
		chgrp alice /dev/vdb
		chmod 0660 /dev/vdb
		;;
	*) echo "guest.sh: unknown set-up step $1" ;;
	esac
}

run_case() { # PASS NAME CALLER[/UMOUNTER] POLICY BEFORE CMD
	d=$OUT/$1/$2
	caller=${3%%/*} umounter=${3#*/}
	mkdir -p "$d"
	reset
	dirty=$(media_mounts; loops)
	[ -z "$dirty" ] || echo "$dirty" >"$d/dirty"
	set_policy "$4"
	before "$5" >"$d/before" 2>&1
	echo "status $?" >>"$d/before"
	# the command is split at blanks (the table uses no quoting)
	# shellcheck disable=SC2086
	msg=$(cd /tmp && as_caller "$caller" $6 2>&1)
	echo $? >"$d/rc"
	printf '%s\n' "$msg" >"$d/msg"
	media_mounts >"$d/mounts"
	media_owners >"$d/owners"
	utab >"$d/utab"
	loops >"$d/loops"
	: >"$d/umount"
	for mp in $(media_mps_reversed); do
		m=$(as_caller "$umounter" umount "$mp" 2>&1)
		echo "$mp $? ${m%%"$NL"*}" >>"$d/umount"
	done
	media_mounts >"$d/mounts_after"
	utab >"$d/utab_after"
	loops >"$d/loops_after"
}

run_pass() { # PASS
	while IFS=$TAB read -r name caller policy bef _owner _same cmd; do
		run_case "$1" "$name" "$caller" "$policy" "$bef" "$cmd"
	done </tmp/cases.tsv
	reset
}

# --- pass 0: the argv mount(8) gives a helper ---------------------------------------
# (a logging helper that mounts nothing), for the cases that have a same-as
# case and for those same-as cases
# shellcheck disable=SC2016 # the helper script expands them
printf '%s\n' '#!/bin/sh' \
	'{ for a in "$0" "$@"; do printf "[%s] " "$a"; done; echo; } >>/tmp/helper-argv' \
	'exit 32' >/usr/sbin/mount.ext4
chmod 0755 /usr/sbin/mount.ext4
ln -s mount.ext4 /usr/sbin/mount.ext3
ln -s mount.ext4 /usr/sbin/mount.ext2
# ("unpatched:CASE" and "k13" are no same-as of this kind: run.sh uses them
# without argv)
argv_cases=" $(awk -F'\t' '$6 != "-" && $6 != "k13" && $6 !~ /:/ { print $1; print $6 }' /tmp/cases.tsv | tr '\n' ' ') "
while IFS=$TAB read -r name caller policy bef _owner _same cmd; do
	case $argv_cases in *" $name "*) ;; *) continue ;; esac
	reset
	set_policy "$policy"
	before "$bef" >/dev/null 2>&1
	: >/tmp/helper-argv
	chmod 0666 /tmp/helper-argv
	# shellcheck disable=SC2086
	(cd /tmp && as_caller "${caller%%/*}" $cmd) >/dev/null 2>&1
	mkdir -p "$OUT/argv/$name"
	cp /tmp/helper-argv "$OUT/argv/$name/argv"
done </tmp/cases.tsv
reset

# --- pass 1: mount(8) alone ---------------------------------------------------------
rm -f /usr/sbin/mount.ext4 /usr/sbin/mount.ext3 /usr/sbin/mount.ext2
if ls /sbin/mount.ext* /sbin/fs.d/mount.ext* /sbin/fs/mount.ext* >/dev/null 2>&1; then
	setup_fail "a mount.ext* helper is present for the no-helper pass"
fi
t0=$(cut -d. -f1 /proc/uptime)
run_pass nohelper
t1=$(cut -d. -f1 /proc/uptime)

# --- pass 2: the helper installed -----------------------------------------------------
install_helper
run_pass helper
t2=$(cut -d. -f1 /proc/uptime)

{
	uname -a
	mount --version
	ls -l /sbin/mount.ext4 /sbin/mount.ext3 /sbin/mount.ext2
	echo "ext4 features: $(find /sys/fs/ext4/features -type f 2>&1 | tr '\n' ' ')"
	echo "ext2 features: $(find /sys/fs/ext2/features -type f 2>&1 | tr '\n' ' ')"
	echo "pass seconds: nohelper $((t1 - t0)), helper $((t2 - t1))"
} >"$OUT/info" 2>&1
echo finished >"$OUT/passes-done"
