#!/usr/bin/env bash
# Privilege tests of the mount helper (issue 5): as the unprivileged user
# alice, through fstab "user" entries, setuid mount(8) and the setuid
# mount.ext4, try every way we could think of to end up owning files as
# another uid or gid. Two VM runs:
#
# patched   the attempts of tests/privilege/guest.sh on the `patched`
#           kernel (uid=/gid= in the kernel) with two ext4 disks (a faked
#           udev-tagged "stick" and an untagged "internal" one); then the
#           host checks with debugfs and e2fsck that every inode created
#           during the attempts is 1000:1000 on disk and the pre-existing
#           ones kept their owners.
# fallback  tests/privilege/guest-fallback.sh on the `unpatched` kernel,
#           where the helper gives ownership through an idmapped mount:
#           the defects of issue 18 (a foreign /proc, inherited signal
#           dispositions, the swap map, stacked mounts, symlinked mount
#           points, a broken stderr, image files, few descriptors, the
#           messages), names privilege.fallback.*; then the host reads
#           with debugfs the on-disk owners of the files the guest created
#           (they must be what the helper's message said) and checks that
#           alice's diary on the "swap" stick is unchanged.
# soak      tests/privilege/guest-soak.sh on the patched kernel
#           (privilege.soak.patched.*), and on the unpatched one
#           (soak-fallback: privilege.soak.fallback.*, the tagged sticks
#           idmapped): four users and root mount, umount, mount -f,
#           remount and call the helper directly at once on four sticks
#           for EXTOWN_SOAK_SECONDS (60) seconds or EXTOWN_SOAK_OPS (1000)
#           operations per worker, random helpers killed with SIGKILL;
#           then utab against the live mounts, locks, e2fsck; the counts
#           of operations and outcomes go to the log.
#           EXTOWN_SOAK_BREAK=count runs the soak with the helper built
#           with tests/privilege/break-count-inference.patch (the count
#           inference of user= entries put back; host release only): the
#           soak fails then (stale user= entries), within 300 s under TCG
#           (EXTOWN_SOAK_SECONDS=300; 60 s gave too few operations), as
#           privilege.utab.race.* does.
#           A selection (tests/run privilege:PATTERN) boots the soak VMs
#           only when a pattern contains "soak", and only those when
#           every pattern does.
#
# The helper is built as it is installed (configure --prefix=/usr
# --sysconfdir=/etc, out of tree); beside it, the same source with
# -DEXTOWN_TEST_HOOKS (/tests/hooks/mount.ext4 in the guests: it waits at
# named points of mounter.c while a FIFO /run/extown-test/POINT exists,
# so that a test can act inside a window a few microseconds wide).
#
# The guests run the host's util-linux (mount(8), umount(8), setpriv,
# libmount) and the helper built on the host; then the same two runs again
# for each other release of tools/releases (tests/lib/releases.sh,
# release_children; EXTOWN_RELEASES picks them), with that release's
# userspace in the guest (tools/vm/mkinitramfs.sh --root its build tree:
# trixie's mount(8) and libmount 2.41) and the helper built in its build
# tree, named privilege.REL.* (privilege.trixie.fallback.msg...).
#
#   tests/privilege/run.sh
#
# stdout: one "PASS name" / "FAIL name: why" per test; the rest on stderr.
# EXTOWN_KEEP=1 keeps the work directory (its vm/guest/guest/attempts and
# vm-fallback/guest/guest-fallback/attempts files list every attempt with
# its exit status and message). EXTOWN_PRIVILEGE_SRC=TREE builds the helper
# from another checkout (e.g. a `git worktree` of an older commit);
# EXTOWN_PRIVILEGE_RUNS="patched fallback soak soak-fallback" (the
# default) picks the runs;
# EXTOWN_PRIVILEGE_KERNEL_UNPATCHED=BZIMAGE boots that kernel for the
# fallback run instead of tools/kernel/build-kernel.sh unpatched;
# EXTOWN_GUEST_RELEASE=REL makes only the runs of REL's userspace (with
# names privilege.*; EXTOWN_PRIVILEGE_SRC is then ignored).
# Exit 0 whatever the tests say, 1 when the harness broke
# ("FAIL privilege.harness: why").
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
harness_init privilege privilege

src=${EXTOWN_PRIVILEGE_SRC:-$top}
runs=${EXTOWN_PRIVILEGE_RUNS:-patched fallback soak soak-fallback}
want_run() { case " $runs " in *" $1 "*) return 0 ;; esac; return 1; }

