#!/usr/bin/env bash
# Install the Debian packages that building and checking the extown .deb
# (debian/, tests/package/run.sh) needs, on top of the userspace build
# dependencies (tools/install-deps-userspace.sh). Idempotent: when everything
# is installed already it only runs dpkg-query.
#
#   tools/install-deps-packaging.sh
set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
"$here/install-deps-userspace.sh"

packages=(
	# dpkg-buildpackage, dh (with dh_autoreconf: debhelper depends on
	# dh-autoreconf), fakeroot for -rfakeroot, the Build-Depends of debian/control
	dpkg-dev debhelper dh-autoreconf fakeroot build-essential
	autoconf automake pkgconf libmount-dev libudev-dev
	# extown-dkms: dh_dkms (Build-Depends: dh-sequence-dkms)
	dh-dkms
	# the package checks of tests/package/run.sh
	lintian git
)

"$here/apt-ensure.sh" install-deps-packaging "${packages[@]}"
