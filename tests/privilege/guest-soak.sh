#!/bin/sh
# shellcheck shell=dash
# In-guest half of the soak runs of tests/privilege/run.sh (busybox VM,
# dash): four users and root run mount(8), umount(8), `mount -f`, remounts
# and direct calls of the setuid helper at once on four ext4 sticks for
# SECONDS seconds (or OPS operations per worker, whichever comes first),
# while a killer sends SIGKILL to random running helpers; then the state
# is checked. Names privilege.soak.KIND.* (KIND: patched, or fallback on a
# kernel without uid=/gid=, where the tagged sticks get idmapped mounts).
#
#   guest-soak.sh OUTDIR [SECONDS [OPS]]     (from extown.args: SECONDS,OPS)
#
# The second worker's direct calls (libmount 2.38) run the helper built
# with the test hooks (/tests/mount.ext4-hooks): it waits before its mount
# until a releaser lets it go 0.2-0.9 s later, a window in which the first
# worker's operations on that mount point land (tests/privilege/run.sh builds it with
# EXTOWN_SOAK_BREAK's patch too).
#
# Disks /dev/vdb../dev/vde: ext4, root directory 1234:1234; vdb and vdc
# tagged removable (the helper adds the user's owner), vdd and vde not.
# /etc/fstab: /dev/vdX /media/USER/sN ext4 user,noauto for alice, bob,
# carol and dave (1000-1003) and each stick N; root mounts on
# /media/root/sN. Workers: each user picks at random (half of the time on
# stick 3, untagged, so that operations meet there): mount MP, umount
# MP, mount -f MP, the helper directly with mount(8)'s argv, mount -o
# remount,ro MP; with libmount 2.38, which mounts a device once per mount
# point, a second worker per user races the first with direct calls on
# stick 3 (no mount(8) mount, no umount: util-linux's
# mount(8) writes the entry itself after a helper when it finds none, so
# a umount that lands between the helper's exit and that check leaves
# mount(8)'s entry behind, without the helper; and umount(8) removes the
# last entry of the target, not the one of the mount it unmounts, which
# with 2.39+'s stacked mounts of one user mismatches entries and mounts
# when two of that user's operations interleave: one worker per user
# there). Root: mount, umount, remount ro/rw, the helper directly,
# mount -f, on its own mount points of sticks 1, 2 and 4. The killer: every 1-4 s, kill -9
# of a random running mount.ext4, its mount point recorded.
#
# Afterwards (libmount's merge of utab into mountinfo, done in awk as
# libmount 2.38 and 2.41 do it: an entry with an ID goes to that mount, one
# without to the topmost mount of its source, target and root that no
# entry took yet):
#   .utab_entries_live_and_own   every utab entry with user=NAME belongs to
#                                a live mount on one of NAME's mount points
#   .user_mounts_have_entry      every user mount (noexec, on a user's
#                                mount point) has its user= entry; a mount
#                                point where a helper was killed may hold
#                                a mount without one (counted, not failed:
#                                a SIGKILL between mount and utab leaves
#                                that for mount(8) as well)
#   .no_device_stacked           (2.38) no mount point holds two mounts
#                                (but an idmapped one on a plain one: a
#                                plain mount(2) racing the fallback's
#                                attach, docs/threat-model.md)
#   .no_lock_held                utab.lock and extown.lock free
#   .users_umount_all            every user unmounts all their mounts
#   .e2fsck_clean.vdX            e2fsck -fn of every stick, unmounted
# OUTDIR/counts: operations and outcomes (exit statuses) per kind, kills,
# tolerated mounts without entry; OUTDIR/state: mountinfo and utab at the
# end.
set -u

OUT=$1
SECS=${2:-60}
OPS=${3:-1000}
RES=$OUT/results
: >"$RES"
if [ -e /sys/fs/ext4/features/uid_gid_override ]; then KIND=patched; else KIND=fallback; fi
T_RESULTS=$RES T_PREFIX=privilege.soak.$KIND.
# shellcheck source=tests/lib/results.sh
. /tests/results.sh
# shellcheck source=tests/lib/vmguest.sh
. /tests/vmguest.sh
H=/usr/sbin/mount.ext4
# the helper built with the test hooks (tests/privilege/run.sh): the
# second worker's direct call waits before its mount until the releaser
# lets it go, 0.2-0.9 s later, so that the first worker's operations on
# the same mount point land inside that window
HK=/tests/hooks/mount.ext4
FB=/tests/fbtool
USERS="alice:1000 bob:1001 carol:1002 dave:1003"
DEVS=${EXTOWN_SOAK_DEVS:-vdb vdc vdd vde}  # names under /dev (a dry run on loop devices sets it)
UOPTS=rw,noexec,nosuid,nodev,user

