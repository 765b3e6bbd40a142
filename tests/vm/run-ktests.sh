#!/usr/bin/env bash
# The kernel tests (K1-K14 of docs/semantics.md, and uid= under an
# idmapped bind mount) on real kernels, for each base (6.1, 6.12, 7.3): builds
# the patched, the patched-with-ext4-for-ext2 and the unpatched kernel (those
# of them the run boots on the base, below; the patched kernel mounts ext4,
# ext3, ext2 by fs/ext2 and ext2 by fs/ext4), boots each in qemu with copies
# of the test images, runs
# tests/vm/ktests-guest.sh inside, then checks the images on the host
# with debugfs and e2fsck after the VM has stopped.
#
#   tests/vm/run-ktests.sh
#
# EXTOWN_KERNEL_BASES: the bases (default: those of tools/kernel/bases whose
# SUITES has vm). EXTOWN_VM_VARIANTS: the kernels to boot on each of them,
# "all" or a list of patched, patched-ext4-for-ext2, unpatched (default: what
# the base's SUITES says, vm=PARTS or every variant). So by default the
# primary series, 7.3, runs `patched` and `unpatched` and the backports 6.1
# and 6.12 only `patched` (docs/kernel.md, "What each base runs in CI");
# everything:
#   EXTOWN_KERNEL_BASES="6.1 6.12 7.3" EXTOWN_VM_VARIANTS=all tests/run vm
# The K11 comparison of a base (BASE/patched-vs-unpatched/...) runs only
# when both its patched and unpatched kernels do.
# Prints one "PASS name" / "FAIL name: why" line per test, named
# BASE/KERNEL/LABEL.Kn.what. EXTOWN_TEST_FILTER (tests/run vm:PATTERN) selects
# tests by name; a VM run or guest suite that holds none of them is left out
# (tests/lib/results.sh, t_wanted). Exit status 0 whatever the tests say, 1
# only when the harness itself broke (that is reported as a FAIL line too).
# EXTOWN_KEEP=1 keeps the work directory (images, VM logs) for a look.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
harness_init run-ktests ktests
# The paths every K11 comparison looks at: the initial tree and what
# suite_plain adds to it.
plain_paths=("${ONDISK_OLD_PATHS[@]}" /plain_root /plain_dir /plain_dir/x)

bases=$(bases_selected vm)
vm_variants="patched patched-ext4-for-ext2 unpatched"
# variants[BASE]: " VARIANT ... ": the kernels the run boots on BASE
declare -A variants
for b in $bases; do
	list=${EXTOWN_VM_VARIANTS:-}
	[ -n "$list" ] || list=$(base_parts "$b" vm)
	[ "$list" != all ] || list=$vm_variants
	list=${list//,/ }
	for v in $list; do
		case " $vm_variants " in
		*" $v "*) ;;
		*) harness_fail "$b: no kernel variant '$v' (EXTOWN_VM_VARIANTS, or vm= of SUITES in tools/kernel/bases: all, or some of: $vm_variants)" ;;
		esac
	done
	[ -n "${list// /}" ] || harness_fail "$b: no kernel variant to boot (EXTOWN_VM_VARIANTS)"
	variants[$b]=" $list "
	log "$b: kernels $list"
done
# runs BASE VARIANT WHAT: status 0 when the run boots VARIANT on BASE;
# logs WHAT it boots, or that it leaves VARIANT out
runs() {
	if [[ ${variants[$1]} == *" $2 "* ]]; then
		log "VM: $1: $3"
		return 0
	fi
	log "VM: $1: $2 kernel not booted (EXTOWN_VM_VARIANTS=all boots every variant)"
	return 1
}

# --- kernels, tool, images, initramfs ---------------------------------
# kernel_for BASE/VARIANT: the bzImage, built (or taken from the cache) the
# first time a run needs it
declare -A kernel
kernel_for() {
	local k=$1 s=$SECONDS
	if [ -z "${kernel[$k]:-}" ]; then
		kernel[$k]=$("$top/tools/kernel/build-kernel.sh" --base "${k%%/*}" "${k#*/}" | tail -n 1) ||
			harness_fail "tools/kernel/build-kernel.sh --base ${k%%/*} ${k#*/} failed (see its messages above)"
		log "kernel $k: ${kernel[$k]} ($((SECONDS - s)) s)"
	fi
}

gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$work/vmtool" "$top/tests/vm/vmtool.c" ||
	harness_fail "cannot build tests/vm/vmtool.c"
