#!/usr/bin/env bash
# The kernel tests (K1-K13 of docs/semantics.md, and uid= under an
# idmapped bind mount) on real kernels, for each base (6.1, 6.12): builds
# the patched, the patched-with-ext4-for-ext2 and the unpatched kernel,
# boots each in qemu with copies of the test images, runs
# tests/vm/ktests-guest.sh inside, then checks the images on the host
# with debugfs and e2fsck after the VM has stopped.
#
#   tests/vm/run-ktests.sh
#
# EXTOWN_KERNEL_BASES: the bases (default "6.1 6.12").
# Prints one "PASS name" / "FAIL name: why" line per test, named
# BASE/KERNEL/LABEL.Kn.what. Exit status 0 whatever the tests say, 1 only when
# the harness itself broke (that is reported as a FAIL line too).
# EXTOWN_KEEP=1 keeps the work directory (images, VM logs) for a look.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/vm/ondisk.sh
. "$top/tests/vm/ondisk.sh"
# shellcheck source=tests/harness.sh
. "$top/tests/harness.sh"
harness_init run-ktests ktests
# The paths every K11 comparison looks at: the initial tree and what
# suite_plain adds to it.
plain_paths=("${ONDISK_OLD_PATHS[@]}" /plain_root /plain_dir /plain_dir/x)

bases=${EXTOWN_KERNEL_BASES:-6.1 6.12}

# --- kernels, tool, images, initramfs ---------------------------------
declare -A kernel
for b in $bases; do
	for v in patched patched-ext4-for-ext2 unpatched; do
		s=$SECONDS
		if ! kernel[$b/$v]=$("$top/tools/kernel/build-kernel.sh" --base "$b" "$v" | tail -n 1); then
			harness_fail "tools/kernel/build-kernel.sh --base $b $v failed (see its messages above)"
		fi
		log "kernel $b/$v: ${kernel[$b/$v]} ($((SECONDS - s)) s)"
	done
done

gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$work/vmtool" "$top/tests/vm/vmtool.c" ||
	harness_fail "cannot build tests/vm/vmtool.c"
"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
"$top/tools/vm/mkinitramfs.sh" --file "$work/vmtool" "$work/initramfs.cpio.gz" \
	"$top/tests/vm/ktests-guest.sh" >/dev/null || harness_fail "tools/vm/mkinitramfs.sh failed"

# --- one VM run -------------------------------------------------------
# run_vm KERNEL MODE "LABEL:IMAGE:FSTYPE:SUITES"...
# Copies IMAGE.img to $work/KERNEL/LABEL.img, attaches the copies as
# vdb, vdc, ... in order and passes LABEL:/dev/vdX:FSTYPE:SUITES to the
# guest. Prints the guest's results prefixed with KERNEL/.
run_vm() {
	local k=$1 mode=$2 spec label image fstype suites letter=b rc=0
	local dir=$work/$k disks=() args=""
	shift 2
	mkdir -p "$dir"
	for spec in "$@"; do
		IFS=: read -r label image fstype suites <<<"$spec"
		cp --sparse=always "$work/images/$image.img" "$dir/$label.img"
		disks+=("$dir/$label.img")
		args+="${args:+,}$label:/dev/vd$letter:$fstype:$suites"
		letter=$(tr 'a-y' 'b-z' <<<"$letter")
	done
	"$top/tools/vm/run-vm.sh" --out "$dir/vm" --args "$mode,$args" \
		"${kernel[$k]}" "$work/initramfs.cpio.gz" "${disks[@]}" 600 >/dev/null || rc=$?
	local g=$dir/vm/guest/ktests-guest
	if [ ! -s "$g/results" ]; then
		echo "FAIL $k.guest_ran: no results (run-vm status $rc); serial log ends: $(tail -n 5 "$dir/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 0
	fi
	sed -n "s#^\(PASS\|FAIL\|SKIP\) #\1 $k/#p" "$g/results"
	if [ "$rc" -eq 0 ] && [ -f "$dir/vm/guest/DONE" ] && [ "$(cat "$g/rc")" = 0 ]; then
		echo "PASS $k.guest_finished"
	else
		echo "FAIL $k.guest_finished: run-vm status $rc, guest script status $(cat "$g/rc" 2>/dev/null)"
	fi
	# Refusals print errors, but nothing may oops, warn or report a
	# corrupt filesystem.
	local bad
	bad=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|EXT4-fs error|EXT2-fs \([a-z0-9]+\): error:' \
		"$dir/vm/guest/dmesg" "$g/dmesg" 2>/dev/null | head -n 3 | tr '\n' ' ' || true)
	if [ -z "$bad" ]; then
		echo "PASS $k.dmesg_clean"
	else
		echo "FAIL $k.dmesg_clean: $bad"
	fi
}

