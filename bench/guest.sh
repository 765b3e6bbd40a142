#!/bin/sh
# shellcheck shell=dash
# Guest side of bench/run.sh: runs in the busybox VM of tools/vm on the
# patched kernel and times every workload on every mount configuration.
#
#   guest.sh OUTDIR FILES CREATE MIB REPS MOUNTS CONFIGS
#
# /dev/vdb is the benchmark image made by bench/run.sh: /tree holds FILES
# empty files (1000 per leaf directory) and /w is a 1777 scratch
# directory, everything owned 1234:1234 on disk. CONFIGS is a '+'-separated
# list of plain, uid, split, bindfs, idmap, fallback (mount_cfg below says what each
# is). /tests/benchtool does the timed work as uid 1000:1000 (so that the
# idmapped mount, which maps only 1234<->1000, lets it create files).
#
# For rep in 1..REPS, for each config (interleaved so that drift spreads
# over all configs; the order rotates by one config per rep, see rotated):
#   mount; drop caches; walk_cold; walk_warm (the same walk again);
#   create (CREATE files of 100 bytes in a new directory + fsync of it;
#   removed afterwards, untimed); write (MIB MiB + fsync);
#   unmount, mount again, drop caches; read (the file just written; removed
#   afterwards); unmount.
# Then MOUNTS times, alternating: `mount -t ext4 /dev/vdb /mnt/b` through
# /usr/sbin/mount.ext4 (the helper, no udev database, no policy file) and
# `mount -i -t ext4` (no helper), each timed by benchtool timeexec, with an
# untimed umount after each.
#
# Writes OUTDIR/raw.txt ("CONFIG WORKLOAD REP SECONDS" lines),
# OUTDIR/detail.txt (benchtool's full output lines), OUTDIR/env.txt (kernel,
# cpus, memory, tool versions) and OUTDIR/results (PASS/FAIL lines of the
# sanity checks: each mount presents the owner it should, the helper ran).
set -u
OUT=$1
FILES=${2:-100000}
CREATE=${3:-20000}
MIB=${4:-512}
REPS=${5:-5}
MOUNTS=${6:-200}
CONFIGS=$(echo "${7:-plain+uid+split+bindfs+idmap+fallback}" | tr '+' ' ')
DEV=/dev/vdb
BT=/tests/benchtool
AS=1000:1000
# bench/run.sh puts bindfs (and libfuse2) in /tests/ with --file.
BINDFS=/tests/bindfs
[ -x "$BINDFS" ] || BINDFS=bindfs
RAW=$OUT/raw.txt
RES=$OUT/results
: >"$RAW"
: >"$RES"
: >"$OUT/detail.txt"

T_RESULTS=$RES
# shellcheck source=tests/lib/results.sh
. /tests/results.sh
note() { echo "bench-guest: $*"; }

mkdir -p /mnt/base /mnt/b
{
	echo "kernel $(uname -r)"
	echo "cpus $(grep -c ^processor /proc/cpuinfo)"
	echo "memory_kb $(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
	echo "bindfs $("$BINDFS" --version 2>&1 | head -n 1)"
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
	echo "params files=$FILES create=$CREATE mib=$MIB reps=$REPS mounts=$MOUNTS configs=$CONFIGS"
} >"$OUT/env.txt"

# Expected owner of the tree as the benchmark user sees it.
expect_owner() {
	case $1 in
	plain) echo 1234:1234 ;;
	*) echo 1000:1000 ;;
	esac
}

mount_cfg() { # CONFIG: the mount under test ends up on /mnt/b
	case $1 in
	plain) mount -i -t ext4 "$DEV" /mnt/b ;;
	uid) mount -i -t ext4 -o uid=1000,gid=1000 "$DEV" /mnt/b ;;
	split) mount -i -t ext4 -o uid=1000:2000,gid=1000:2000 "$DEV" /mnt/b ;;
	bindfs)
		mount -i -t ext4 "$DEV" /mnt/base &&
			"$BINDFS" --force-user=1000 --force-group=1000 /mnt/base /mnt/b
		;;
	idmap)
		mount -i -t ext4 "$DEV" /mnt/base &&
			"$BT" idmap /mnt/base /mnt/b 1234 1000
		;;
	fallback)
		# the helper's idmapped-mount fallback, as on a kernel without
		# uid=: the feature file hidden under an empty directory
		local rc=0
		mkdir -p /mnt/nofeatures
		mount -o bind /mnt/nofeatures /sys/fs/ext4/features || return 1
		/tests/mount.ext4 "$DEV" /mnt/b -o uid=1000,gid=1000 2>>"$OUT/fallback.txt" || rc=$?
		umount /sys/fs/ext4/features
		grep -q ' /mnt/b .*idmapped' /proc/mounts || {
			echo "fallback: /mnt/b is not an idmapped mount" >&2
			return 1
		}
		return "$rc"
		;;
	*)
		echo "unknown config $1" >&2
		return 1
		;;
	esac
}

