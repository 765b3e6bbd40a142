#!/usr/bin/env bash
# Reliability tests of the uid=N:M override on real kernels (issue 5):
#
# 1. random_ops: tests/reliability/randops.c (fixed seed) runs in the busybox
#    test VM on a uid=1000:3000,gid=1000:3001 mount of each test image
#    (tools/vm/mkimages.sh: files of 1234:1234, one of 70000:70000); it
#    creates, writes, truncates, renames, links, unlinks, chmods, tries
#    chown (EPERM expected for every other id, as the user and as root),
#    sets xattrs, makes and removes directories and fsyncs, checking every
#    result against its own model. Then on the host: e2fsck -fn clean, every
#    inode of the image's manifest still in use with its on-disk uid/gid,
#    every other in-use inode (bitmap, via debugfs) owned 3000:3001 on disk.
#    ext4, ext3, ext2 by the fs/ext2 driver and ext2 by the ext4 driver
#    (the ext2 image mounted as ext4: the code that serves ext2 in Debian's
#    configuration; the configuration itself is the vm suite's
#    patched-ext4-for-ext2 kernel), all on the `patched` kernel.
# 2. powercut: the same workload without end on ext4; after a random delay
#    (seeded) the host SIGKILLs qemu; a second boot mounts the image with
#    the same options (journal replay) and unmounts it; then the host
#    checks as above.
#
#   tests/reliability/run.sh
#
# Each of the two runs on every base (EXTOWN_KERNEL_BASES, default those
# of tools/kernel/bases whose SUITES has reliability: the primary series,
# 7.3; the backports 6.1 and 6.12, whose fs/ext4 logic is 7.3's, when asked,
# e.g. EXTOWN_KERNEL_BASES="6.1 6.12 7.3"; docs/kernel.md, "What each base
# runs in CI"); test names are reliability.BASE.*, e.g.
# reliability.6.12.ext4.random_ops.preexisting_owner_kept.
#
# Environment (docs/reliability.md):
#   EXTOWN_RELIABILITY_OPS      operations per image in random_ops (10000)
#   EXTOWN_RELIABILITY_SEED     base seed (20261203); powercut iteration i
#                               uses SEED+i for the workload and the delay
#   EXTOWN_POWERCUT_ITERATIONS  power-cut iterations (3; the full run: 20)
#   EXTOWN_POWERCUT_MAX_DELAY   the kill comes 0.5..this many seconds after
#                               the workload started (6)
#   EXTOWN_KEEP=1               keep the work directory
#
# stdout: one "PASS name" / "FAIL name: why" / "SKIP name: why" per test;
# everything else on stderr. Exit 0 whatever the tests say, 1 when the
# harness broke (also reported as "FAIL reliability.harness: why").
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"

ops=${EXTOWN_RELIABILITY_OPS:-10000}
seed=${EXTOWN_RELIABILITY_SEED:-20261203}
iterations=${EXTOWN_POWERCUT_ITERATIONS:-3}
max_delay=${EXTOWN_POWERCUT_MAX_DELAY:-6}
for v in "$ops" "$seed" "$iterations" "$max_delay"; do
	case $v in '' | *[!0-9]*)
		harness_test=reliability harness_fail "EXTOWN_RELIABILITY_* / EXTOWN_POWERCUT_* must be numbers, got '$v'"
		;;
	esac
done
# On disk, new inodes must carry M of uid=1000:3000,gid=1000:3001.
NEW_UID=3000 NEW_GID=3001

harness_init reliability

# --- kernels, workload program, images, initramfs -----------------------
bases=$(bases_selected reliability)
declare -A kernel
for b in $bases; do
	kernel[$b/patched]=$("$top/tools/kernel/build-kernel.sh" --base "$b" patched | tail -n 1) ||
		harness_fail "tools/kernel/build-kernel.sh --base $b patched failed (see its messages)"
	[ -f "${kernel[$b/patched]}" ] || harness_fail "build-kernel.sh --base $b patched gave no bzImage"
done
# the base the functions below run on
base=''

gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$work/randops" \
	"$top/tests/reliability/randops.c" || harness_fail "cannot build tests/reliability/randops.c"
"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
"$top/tools/vm/mkinitramfs.sh" --file "$work/randops" --file "$top/tests/lib/results.sh" "$work/initramfs.cpio.gz" \
	"$top/tests/reliability/guest.sh" >/dev/null || harness_fail "tools/vm/mkinitramfs.sh failed"

