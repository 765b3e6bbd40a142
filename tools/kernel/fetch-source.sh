#!/usr/bin/env bash
# Make sure the kernel source tarball of a base is on this machine, and
# print its path (the last line on stdout).
#
#   tools/kernel/fetch-source.sh BASE
#
# FROM (tools/kernel/bases) says where the source package comes from:
#   apt                 the machine's own apt sources: tools/apt-ensure.sh
#                       installs PACKAGE; the tarball is
#                       /usr/src/PACKAGE.tar.xz. Where the machine's
#                       release has no PACKAGE of the base's VERSION
#                       (linux-source-6.1 on a Debian 13 host), it is
#                       fetched as below from the release of
#                       tools/releases that has it (bookworm's suites)
#   SUITE=DEBVERSION    that version of PACKAGE from that Debian suite
#                       (e.g. trixie-backports, which the machine's sources
#                       do not name): apt-get update and download with a
#                       private sources list and private package lists,
#                       dpkg -x of the .deb; nothing of the machine's apt
#                       configuration or dpkg database changes. The
#                       tarball ends up in
#                       ${EXTOWN_CACHE:-/var/cache/extown}/sources/PACKAGE_DEBVERSION/
#
# EXTOWN_DEBIAN_MIRROR: the Debian archive for SUITE (default: the one
# the machine's apt sources name, tests/lib/releases.sh release_mirror;
# a -security suite from its debian-security archive). The package is
# verified by apt (the suite's Release file, signed by a key of
# debian-archive-keyring).
#
# Exit status: 0 ok, 1 the package could not be fetched, 2 usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${EXTOWN_CACHE:-/var/cache/extown}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=fetch-source
mirror=${EXTOWN_DEBIAN_MIRROR:-$(release_mirror)}

[ $# -eq 1 ] || {
	echo "usage: $0 $(bases_listed | paste -sd '|')" >&2
	exit 2
}
base=$1
package=$(base_field "$base" package) || die "no base '$base' in tools/kernel/bases"
from=$(base_field "$base" from)
tarball=$(base_tarball "$base")

if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi
if [ "$from" = apt ]; then
	if base_from_host_apt "$base"; then
		"$top/tools/apt-ensure.sh" fetch-source "$package" >&2
		[ -f "$tarball" ] || die "$tarball is missing after installing $package"
		echo "$tarball"
		exit 0
	fi
	from=$(base_apt_elsewhere "$base") ||
		die "neither the machine's apt sources nor a release of tools/releases has $package $(base_field "$base" version)"
	log "$package $(base_field "$base" version): not in the machine's apt sources; from ${from%%=*} instead"
	tarball=$cache/sources/${package}_${from#*=}/$package.tar.xz
elif [[ $from != *=* ]]; then
	die "tools/kernel/bases: FROM of $base is '$from', neither apt nor SUITE=DEBVERSION"
fi
suite=${from%%=*} debversion=${from#*=}
case $suite in *-security) mirror=${EXTOWN_SECURITY_MIRROR:-${mirror%/debian}/debian-security} ;; esac
if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

dir=$(dirname "$tarball")
apt=$cache/sources/apt-$suite
mkdir -p "$cache/sources"
exec 8>"$cache/sources/fetch.lock"
flock 8
rm -rf "$apt" "$dir.tmp"
mkdir -p "$apt/lists/partial" "$dir.tmp"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$apt/sources.list"
aptopts=(-q -o "Dir::Etc::SourceList=$apt/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists"
	-o "Dir::Cache=$apt/cache"
	-o APT::Sandbox::User=root)
log "fetching $package $debversion from $suite ($mirror, private sources list $apt/sources.list)"
apt-get "${aptopts[@]}" update >&2 || die "apt-get update of $suite failed"
(cd "$dir.tmp" && apt-get "${aptopts[@]}" download "$package=$debversion") >&2 ||
	die "apt-get download $package=$debversion from $suite failed (is $debversion still in $suite?)"
deb=$(find "$dir.tmp" -maxdepth 1 -name "${package}_*.deb" | head -n 1)
[ -n "$deb" ] || die "apt-get download left no ${package}_*.deb"
mkdir "$dir.tmp/x"
dpkg -x "$deb" "$dir.tmp/x"
[ -f "$dir.tmp/x/usr/src/$package.tar.xz" ] || die "$deb has no usr/src/$package.tar.xz"
mv "$dir.tmp/x/usr/src/$package.tar.xz" "$dir.tmp/"
rm -rf "$dir.tmp/x" "$deb"
echo "$package $debversion from $suite" >"$dir.tmp/ORIGIN"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
log "fetched $tarball ($(du -h "$tarball" | cut -f1))"
echo "$tarball"
