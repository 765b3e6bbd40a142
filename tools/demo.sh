#!/usr/bin/env bash
# The extown story in one command: a USB stick whose files belong to uid
# 1234 is plugged into a Debian 12 desktop (qemu, our patched kernel of the
# default base, stock udisks2), alice (uid 1000) mounts it with
# `udisksctl mount`, the files are hers; after unmount the disk still says
# 1234, and what she created is 1000's.
#
#   tools/demo.sh
#
# Runs one boot of the end-to-end test (tests/e2e/run.sh with
# EXTOWN_E2E_KERNELS=bookworm/patched, no rootusb boot), which installs
# what it needs (tools/install-deps.sh, tools/install-deps-userspace.sh,
# tools/e2e/install-deps.sh) and builds the kernel and the Debian tree when
# they are not cached yet (the e2e suite's cache: after a `tests/run` they
# are), then prints a before/after transcript read from the guest's files
# and, on the host, from the stick image with debugfs. Each step is shown
# as it starts, and the time it took (docs/e2e.md, "The demo", says what
# it costs). Needs root. The test lines and logs are kept in
# ${TMPDIR:-/tmp}/extown-demo/ (.results, .log).
#
# Exit status 1 when the story did not hold: a FAIL line of the e2e run,
# no guest results, or an owner in the transcript that is not the story's.
# .ci/run runs it after tests/run.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
T_LOG=demo
need_root "debootstrap, qemu images, make install"

boot=bookworm/patched
work=${TMPDIR:-/tmp}/extown-demo
t0=$SECONDS

clock() { local s=$((SECONDS - t0)); printf '%2d:%02d' $((s / 60)) $((s % 60)); }

# progress: the e2e run's step lines ("e2e: == WHAT", on its stderr), each
# shown as it starts, with the time the one before took
progress() {
	local line last='' since=$SECONDS
	while IFS= read -r line; do
		case $line in
		'e2e: == '*)
			[ -z "$last" ] || echo "demo: [$(clock)]   ... $((SECONDS - since)) s"
			last=${line#e2e: == } since=$SECONDS
			echo "demo: [$(clock)] $last"
			;;
		esac
	done
	[ -z "$last" ] || echo "demo: [$(clock)]   ... $((SECONDS - since)) s"
}

echo "demo: the end-to-end test, boot $boot (test lines: $work.results, log: $work.log)"
mkdir -p "$(dirname "$work")"
set +e
EXTOWN_E2E_WORK=$work EXTOWN_E2E_KERNELS=$boot EXTOWN_E2E_ROOTUSB=no EXTOWN_TEST_FILTER='' \
	"$top/tests/e2e/run.sh" 2>&1 >"$work.results" | tee "$work.log" | progress
st=("${PIPESTATUS[@]}")
set -e
rc=${st[0]}
d=$work/${boot/\//-}
g=$d/vm/guest/e2e
if [ "$rc" -ne 0 ] || [ ! -s "$g/results" ]; then
	echo "demo: the end-to-end run broke (status $rc):"
	cat "$work.results"
	tail -n 20 "$work.log"
	exit 1
fi

broken=()
# owner_is IMG PATH WANT: WANT is PATH's uid:gid on disk; else the story
# broke
owner_is() {
	local uid gid
	read -r _ _ uid gid _ _ <<<"$(ondisk_info "$1" "$2")"
	[ "$uid:$gid" = "$3" ] || broken+=("$2 is $uid:$gid on disk in $(basename "$1"), not $3")
}
owners_on_disk() { # IMG PATH...
	local img=$1 p uid gid
	shift
	for p in "$@"; do
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$img" "$p")"
		printf '    %-12s %s\n' "$p" "$uid:$gid"
	done
}
show() { sed 's/^/    /' "$1" 2>/dev/null || echo "    (missing: $1)"; }

fsimg=$work/demo-check.img
cp --sparse=always "$d/stick-ext4.img" "$fsimg"
echo
echo "== BEFORE: the stick as written elsewhere (debugfs on the image)"
owners_on_disk "$work/images/ext4.img" / /file /secret /dir
owner_is "$work/images/ext4.img" /file 1234:1234
echo "   root mounts it without options in the guest, ls -ln (after the desktop tests:"
echo "   desktop-udiskie and desktop-gio are what alice wrote through udiskie and gio):"
show "$g/ext4.ls-before"
echo
echo "== PLUGGED: QMP device_add usb-storage (removable); udev says:"
grep -E '^(ID_BUS|ID_FS_TYPE|EXTOWN_REMOVABLE|UDISKS_MOUNT_OPTIONS_EXT4_DEFAULTS)=' "$g/ext4.udev" | sed 's/^/    /' ||
	echo "    (missing: $g/ext4.udev)"
echo "== alice (uid 1000): udisksctl mount -b ...; /proc/mounts:"
show "$g/ext4.mounts"
echo "   ls -ln of the mounted stick (and of /dir):"
show "$g/ext4.ls-after"
# the story: every file of the mounted stick is alice's
if ! awk 'NF >= 9 && $1 !~ /^total/ { if ($3 != 1000 || $4 != 1000) bad = 1; n++ } END { exit bad || !n }' \
	"$g/ext4.ls-after" 2>/dev/null; then
	broken+=("ls -ln of the mounted stick does not show every file as 1000 1000")
fi
echo "   alice appends to /secret (0600, 1234 on disk) and creates alice-new, alice-dir;"
echo "   alice, then root, try to give files back to 1234 (chown 1234:1234):"
grep '^e2e\.U2\.ext4\.' "$g/chown.messages" 2>/dev/null | sed 's/^[^:]*: /    /' || echo "    (missing: $g/chown.messages)"
echo "   alice unmounts"
echo
echo "== AFTER: on disk (debugfs), old files keep their owner, new ones are alice's"
owners_on_disk "$fsimg" / /file /secret /dir /alice-new /alice-dir
owner_is "$fsimg" /file 1234:1234
owner_is "$fsimg" /secret 1234:1234
owner_is "$fsimg" /alice-new 1000:1000
echo "   /secret now holds:"
debugfs -R "cat /secret" "$fsimg" 2>/dev/null | sed 's/^/    /'
if e2fsck -fn "$fsimg" >/dev/null 2>&1; then
	echo "   e2fsck -fn: clean"
else
	echo "   e2fsck -fn: NOT clean"
	broken+=("e2fsck -fn of the stick after the story is not clean")
fi
rm -f "$fsimg"
echo
p=$(grep -c '^PASS ' "$work.results" || true)
f=$(grep -c '^FAIL ' "$work.results" || true)
k=$(grep -c '^SKIP ' "$work.results" || true)
echo "== e2e tests of this boot: $p passed, $f failed, $k skipped (lines in $work.results)"
grep '^FAIL ' "$work.results" || true
for b in "${broken[@]}"; do echo "demo: STORY BROKEN: $b"; done
echo "demo: $(clock) in all"
[ "$f" -eq 0 ] && [ "${#broken[@]}" -eq 0 ]