# Kernel messages that mean corruption or a kernel bug.
dmesg_check() { # NAME DMESG_FILE
	local bad
	bad=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|EXT4-fs error|EXT2-fs \([a-z0-9]+\): error:|JBD2: .*error' \
		"$2" 2>/dev/null | head -n 3 | tr '\n' ' ' || true)
	check_none "$1.dmesg_clean" "$bad"
}

# --- 1. random operations -------------------------------------------------
# random_ops KERNEL "LABEL:IMAGE:FSTYPE"...
random_ops() {
	local k=$1 spec label image fstype letter=b rc=0 args="run" disks=() specs=("${@:2}")
	local dir=$work/$base/ops-$k
	mkdir -p "$dir"
	for spec in "${specs[@]}"; do
		IFS=: read -r label image fstype <<<"$spec"
		cp --sparse=always "$work/images/$image.img" "$dir/$label.img"
		disks+=("$dir/$label.img")
		args+=",$label:/dev/vd$letter:$fstype:$seed:$ops"
		letter=$(tr 'a-y' 'b-z' <<<"$letter")
	done
	log "$base: random_ops on $k: ${specs[*]}, $ops operations each, seed $seed"
	"$top/tools/vm/run-vm.sh" --out "$dir/vm" --args "$args" \
		"${kernel[$base/$k]}" "$work/initramfs.cpio.gz" "${disks[@]}" 900 >/dev/null || rc=$?
	local g=$dir/vm/guest/guest
	if [ ! -s "$g/results" ]; then
		fail_always "reliability.random_ops.$k.guest_ran" "no results (run-vm status $rc); serial log ends: $(tail -n 5 "$dir/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 0
	fi
	t_relay "$g/results"
	dmesg_check "reliability.random_ops.$k" "$dir/vm/guest/dmesg"
	for spec in "${specs[@]}"; do
		IFS=: read -r label image fstype <<<"$spec"
		if [ -f "$g/$label.out" ]; then
			log "$label: $(tr '\n' ' ' <"$g/$label.out")"
		fi
		rel_check_image "reliability.$label.random_ops" "$dir/$label.img" \
			"$work/images/$image.img.manifest" "$NEW_UID" "$NEW_GID" 1
	done
	log "random_ops on $k took $(cat "$dir/vm/boot-seconds" 2>/dev/null) s of VM time"
}


# The host-side checker itself: on a copy of the ext4 result, change the
# on-disk owner of one pre-existing inode (/file) and of one new inode the
# way a kernel writing presented ids would (1000:1000), and make sure both
# checks notice.
checker_selftest() {
	local img=$work/checker.img new ino out
	cp --sparse=always "$work/$base/ops-patched/ext4.img" "$img" 2>/dev/null || {
		fail reliability.checker.detects_wrong_owners "no ext4 result image to test with"
		return 0
	}
	ino=$(awk '$1 == "/file" { print $2 }' "$work/images/ext4.img.manifest")
	new=$(rel_inodes_in_use "$img" | awk -v ino="$ino" '!found && $1 > 20 && $2 == 3000 { print $1; found = 1 }')
	if [ -z "$ino" ] || [ -z "$new" ]; then
		fail reliability.checker.detects_wrong_owners "no pre-existing or no new inode found"
		return 0
	fi
	debugfs -w -R "set_inode_field <$ino> uid 1000" "$img" >/dev/null 2>&1
	debugfs -w -R "set_inode_field <$new> gid 1000" "$img" >/dev/null 2>&1
	out=$(rel_check_image selftest "$img" "$work/images/ext4.img.manifest" "$NEW_UID" "$NEW_GID" 1 2>/dev/null)
	if grep -q "^FAIL selftest.preexisting_owner_kept: .*inode $ino " <<<"$out" &&
		grep -q "^FAIL selftest.new_inodes_carry_M: .*inode $new is 3000:1000" <<<"$out"; then
		pass reliability.checker.detects_wrong_owners
	else
		fail reliability.checker.detects_wrong_owners "changed inodes $ino and $new, checker said: $(tr '\n' ' ' <<<"$out")"
	fi
}

# --- 2. power cut -----------------------------------------------------------
# A deterministic delay in milliseconds for iteration I: 500..MAX_DELAY*1000.
delay_ms() {
	awk -v s="$1" -v max="$max_delay" 'BEGIN { srand(s); printf "%d", 500 + rand() * (max * 1000 - 500) }'
}