# The helper as it is installed: /usr/sbin/mount.ext4, policy /etc/extown.conf;
# the guests' userspace: the host's, or with EXTOWN_GUEST_RELEASE that
# release's build tree and a helper built there
helper='' initrd_root=()
release_guest "$src" privilege-helper helper initrd_root
# the same helper with the test hooks (-DEXTOWN_TEST_HOOKS: mounter.c waits
# at named points while a FIFO under /run/extown-test exists), installed in
# the guests beside the real one as /tests/hooks/mount.ext4; never the
# installed helper
if [ -z "${EXTOWN_GUEST_RELEASE:-}" ]; then
	CPPFLAGS=-DEXTOWN_TEST_HOOKS "$top/tools/build-helper.sh" --src "$src" "$work/privilege-hooks" \
		>/dev/null || harness_fail "cannot build mount.ext4 with the test hooks"
	cp "$work/privilege-hooks/mount.ext4" "$work/mount.ext4-hooks"
else
	"$top/tools/in-build-root.sh" "$EXTOWN_GUEST_RELEASE" env CPPFLAGS=-DEXTOWN_TEST_HOOKS \
		"$top/tools/build-helper.sh" "$top/build/privilege-hooks" >&2 ||
		harness_fail "cannot build mount.ext4 with the test hooks in $EXTOWN_GUEST_RELEASE's build tree"
	cp "$top/build/$EXTOWN_GUEST_RELEASE/privilege-hooks/mount.ext4" "$work/mount.ext4-hooks"
fi
gcc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$work/preload.so" \
	"$top/tests/privilege/preload.c" || harness_fail "cannot build tests/privilege/preload.c"
gcc -std=gnu11 -Wall -Wextra -Werror -O2 -o "$work/fbtool" "$top/tests/privilege/fbtool.c" ||
	harness_fail "cannot build tests/privilege/fbtool.c"
"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"

# relay VMDIR SCRIPT PREFIX RUNVM_STATUS: the guest's test lines, whether
# it finished, and its attempts in the log; 1 when it wrote no results
relay() {
	guest_results "$@" || return 1
	log "$2 attempts (name | command | exit | mounted | message):"
	sed 's/^/    /' "$1/guest/$2/attempts" >&2
	log "$2: VM run $(cat "$1/boot-seconds" 2>/dev/null) s"
}

run_patched() {
	local kernel rc=0
	kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) ||
		harness_fail "tools/kernel/build-kernel.sh patched failed"
	[ -f "$kernel" ] || harness_fail "build-kernel.sh gave no bzImage"
	cp --sparse=always "$work/images/ext4.img" "$work/stick.img"
	cp --sparse=always "$work/images/ext3.img" "$work/internal.img"
	"$top/tools/vm/mkinitramfs.sh" "${initrd_root[@]}" --file "$helper" --file "$work/preload.so" \
		--file "$work/mount.ext4-hooks" --file "$work/fbtool" \
		--file "$top/tests/lib/results.sh" --file "$top/tests/lib/vmguest.sh" \
		"$work/initramfs.cpio.gz" "$top/tests/privilege/guest.sh" >/dev/null ||
		harness_fail "tools/vm/mkinitramfs.sh failed"
	"$top/tools/vm/run-vm.sh" --out "$work/vm" "$kernel" "$work/initramfs.cpio.gz" \
		"$work/stick.img" "$work/internal.img" 600 >/dev/null || rc=$?
	relay "$work/vm" guest privilege "$rc" || return 0
	# Whatever alice did, every inode created on either disk is hers on disk.
	rel_check_image privilege.stick "$work/stick.img" "$work/images/ext4.img.manifest" 1000 1000 1
	rel_check_image privilege.internal "$work/internal.img" "$work/images/ext3.img.manifest" 1000 1000 0
}