dev_of() { echo "$DEVS" | cut -d' ' -f"$1"; }
install_helper
mkdir -p /tests/hooks /run/extown-test
cp /tests/mount.ext4-hooks $HK
chown root:root $HK
chmod 4755 $HK
rm -f /run/extown-test/before-mount /run/extown-test/before-mount.here /tmp/soak-done
mkfifo /run/extown-test/before-mount
echo 'carol:x:1002:1002::/tmp:/bin/sh' >>/etc/passwd
echo 'dave:x:1003:1003::/tmp:/bin/sh' >>/etc/passwd
echo 'carol:x:1002:' >>/etc/group
echo 'dave:x:1003:' >>/etc/group
tag_removable "$(dev_of 1)"
tag_removable "$(dev_of 2)"
: >/etc/fstab
for u in $USERS root:0; do
	name=${u%%:*}
	n=1
	for d in $DEVS; do
		mkdir -p "/media/$name/s$n"
		[ "$name" = root ] || echo "/dev/$d /media/$name/s$n ext4 user,noauto 0 0" >>/etc/fstab
		n=$((n + 1))
	done
done
stacks=no
case $(mount -V) in *fd-based-mount*) stacks=yes ;; esac
per_user=2
[ "$stacks" = no ] || per_user=1

rnd() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
count_at() { awk -v t="$1" '$5 == t { n++ } END { print n + 0 }' /proc/self/mountinfo; }
as_uid() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }

# worker NAME UID TAG: random operations until the time or the count is up;
# one line "OP STATUS TIME MOUNTPOINT: MESSAGE" per operation in $OUT/ops.TAG
worker() {
	name=$1 uid=$2 log=$OUT/ops.$3
	: >"$log"
	end=$(($(date +%s) + SECS))
	i=0
	while [ "$i" -lt "$OPS" ] && [ "$(date +%s)" -lt "$end" ]; do
		r=$(rnd)
		# a user's: half of them on stick 3 (untagged: the plain path on
		# either kernel), where they meet most; root's on the other three
		# (its remounts would make stick 3's filesystem read-only under
		# the users' mounts)
		s=$((r % 8 + 1))
		[ "$s" -le 4 ] || s=3
		[ "$name" != root ] || [ "$s" -ne 3 ] || s=4
		d=/dev/$(dev_of "$s")
		if [ "$name" = root ]; then
			mp=/media/root/s$s
			case $(((r / 4) % 6)) in
			0) op=mount; msg=$(mount "$d" "$mp" 2>&1) ;;
			1) op=umount; msg=$(umount "$mp" 2>&1) ;;
			2) op=remount_ro; msg=$(mount -o remount,ro "$mp" 2>&1) ;;
			3) op=remount_rw; msg=$(mount -o remount,rw "$mp" 2>&1) ;;
			4) op=direct; msg=$($H "$d" "$mp" -o rw 2>&1) ;;
			*) op=fake; msg=$(mount -f "$d" "$mp" 2>&1) ;;
			esac
		else
			mp=/media/$name/s$s
			k=$(((r / 4) % 5))
			# the second worker of a user: direct calls on stick 3 only,
			# racing the first one's mounts and umounts there
			helper=$H
			if [ "$3" != "$name.1" ]; then
				k=3 s=3 helper=$HK
				d=/dev/$(dev_of 3) mp=/media/$name/s3
			fi
			case $k in
			0) op=mount; msg=$(as_uid "$uid" mount "$mp" 2>&1) ;;
			1) op=umount; msg=$(as_uid "$uid" umount "$mp" 2>&1) ;;
			2) op=fake; msg=$(as_uid "$uid" mount -f "$mp" 2>&1) ;;
			3) op=direct; msg=$(as_uid "$uid" "$helper" "$d" "$mp" -o $UOPTS 2>&1) ;;
			*) op=remount; msg=$(as_uid "$uid" mount -o remount,ro "$mp" 2>&1) ;;
			esac
		fi
		# OP STATUS TIME MOUNTPOINT: the first line of what it said
		echo "$op $? $(date +%s) $mp: $(echo "$msg" | grep -v 'idmapped mount instead' | head -n 1)" >>"$log"
		i=$((i + 1))
	done
}