"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
# K9: the ext4 image with usrquota among the superblock's default mount
# options
cp --sparse=always "$work/images/ext4.img" "$work/images/ext4-sbquota.img"
cp "$work/images/ext4.img.manifest" "$work/images/ext4-sbquota.img.manifest"
tune2fs -E mount_opts=usrquota "$work/images/ext4-sbquota.img" >/dev/null ||
	harness_fail "tune2fs -E mount_opts=usrquota failed"
"$top/tools/vm/mkinitramfs.sh" --file "$work/vmtool" --file "$top/tests/lib/results.sh" "$work/initramfs.cpio.gz" \
	"$top/tests/vm/ktests-guest.sh" >/dev/null || harness_fail "tools/vm/mkinitramfs.sh failed"

# --- one VM run -------------------------------------------------------
# The semantics labels of each guest suite (ktests-guest.sh suite_*), and
# those the host checks every image for (K2, K3, K12; K10 in the guest).
declare -A suite_labels=(
	[override]="K1 K2 K3 K4 K5 K6 K7 K13"
	[split_ids]="K1 K2 K6"
	[idmap]="idmap"
	[bad_values]="K8"
	[quota]="K9"
	[quota_feature]="K9"
	[noquota]="K9"
	[deleted]="K3"
	[setid]="K14 K2"
	[idmap_setid]="K14 K2"
	[plain]="K11"
)
host_labels="K2 K3 K10 K12 K14"

