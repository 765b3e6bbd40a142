#!/usr/bin/env bash
# Build (or find cached) the Debian trees of the releases, ahead of the
# suites that use them, and print their paths:
#
#   tools/build-trees.sh KIND...
#
# KIND: build (tools/build-root.sh RELEASE: unit, package, fuzz, libmount,
# privilege, differential, dkms), guest (tools/e2e/mkroot.sh RELEASE:
# package, dkms, e2e) or stock (tools/e2e/mkroot-stock.sh RELEASE, for a
# release with stock kernels: dkms, e2e). For each release of
# releases_selected (EXTOWN_RELEASES), in the order the suites need them:
# every release's build tree, then the guest trees, then the stock trees.
#
# tests/run starts it in the background while the kernel suites compile:
# debootstrap and apt wait on the mirror and the disk as much as on the
# CPU, and a kernel build is CPU alone. The trees are the ones each suite
# asks for itself (same scripts, same keys); a suite that needs a tree
# still being built here waits on its lock (tests/lib/cache.sh) and does
# not build it twice. A tree that fails here is built again by the suite
# that needs it, which reports the failure. Exit status 1 when a tree
# failed; stdout: one line per tree, "RELEASE KIND PATH" or
# "RELEASE KIND failed".
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=build-trees
[ $# -gt 0 ] || usage
for k in "$@"; do
	case $k in build | guest | stock) ;; *) usage ;; esac
done
need_root "debootstrap, chroot"

declare -A script=(
	[build]=tools/build-root.sh
	[guest]=tools/e2e/mkroot.sh
	[stock]=tools/e2e/mkroot-stock.sh
)
rc=0
for kind in build guest stock; do
	[[ " $* " == *" $kind "* ]] || continue
	for rel in $(releases_selected); do
		if [ "$kind" = stock ] && [ -z "$(release_field "$rel" stock)" ]; then
			continue
		fi
		start=$SECONDS
		if path=$("$top/${script[$kind]}" "$rel" | tail -n 1) && [ -d "$path" ]; then
			echo "$rel $kind $path"
			log "$rel $kind tree: $path ($((SECONDS - start)) s)"
		else
			echo "$rel $kind failed"
			log "$rel $kind tree failed after $((SECONDS - start)) s"
			rc=1
		fi
	done
done
exit "$rc"