# --- host-side checks of one image -------------------------------------
# check_image KERNEL LABEL IMAGE preserved|changed created|nothing-created
# "preserved": the initial tree must keep its on-disk owners (not so for
# the plain suite, which chowns a file); "created": the guest created
# inodes and says which owners they must have on disk.
check_image() {
	local k=$1 label=$2 image=$3 img=$work/$1/$2.img
	local expect=$work/$k/vm/guest/ktests-guest/expect
	if [ "$4" = preserved ]; then
		ondisk_check_preserved "$k/$label" "$img" \
			<(cut -d' ' -f1-4 "$work/images/$image.img.manifest")
	fi
	if [ "$5" = nothing-created ]; then
		:
	elif [ -f "$expect" ]; then
		sed "s#^$label #$k/$label #" "$expect" >"$work/$k/$label.expect"
		ondisk_check_expected "$k/$label" "$img" "$work/$k/$label.expect"
	else
		echo "FAIL $k/$label.K2.disk_owner: the guest wrote no expect file"
	fi
	ondisk_check_fsck "$k/$label" "$img"
}

# --- the runs ------------------------------------------------------------
all="override+split_ids+bad_values+quota"
for b in $bases; do
	log "VM: $b: patched kernel (ext4, ext3, ext2 driver)"
	run_vm "$b/patched" patched \
		"ext4:ext4:ext4:idmap+$all" \
		"ext3:ext3:ext3:idmap+$all" \
		"ext2:ext2:ext2:$all" \
		"quota:ext4-quota:ext4:quota_feature" \
		"plain4:ext4:ext4:plain" \
		"plain2:ext2:ext2:plain"
	for l in ext4 ext3 ext2; do
		check_image "$b/patched" "$l" "$l" preserved created
	done
	check_image "$b/patched" quota ext4-quota preserved nothing-created
	check_image "$b/patched" plain4 ext4 changed created
	check_image "$b/patched" plain2 ext2 changed created

	log "VM: $b: patched kernel with ext4 serving ext2 (Debian's configuration)"
	run_vm "$b/patched-ext4-for-ext2" patched \
		"ext2e4:ext2:ext2:override+split_ids+bad_values+quota" \
		"plain2:ext2:ext2:plain"
	check_image "$b/patched-ext4-for-ext2" ext2e4 ext2 preserved created
	check_image "$b/patched-ext4-for-ext2" plain2 ext2 changed created

	log "VM: $b: unpatched kernel"
	run_vm "$b/unpatched" unpatched \
		"plain4:ext4:ext4:plain" \
		"plain2:ext2:ext2:plain"
	check_image "$b/unpatched" plain4 ext4 changed created
	check_image "$b/unpatched" plain2 ext2 changed created

	# K11: no options, same workload -> same inodes on disk with and without
	# the patches.
	for l in plain4 plain2; do
		ondisk_compare "$b/patched-vs-unpatched/$l" "$work/$b/patched/$l.img" "$work/$b/unpatched/$l.img" \
			"${plain_paths[@]}"
	done
done

if [ -n "${EXTOWN_KEEP:-}" ]; then
	log "work directory kept: $work"
fi