powercut() { # ITERATION
	local i=$1 s=$((seed + $1)) name="reliability.powercut.ext4.iter$1"
	local dir=$work/$base/powercut/$1 img pid qpid waited=0 rc=0 ms recovery
	mkdir -p "$dir"
	img=$dir/ext4.img
	cp --sparse=always "$work/images/ext4.img" "$img"
	ms=$(delay_ms "$s")
	"$top/tools/vm/run-vm.sh" --out "$dir/vm1" --pidfile "$dir/qemu.pid" \
		--args "powercut,pc:/dev/vdb:ext4:$s:0" \
		"${kernel[$base/patched]}" "$work/initramfs.cpio.gz" "$img" 300 >/dev/null 2>"$dir/run-vm1.err" &
	pid=$!
	# Wait for the workload to start (a line on the serial console).
	until grep -q EXTOWN-RANDOPS-START "$dir/vm1/serial.log" 2>/dev/null; do
		if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -ge 1200 ]; then
			break
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	if ! grep -q EXTOWN-RANDOPS-START "$dir/vm1/serial.log" 2>/dev/null; then
		kill -KILL "$(cat "$dir/qemu.pid" 2>/dev/null)" 2>/dev/null || true
		wait "$pid" || true
		fail "$name.killed_mid_workload" "the workload never started; serial log ends: $(tail -n 5 "$dir/vm1/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 0
	fi
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	qpid=$(cat "$dir/qemu.pid" 2>/dev/null || true)
	if [ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null; then
		wait "$pid" || rc=$?
		if [ -e "$dir/vm1/guest/DONE" ]; then
			fail "$name.killed_mid_workload" "the guest had finished before the kill"
		else
			pass "$name.killed_mid_workload"
		fi
	else
		wait "$pid" || rc=$?
		fail "$name.killed_mid_workload" "qemu was gone before the kill at ${ms} ms (run-vm status $rc)"
		return 0
	fi
	recovery=no
	if grep -q '^Filesystem features:.*needs_recovery' <<<"$(dumpe2fs -h "$img" 2>/dev/null)"; then
		recovery=yes
	fi
	echo "$recovery" >"$dir/needs-recovery"
	log "powercut $i: killed ${ms} ms after the workload started; journal needs recovery: $recovery"

	# Second boot: mount (journal replay), look, unmount.
	rc=0
	"$top/tools/vm/run-vm.sh" --out "$dir/vm2" --args "replay,pc:/dev/vdb:ext4:0:0" \
		"${kernel[$base/patched]}" "$work/initramfs.cpio.gz" "$img" 300 >/dev/null 2>"$dir/run-vm2.err" || rc=$?
	local g=$dir/vm2/guest/guest
	if [ ! -s "$g/results" ]; then
		fail "$name.replay_boot" "no results (run-vm status $rc); serial log ends: $(tail -n 5 "$dir/vm2/serial.log" 2>/dev/null | tr '\n' ' ')"
	else
		sed "s/^\(PASS\|FAIL\|SKIP\) reliability\.pc\./\1 $name./" "$g/results" >"$g/results.named"
		t_relay "$g/results.named"
		dmesg_check "$name.replay" "$dir/vm2/guest/dmesg"
	fi
	rel_check_image "$name" "$img" "$work/images/ext4.img.manifest" "$NEW_UID" "$NEW_GID" 0
}

# The names get their base only after the runs (the sed below), so the
# selection is applied to the renamed lines.
for base in $bases; do
	{
		EXTOWN_TEST_FILTER=''
		random_ops patched ext4:ext4:ext4 ext3:ext3:ext3 ext2:ext2:ext2 ext2_by_ext4:ext2:ext4
		checker_selftest
		log "$base: powercut: $iterations iteration(s), kill 0.5..$max_delay s into the workload"
		for ((i = 1; i <= iterations; i++)); do
			powercut "$i"
		done
		if [ "$iterations" -gt 0 ]; then
			log "$base: powercut: journal needed recovery in $(cat "$work/$base"/powercut/*/needs-recovery 2>/dev/null | grep -c yes || true) of $iterations iterations"
		fi
	} | sed -u "s/^\(PASS\|FAIL\|SKIP\) reliability\./\1 reliability.$base./" >"$work/$base.results"
	t_relay "$work/$base.results"
done
exit 0
