#!/usr/bin/env bash
# Build (once) a Debian tree of a release with everything the extown
# userspace, its unit and fuzz tests and its packages are built with (the
# lists of tools/install-deps-userspace.sh and tools/install-deps-packaging.sh),
# and print its path. The suites build and test inside it with in_root
# (tests/lib/harness.sh), so each release's compiler, libmount and lintian
# are the ones that judge the code.
#
#   tools/build-root.sh [RELEASE]    last stdout line: the cached tree
#
# RELEASE: a codename of tools/releases (default: its first line).
# Cached under ${EXTOWN_CACHE:-/var/cache/extown}/build/ keyed on this
# script, the package lists and the release's line of tools/releases.
# Callers copy or overlay it; they never write into it. Needs root
# (debootstrap) and the Debian mirror (tests/lib/releases.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=build-root
[ $# -le 1 ] || usage
release=${1:-$(release_default)}
release_field "$release" version >/dev/null ||
	die "unknown release '$release' (tools/releases: $(releases_all | tr '\n' ' '))"

mapfile -t packages < <(EXTOWN_DEPS_LIST=1 "$top/tools/install-deps-packaging.sh" | sort -u)

# build TREE: debootstrap RELEASE, then apt-get the build dependencies (a
# long --include list makes debootstrap configure packages out of order:
# seen with trixie's libnet-ssleay-perl)
build() {
	local tmp=$1 mirror start=$SECONDS
	mirror=$(release_mirror)
	log "debootstrap $release (minbase) from $mirror"
	debootstrap --variant=minbase "$release" "$tmp" "$mirror" ||
		die "debootstrap failed (its log: $tmp/debootstrap/debootstrap.log)"
	release_sources "$release" "$mirror" >"$tmp/etc/apt/sources.list"
	mkdir -p "$tmp/proc" "$tmp/dev"
	cache_mount -t proc proc "$tmp/proc"
	cache_mount --bind /dev "$tmp/dev"
	in_root "$tmp" apt-get update -q || die "apt-get update in the tree failed"
	log "apt-get install ${packages[*]}"
	in_root "$tmp" apt-get install -y -q --no-install-recommends "${packages[@]}" ||
		die "apt-get install of the build dependencies failed"
	in_root "$tmp" apt-get clean
	rm -rf "$tmp"/var/lib/apt/lists/*_Packages "$tmp"/var/lib/apt/lists/*_Translation-*
	log "$release build tree in $((SECONDS - start)) s"
}

need_root "debootstrap"
"$top/tools/e2e/install-deps.sh" >&2
cache_tree build "root-$release" "$(cache_key "${BASH_SOURCE[0]}" "${packages[*]}" \
	"$(grep "^$release\s" "$releases_table")")" build
