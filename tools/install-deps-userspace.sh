#!/usr/bin/env bash
# Install the Debian packages the extown userspace build (mount.ext4 helper)
# and its unit tests (tests/unit/run.sh) need. Idempotent: when everything is
# installed already it only runs dpkg-query.
#
#   tools/install-deps-userspace.sh
set -euo pipefail

packages=(
	# autotools build (configure.ac, Makefile.am)
	autoconf automake pkg-config make gcc libc6-dev
	# libraries of the helper (pkg-config mount, libudev)
	libmount-dev libudev-dev
	# udev look-up tests against a fake udev database (libumockdev +
	# umockdev-wrapper); GLib for the umockdev API
	libumockdev-dev umockdev libglib2.0-dev
	# man page rendering check (groff), shell lint
	groff-base shellcheck
	# real-world loop mount checks (mkfs.ext4, losetup, mount(8))
	e2fsprogs util-linux mount
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case $status in
	ii*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps-userspace: all ${#packages[@]} packages present"
	exit 0
fi
echo "install-deps-userspace: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps-userspace: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
