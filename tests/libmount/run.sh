#!/usr/bin/env bash
# The helper against each release's libmount and mount(8), on the host's
# kernel: for every release of tools/releases (EXTOWN_RELEASES), the
# release's build tree is copied (tools/in-build-root.sh: an overlay, a
# private mount namespace) and tests/libmount/in-root.sh runs in it: this
# checkout's mount.ext4 built there and installed setuid root, loop
# devices, a user alice switched to with setpriv, mount.ext4 run directly
# and through mount(8), umount as alice, and an fstab entry with
# X-mount.idmap= where mount(8) knows it (util-linux 2.39+).
#
#   tests/libmount/run.sh
#
# stdout: PASS/FAIL/SKIP libmount.RELEASE.NAME (libmount.trixie.direct.
# untagged.alice_umounts); the names of in-root.sh with the release put
# after "libmount.". Logs in build/RELEASE/libmount.log. Needs root, loop
# devices and the Debian mirror (the first run builds the trees).
# EXTOWN_LIBMOUNT_BREAK: passed to in-root.sh (stacked-nothing: its
# stacked tests broken on purpose).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=libmount harness_test=libmount
need_root "chroot, loop devices and mounts"

for rel in $(releases_selected); do
	mkdir -p "$top/build/$rel"
	rc=0
	"$top/tools/in-build-root.sh" "$rel" /usr/bin/env EXTOWN_LIBMOUNT_BREAK="${EXTOWN_LIBMOUNT_BREAK:-}" \
		"$top/tests/libmount/in-root.sh" \
		>"$top/build/$rel/libmount.out" 2>"$top/build/$rel/libmount.log" || rc=$?
	release_child_result "$rel" libmount "$top/build/$rel/libmount.out" "$rc" "$top/build/$rel/libmount.log"
done