run_fallback() {
	local kernel rc=0 stage disk path uid gid name img got diary
	if [ -n "${EXTOWN_PRIVILEGE_KERNEL_UNPATCHED:-}" ]; then
		kernel=$EXTOWN_PRIVILEGE_KERNEL_UNPATCHED
	else
		kernel=$("$top/tools/kernel/build-kernel.sh" unpatched | tail -n 1) ||
			harness_fail "tools/kernel/build-kernel.sh unpatched failed"
	fi
	[ -f "$kernel" ] || harness_fail "build-kernel.sh unpatched gave no bzImage"
	cp --sparse=always "$work/images/ext4.img" "$work/fb-stick.img"
	# the "swap" stick: written by bob (X = 1001), with alice's own diary
	stage=$work/swap-stage
	mkdir -p "$stage"
	printf "alice's diary\n" >"$stage/diary"
	printf "bob's notes\n" >"$stage/bobs"
	chmod 0600 "$stage/diary" "$stage/bobs"
	chown 1000:1000 "$stage/diary"
	chown 1001:1001 "$stage/bobs"
	mkfs.ext4 -q -F -d "$stage" -E root_owner=1001:1001 -U 6a6b0e00-0000-4000-8000-000000000018 \
		-L swap "$work/fb-swap.img" 32M || harness_fail "mkfs.ext4 of the swap stick failed"
	"$top/tools/vm/mkinitramfs.sh" "${initrd_root[@]}" --file "$helper" --file "$work/fbtool" \
		--file "$work/mount.ext4-hooks" \
		--file "$top/tests/lib/results.sh" --file "$top/tests/lib/vmguest.sh" "$work/initramfs-fallback.cpio.gz" \
		"$top/tests/privilege/guest-fallback.sh" >/dev/null ||
		harness_fail "tools/vm/mkinitramfs.sh failed (fallback)"
	"$top/tools/vm/run-vm.sh" --out "$work/vm-fallback" "$kernel" "$work/initramfs-fallback.cpio.gz" \
		"$work/fb-stick.img" "$work/fb-swap.img" 900 >/dev/null || rc=$?
	relay "$work/vm-fallback" guest-fallback privilege.fallback "$rc" || return 0
	# what the helper said new files are written as, against the disk
	while read -r disk path uid gid name; do
		img=$work/fb-$disk.img
		got=$(ondisk_owner "$img" "$path")
		if [ -z "$got" ]; then
			fail "privilege.fallback.$name" "debugfs finds no $path on the $disk image"
		elif [ "${got% *}" = "$uid" ] && { [ "$gid" = - ] || [ "${got#* }" = "$gid" ]; }; then
			pass "privilege.fallback.$name"
		else
			fail "privilege.fallback.$name" "$path is ${got/ /:} on disk, expected $uid:$gid"
		fi
	done <"$work/vm-fallback/guest/guest-fallback/ondisk"
	diary=$(debugfs -R "cat /diary" "$work/fb-swap.img" 2>/dev/null)
	if [ "$diary" = "alice's diary" ] && [ "$(ondisk_owner "$work/fb-swap.img" /diary)" = "1000 1000" ]; then
		pass privilege.fallback.swap.diary_unchanged_on_disk
	else
		fail privilege.fallback.swap.diary_unchanged_on_disk "now '$(tr '\n' ' ' <<<"$diary")', owner $(ondisk_owner "$work/fb-swap.img" /diary)"
	fi
	for disk in stick swap; do
		ondisk_fsck "privilege.fallback.$disk.e2fsck_clean" "$work/fb-$disk.img"
	done
}