# killer: kill -9 of a random running helper (not a hooked one) until the
# time is up; one line
# "kill MOUNTPOINT" per helper killed in $OUT/kills
killer() {
	: >"$OUT/kills"
	end=$(($(date +%s) + SECS))
	while [ "$(date +%s)" -lt "$end" ]; do
		sleep "$(($(rnd) % 3 + 1)).$(($(rnd) % 10))"
		pids=""
		for p in /proc/[0-9]*; do
			c=""
			{ read -r c <"$p/comm"; } 2>/dev/null
			# not the hooked ones: held for up to 0.9 s they would draw
			# most of the kills
			[ "$c" = mount.ext4 ] && [ "$(readlink "$p/exe" 2>/dev/null)" != $HK ] &&
				pids="$pids ${p#/proc/}"
		done
		[ -n "$pids" ] || continue
		# shellcheck disable=SC2086 # one word per pid
		set -- $pids
		shift $(($(rnd) % $#))
		mp=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed -n 3p)
		kill -9 "$1" 2>/dev/null && echo "kill $mp" >>"$OUT/kills"
	done
}

# releaser: lets the hooked helpers waiting before their mount go, each
# after 0.2-0.9 s, until the workers are done
releaser() {
	while [ ! -e /tmp/soak-done ]; do
		if [ -e /run/extown-test/before-mount.here ]; then
			rm -f /run/extown-test/before-mount.here
			sleep "0.$(($(rnd) % 8 + 2))"
			timeout 5 sh -c 'echo go >/run/extown-test/before-mount' 2>/dev/null
		else
			sleep 0.05
		fi
	done
}

start=$(date +%s)
releaser &
rp=$!
pids=""
for u in $USERS; do
	k=1
	while [ "$k" -le "$per_user" ]; do
		worker "${u%%:*}" "${u#*:}" "${u%%:*}.$k" &
		pids="$pids $!"
		k=$((k + 1))
	done
done
worker root 0 root.1 &
pids="$pids $!"
killer &
pids="$pids $!"
for p in $pids; do wait "$p"; done
took=$(($(date +%s) - start))
touch /tmp/soak-done
wait "$rp"
rm -f /run/extown-test/before-mount

# the state: mountinfo lines of our sticks, "ID ROOT TARGET OPTS SOURCE"
# (the mount point unescaped as utab has it: no blanks in ours)
awk -v devs=" $DEVS " '{ for (i = 7; i <= NF && $i != "-"; i++) ;
	if (index(devs, " " substr($(i + 2), 6) " ") && $(i + 2) ~ /^\/dev\//) print $1, $4, $5, $6, $(i + 2) }' \
	/proc/self/mountinfo >"$OUT/mounts"
cp /run/mount/utab "$OUT/utab" 2>/dev/null || : >"$OUT/utab"
{
	echo "mounts (ID ROOT TARGET OPTS SOURCE):"
	cat "$OUT/mounts"
	echo "utab:"
	cat "$OUT/utab"
} >"$OUT/state"

# libmount's merge; then every problem on a line of its own:
#   stale ENTRY         a user= entry that no live mount takes
#   foreign ENTRY MOUNT a user= entry on a mount that is not on the user's mount points
#   noentry TARGET ID   a user mount without its user= entry
#   stacked TARGET      (2.38) two mounts on one mount point
# IDs count only where libmount reads them (2.39+: stacks=yes)
awk -v ids="$stacks" -v killed="$(awk '{ print $2 }' "$OUT/kills" | sort -u | tr '\n' ' ')" '
function field(line, key,   n, a, i) {
	n = split(line, a, " ")
	for (i = 1; i <= n; i++) if (index(a[i], key) == 1) return substr(a[i], length(key) + 1)
	return ""
}
FNR == NR { m++; mid[m] = $1; mroot[m] = $2; mtgt[m] = $3; mopts[m] = $4; msrc[m] = $5; next }
{
	id = ids == "yes" ? field($0, "ID=") + 0 : 0
	src = field($0, "SRC="); tgt = field($0, "TARGET="); root = field($0, "ROOT=")
	opts = field($0, "OPTS="); user = ""
	n = split(opts, o, ",")
	for (i = 1; i <= n; i++) if (o[i] ~ /^user=/) user = substr(o[i], 6)
	got = 0
	for (k = m; k >= 1; k--) {
		if (merged[k]) continue
		if (id > 0) { if (mid[k] == id) { got = k; break } continue }
		if (mroot[k] == root && mtgt[k] == tgt && msrc[k] == src) { got = k; break }
	}
	if (got) { merged[got] = 1; muser[got] = user }
	if (user == "") next
	if (!got) { print "stale " $0; next }
	if (index(mtgt[got], "/media/" user "/") != 1) print "foreign " $0 " ON " mtgt[got]
}
END {
	for (k = 1; k <= m; k++) {
		if (mtgt[k] !~ /^\/media\/(alice|bob|carol|dave)\// || mopts[k] !~ /(^|,)noexec(,|$)/) continue
		if (muser[k] != "") continue
		if (index(" " killed " ", " " mtgt[k] " ")) print "tolerated " mtgt[k] " " mid[k]
		else print "noentry " mtgt[k] " " mid[k]
	}
	if (ids != "yes")
		for (k = 1; k <= m; k++) {
			kind = mopts[k] ~ /(^|,)idmapped(,|$)/ ? "idmapped" : "plain"
			c[mtgt[k] " " kind]++
			if (c[mtgt[k] " " kind] == 2) print "stacked " mtgt[k] " " kind
		}
}' "$OUT/mounts" "$OUT/utab" >"$OUT/problems"

# the first three of a list of problems, on one line ("" for none)
first3() { [ -z "$1" ] || echo "$1" | head -n 3 | tr '\n' ';'; }
bad=$(grep -E '^(stale|foreign) ' "$OUT/problems")
check_none utab_entries_live_and_own "$(first3 "$bad")"
bad=$(grep '^noentry ' "$OUT/problems")
check_none user_mounts_have_entry "$(first3 "$bad")"
if [ "$stacks" = no ]; then
	bad=$(grep '^stacked ' "$OUT/problems")
	check_none no_device_stacked "$(first3 "$bad")"
else
	skip no_device_stacked "libmount 2.39+ stacks a second mount on a mount point, as mount(8) alone does"
fi
held=""
for l in /run/mount/utab.lock /run/mount/extown.lock; do
	[ -e "$l" ] || continue
	$FB trylock "$l" >/dev/null 2>&1 || held="$held $l"
done
check_none no_lock_held "$held"

# every user unmounts what is theirs (a mount left by a killed helper
# without its entry is root's to unmount)
left=""
for u in $USERS; do
	name=${u%%:*}
	n=1
	while [ "$n" -le 4 ]; do
		mp=/media/$name/s$n
		while [ "$(count_at "$mp")" -gt 0 ]; do
			as_uid "${u#*:}" umount "$mp" >/dev/null 2>&1 || break
		done
		if [ "$(count_at "$mp")" -gt 0 ] &&
			! grep -q "^tolerated $mp " "$OUT/problems"; then
			left="$left $mp"
		fi
		n=$((n + 1))
	done
done
check_none users_umount_all "$left"
for _ in 1 2 3 4 5 6 7 8; do
	m=$(awk '{ print $3 }' "$OUT/mounts"; awk '$5 ~ /^\/media\// { print $5 }' /proc/self/mountinfo)
	for t in $m; do umount "$t" 2>/dev/null; done
done
for d in $DEVS; do
	msg=$(e2fsck -fn "/dev/$d" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "e2fsck_clean.$d"
	else
		fail "e2fsck_clean.$d" "e2fsck -fn exit $rc: $(echo "$msg" | grep -v '^e2fsck\|^Pass' | head -n 2 | tr '\n' ' ')"
	fi
done

{
	echo "soak ($KIND, $(mount -V | head -n 1)): $took s, $per_user worker(s) per user"
	echo "operations: $(cat "$OUT"/ops.* | wc -l)"
	cat "$OUT"/ops.* | awk '{ n[$1]++ } END { for (k in n) print "  " k ": " n[k] }' | sort
	echo "outcomes (operation, exit status):"
	cat "$OUT"/ops.* | awk '{ n[$1 " exit " $2]++ } END { for (k in n) print "  " k ": " n[k] }' | sort
	echo "helpers killed: $(wc -l <"$OUT/kills")"
	echo "mounts without entry after a kill (tolerated): $(grep -c '^tolerated ' "$OUT/problems")"
	echo "problems: $(grep -vc '^tolerated ' "$OUT/problems")"
} >"$OUT/counts"
cat "$OUT/counts"
sync