umount_retry() { # DIR: a FUSE daemon may still hold the lower mount briefly
	local i=0
	while ! umount "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -ge 100 ]; then
			umount "$1"
			return
		fi
		sleep 0.1
	done
}

umount_cfg() {
	umount_retry /mnt/b
	if grep -q " /mnt/base " /proc/mounts; then umount_retry /mnt/base; fi
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# measure CONFIG WORKLOAD REP CMD...: runs CMD (a benchtool command), keeps
# its "seconds=" figure.
measure() {
	local cfg=$1 wl=$2 rep=$3 out secs
	shift 3
	sync
	if ! out=$("$@" 2>"$OUT/err"); then
		fail "bench.$cfg.$wl.$rep" "$* failed: $(cat "$OUT/err")"
		return 1
	fi
	secs=${out#seconds=}
	secs=${secs%% *}
	echo "$cfg $wl $rep $secs" >>"$RAW"
	echo "$cfg $wl $rep $out" >>"$OUT/detail.txt"
	LAST=$out
}

check_owner() { # CONFIG REP: what the first walk saw
	local want got
	want=$(expect_owner "$1")
	got=$(echo "$LAST" | sed -n 's/.* uid=\([0-9-]*\) gid=\([0-9-]*\).*/\1:\2/p')
	if [ "$got" = "$want" ]; then
		[ "$2" = 1 ] && pass "bench.$1.presented_owner"
	else
		fail "bench.$1.presented_owner" "rep $2: walk saw $got, expected $want"
	fi
	case $LAST in
	*" entries=$((FILES + FILES / 1000 + (FILES + 9999) / 10000)) "*) ;;
	*) fail "bench.$1.walk_entries.$2" "walk saw: $LAST (files=$FILES)" ;;
	esac
}

# Config order of repetition REP: CONFIGS rotated left by REP-1, so that
# with as many reps as configs each config runs once in every position.
rotated() {
	local n=0 k c head='' tail=''
	for c in $CONFIGS; do n=$((n + 1)); done
	k=$((($1 - 1) % n))
	n=0
	for c in $CONFIGS; do
		if [ "$n" -lt "$k" ]; then tail="$tail $c"; else head="$head $c"; fi
		n=$((n + 1))
	done
	echo "${head# }$tail"
}

rep=1
while [ "$rep" -le "$REPS" ]; do
	echo "rep $rep order $(rotated "$rep")" >>"$OUT/env.txt"
	for cfg in $(rotated "$rep"); do
		note "rep $rep config $cfg"
		if ! mount_cfg "$cfg" 2>"$OUT/err"; then
			fail "bench.$cfg.mount.$rep" "$(cat "$OUT/err")"
			umount_cfg 2>/dev/null
			continue
		fi
		drop_caches
		LAST=''
		measure "$cfg" walk_cold "$rep" "$BT" -u "$AS" walk /mnt/b/tree && check_owner "$cfg" "$rep"
		measure "$cfg" walk_warm "$rep" "$BT" -u "$AS" walk /mnt/b/tree
		measure "$cfg" create "$rep" "$BT" -u "$AS" create "/mnt/b/w/c.$cfg.$rep" "$CREATE"
		rm -rf "/mnt/b/w/c.$cfg.$rep"
		measure "$cfg" write "$rep" "$BT" -u "$AS" write "/mnt/b/w/big.$cfg" "$MIB"
		umount_cfg
		if ! mount_cfg "$cfg" 2>"$OUT/err"; then
			fail "bench.$cfg.remount.$rep" "$(cat "$OUT/err")"
			umount_cfg 2>/dev/null
			continue
		fi
		drop_caches
		measure "$cfg" read "$rep" "$BT" -u "$AS" read "/mnt/b/w/big.$cfg"
		rm -f "/mnt/b/w/big.$cfg"
		umount_cfg
	done
	rep=$((rep + 1))
done

# --- mount helper latency ---------------------------------------------
if [ "$MOUNTS" -gt 0 ] && [ -f /tests/mount.ext4 ]; then
	cp /tests/mount.ext4 /usr/sbin/mount.ext4
	chown root:root /usr/sbin/mount.ext4
	chmod 4755 /usr/sbin/mount.ext4
	# The helper really runs for `mount -t ext4` (it says so with -v).
	if mount -v -t ext4 "$DEV" /mnt/b 2>"$OUT/helper-v.txt" >>"$OUT/helper-v.txt" &&
		grep -q '^mount.ext4: mounting' "$OUT/helper-v.txt"; then
		pass bench.helper.runs
	else
		fail bench.helper.runs "mount -v -t ext4 did not go through mount.ext4: $(head -n 3 "$OUT/helper-v.txt")"
	fi
	umount /mnt/b 2>/dev/null
	i=1
	while [ "$i" -le "$MOUNTS" ]; do
		measure mount helper "$i" "$BT" timeexec mount -t ext4 "$DEV" /mnt/b && umount /mnt/b
		measure mount direct "$i" "$BT" timeexec mount -i -t ext4 "$DEV" /mnt/b && umount /mnt/b
		i=$((i + 1))
	done
	rm -f /usr/sbin/mount.ext4
fi
note finished