# run_soak patched|fallback: tests/privilege/guest-soak.sh on that kernel,
# four fresh ext4 sticks (root directory 1234:1234), the helper (or, with
# EXTOWN_SOAK_BREAK=count, the one built with
# tests/privilege/break-count-inference.patch applied); the counts of
# operations and outcomes into the log; the images checked by e2fsck
run_soak() {
	local kind=$1 kernel rc=0 i img soak_helper=$helper soak_hooks=$work/mount.ext4-hooks
	local secs=${EXTOWN_SOAK_SECONDS:-60} ops=${EXTOWN_SOAK_OPS:-1000}
	local -a imgs=()
	if [ "$kind" = patched ]; then
		kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) ||
			harness_fail "tools/kernel/build-kernel.sh patched failed"
	elif [ -n "${EXTOWN_PRIVILEGE_KERNEL_UNPATCHED:-}" ]; then
		kernel=$EXTOWN_PRIVILEGE_KERNEL_UNPATCHED
	else
		kernel=$("$top/tools/kernel/build-kernel.sh" unpatched | tail -n 1) ||
			harness_fail "tools/kernel/build-kernel.sh unpatched failed"
	fi
	[ -f "$kernel" ] || harness_fail "no bzImage for the $kind soak"
	if [ -n "${EXTOWN_SOAK_BREAK:-}" ]; then
		build_broken
		soak_helper=$work/broken-build/mount.ext4
		soak_hooks=$work/broken-hooks/mount.ext4
	fi
	for i in 1 2 3 4; do
		img=$work/soak-$kind-$i.img
		rm -f "$img"
		mkfs.ext4 -q -F -E root_owner=1234:1234 "$img" 32M >&2 ||
			harness_fail "mkfs.ext4 of soak stick $i failed"
		imgs+=("$img")
	done
	mkdir -p "$work/soak-hooks"
	cp "$soak_hooks" "$work/soak-hooks/mount.ext4-hooks" || harness_fail "no hooked helper for the soak"
	"$top/tools/vm/mkinitramfs.sh" "${initrd_root[@]}" --file "$soak_helper" --file "$work/fbtool" \
		--file "$work/soak-hooks/mount.ext4-hooks" \
		--file "$top/tests/lib/results.sh" --file "$top/tests/lib/vmguest.sh" \
		"$work/initramfs-soak.cpio.gz" "$top/tests/privilege/guest-soak.sh" >/dev/null ||
		harness_fail "tools/vm/mkinitramfs.sh failed (soak)"
	"$top/tools/vm/run-vm.sh" --out "$work/vm-soak-$kind" --args "$secs,$ops" "$kernel" \
		"$work/initramfs-soak.cpio.gz" "${imgs[@]}" $((secs + 900)) >/dev/null || rc=$?
	guest_results "$work/vm-soak-$kind" guest-soak "privilege.soak.$kind" "$rc" || return 0
	log "soak $kind counts:"
	sed 's/^/    /' "$work/vm-soak-$kind/guest/guest-soak/counts" >&2
	log "soak $kind state at the end, and what the check found:"
	sed 's/^/    /' "$work/vm-soak-$kind/guest/guest-soak/state" \
		"$work/vm-soak-$kind/guest/guest-soak/problems" >&2
	log "soak $kind: VM run $(cat "$work/vm-soak-$kind/boot-seconds" 2>/dev/null) s"
	for i in 1 2 3 4; do
		ondisk_fsck "privilege.soak.$kind.host_e2fsck_clean.$i" "${imgs[$((i - 1))]}"
	done
}

# build_broken: the helper with EXTOWN_SOAK_BREAK's patch applied (count:
# tests/privilege/break-count-inference.patch, the count inference of
# user= entries put back), built from a copy of the source, plain and with
# the test hooks: $work/broken-build/mount.ext4, $work/broken-hooks/mount.ext4
build_broken() {
	local patch
	case $EXTOWN_SOAK_BREAK in
	count) patch=$top/tests/privilege/break-count-inference.patch ;;
	*) harness_fail "EXTOWN_SOAK_BREAK: '$EXTOWN_SOAK_BREAK' is not 'count'" ;;
	esac
	[ -z "${EXTOWN_GUEST_RELEASE:-}" ] ||
		harness_fail "EXTOWN_SOAK_BREAK is for the host's release only"
	[ ! -x "$work/broken-hooks/mount.ext4" ] || return 0
	rm -rf "$work/broken-src"
	mkdir -p "$work/broken-src"
	tar -C "$src" --exclude=./build --exclude=./.git -cf - . | tar -C "$work/broken-src" -xf -
	patch -d "$work/broken-src" -p1 <"$patch" >&2 || harness_fail "$patch does not apply"
	harness_build_helper "$work/broken-src" "$work/broken-build"
	CPPFLAGS=-DEXTOWN_TEST_HOOKS "$top/tools/build-helper.sh" --src "$work/broken-src" \
		"$work/broken-hooks" >/dev/null || harness_fail "cannot build the broken helper with hooks"
	[ -x "$work/broken-hooks/mount.ext4" ] || harness_fail "no $work/broken-hooks/mount.ext4"
	log "soak helpers built with $patch"
}

# the runs a selection wants: none of the soak's when no pattern names it,
# only the soak's when every pattern does
soak_only=no soak_wanted=yes
if [ -n "${EXTOWN_TEST_FILTER:-}" ]; then
	soak_only=yes soak_wanted=no
	for p in $EXTOWN_TEST_FILTER; do
		case $p in *soak*) soak_wanted=yes ;; *) soak_only=no ;; esac
	done
fi
if [ "$soak_only" = no ]; then
	want_run patched && run_patched
	want_run fallback && run_fallback
fi
if [ "$soak_wanted" = yes ]; then
	want_run soak && run_soak patched
	want_run soak-fallback && run_soak fallback
fi
[ -n "${EXTOWN_GUEST_RELEASE:-}" ] || release_children privilege "$0"
exit 0