# selected_suites KERNEL SUITES: the "+"-joined suites of SUITES that may
# hold a selected test
selected_suites() {
	local k=$1 s out=""
	for s in ${2//+/ }; do
		# shellcheck disable=SC2086 # one word per label
		if t_wanted "$k" ${suite_labels[$s]}; then out+="${out:++}$s"; fi
	done
	echo "$out"
}

# run_vm KERNEL MODE "LABEL:IMAGE:FSTYPE:SUITES"...
# Copies IMAGE.img to $work/KERNEL/LABEL.img, attaches the copies as
# vdb, vdc, ... in order and passes LABEL:/dev/vdX:FSTYPE:SUITES to the
# guest (the SUITES that may hold a selected test). Reports the guest's
# results prefixed with KERNEL/. Status 1 (and no boot) when the run holds
# no selected test.
run_vm() {
	local k=$1 mode=$2 spec label image fstype suites letter=b rc=0
	local dir=$work/$k disks=() args="" labels=$host_labels
	shift 2
	for spec in "$@"; do
		IFS=: read -r label image fstype suites <<<"$spec"
		for s in ${suites//+/ }; do labels+=" ${suite_labels[$s]}"; done
	done
	# shellcheck disable=SC2086 # one word per label
	t_wanted "$k" $labels || return 1
	kernel_for "$k"
	mkdir -p "$dir"
	for spec in "$@"; do
		IFS=: read -r label image fstype suites <<<"$spec"
		cp --sparse=always "$work/images/$image.img" "$dir/$label.img"
		disks+=("$dir/$label.img")
		args+="${args:+,}$label:/dev/vd$letter:$fstype:$(selected_suites "$k" "$suites")"
		letter=$(tr 'a-y' 'b-z' <<<"$letter")
	done
	"$top/tools/vm/run-vm.sh" --out "$dir/vm" --args "$mode,$args" \
		"${kernel[$k]}" "$work/initramfs.cpio.gz" "${disks[@]}" 600 >/dev/null || rc=$?
	local g=$dir/vm/guest/ktests-guest
	guest_results "$dir/vm" ktests-guest "$k" "$rc" "$k/" || return 0
	# Refusals print errors, but nothing may oops, warn or report a
	# corrupt filesystem.
	local bad
	bad=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|EXT4-fs error|EXT2-fs \([a-z0-9]+\): error:' \
		"$dir/vm/guest/dmesg" "$g/dmesg" 2>/dev/null | head -n 3 | tr '\n' ' ' || true)
	check_none "$k.dmesg_clean" "$bad"
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
		fail "$k/$label.K2.disk_owner" "the guest wrote no expect file"
	fi
	check_modes "$k" "$label" "$image.img"
	ondisk_check_fsck "$k/$label" "$img"
}

# K14: the modes the guest says new and chmodded inodes must have on disk
# ("LABEL PATH MODE", octal); K3: the owners a deleted inode must have
# ("LABEL PATH UID GID", PATH found by its inode number in the manifest).
check_modes() {
	local k=$1 label=$2 image=$3 img=$work/$1/$2.img g=$work/$1/vm/guest/ktests-guest
	local l p want info dmode duid dgid uid gid ino
	while read -r l p want; do
		[ "$l" = "$label" ] || continue
		info=$(ondisk_info "$img" "/$p")
		read -r _ dmode _ <<<"$info"
		check_eq "$k/$label.K14.disk_mode.$(tr '/+' '__' <<<"$p")" "on-disk mode of /$p" \
			"$want" "$(printf '%o' "$((8#${dmode:-0}))")"
	done < <(cat "$g/modes" 2>/dev/null)
	while read -r l p uid gid; do
		[ "$l" = "$label" ] || continue
		ino=$(awk -v p="/$p" '$1 == p { print $2 }' "$work/images/$image.manifest" 2>/dev/null)
		info=$(ondisk_info "$img" "<${ino:-0}>")
		read -r _ _ duid dgid _ <<<"$info"
		check_eq "$k/$label.K3.deleted_inode_high_owner_zeroed.$(tr '/+' '__' <<<"$p")" \
			"on-disk owner of deleted inode ${ino:-?} (/$p)" "$uid:$gid" "${duid:-}:${dgid:-}"
	done < <(cat "$g/deleted" 2>/dev/null)
}

# --- the runs ------------------------------------------------------------
# The patched kernel also mounts an ext2 image as ext4 (label ext2e4, as
# on patched-ext4-for-ext2): the code of fs/ext4 that serves ext2 in
# Debian's configuration, on every base and every commit;
# patched-ext4-for-ext2 adds that configuration itself (the "ext2" type
# registered by fs/ext4, EXT2_FS off), which no line of the series touches.
all="override+split_ids+bad_values+quota+setid"
for b in $bases; do
	if runs "$b" patched "patched kernel (ext4, ext3, ext2 by fs/ext2 and by fs/ext4)" && run_vm "$b/patched" patched \
		"ext4:ext4:ext4:idmap+$all" \
		"ext3:ext3:ext3:idmap+$all" \
		"ext2:ext2:ext2:$all" \
		"ext2e4:ext2:ext4:$all" \
		"quota:ext4-quota:ext4:quota_feature" \
		"noquota:ext4-sbquota:ext4:noquota" \
		"del4:ext4:ext4:deleted" \
		"plain4:ext4:ext4:plain" \
		"plain2:ext2:ext2:plain"; then
		for l in ext4 ext3 ext2; do
			check_image "$b/patched" "$l" "$l" preserved created
		done
		check_image "$b/patched" ext2e4 ext2 preserved created
		check_image "$b/patched" quota ext4-quota preserved nothing-created
		check_image "$b/patched" noquota ext4-sbquota changed nothing-created
		check_image "$b/patched" del4 ext4 changed nothing-created
		check_image "$b/patched" plain4 ext4 changed created
		check_image "$b/patched" plain2 ext2 changed created
	fi

	if runs "$b" patched-ext4-for-ext2 "patched kernel with ext4 serving ext2 (Debian's configuration)" &&
		run_vm "$b/patched-ext4-for-ext2" patched \
		"ext2e4:ext2:ext2:$all" \
		"plain2:ext2:ext2:plain"; then
		check_image "$b/patched-ext4-for-ext2" ext2e4 ext2 preserved created
		check_image "$b/patched-ext4-for-ext2" plain2 ext2 changed created
	fi

	if runs "$b" unpatched "unpatched kernel" && run_vm "$b/unpatched" unpatched \
		"plain4:ext4:ext4:plain" \
		"plain2:ext2:ext2:plain" \
		"idmap4:ext4:ext4:idmap_setid"; then
		check_image "$b/unpatched" plain4 ext4 changed created
		check_image "$b/unpatched" plain2 ext2 changed created
		check_image "$b/unpatched" idmap4 ext4 preserved created
	fi

	# K11: no options, same workload -> same inodes on disk with and without
	# the patches: only when both kernels are booted, never against a
	# missing run.
	[[ ${variants[$b]} == *" patched "* && ${variants[$b]} == *" unpatched "* ]] || {
		log "K11: $b: patched-vs-unpatched left out (it needs both the patched and the unpatched kernel)"
		continue
	}
	for l in plain4 plain2; do
		t_selected "$b/patched-vs-unpatched/$l.K11.same_on_disk_result" || continue
		ondisk_compare "$b/patched-vs-unpatched/$l" "$work/$b/patched/$l.img" "$work/$b/unpatched/$l.img" \
			"${plain_paths[@]}"
	done
done
