#!/usr/bin/env bash
# Install the Debian packages the end-to-end tests need on the host, on top
# of tools/install-deps.sh (kernel, qemu) and tools/install-deps-userspace.sh
# (helper build). Idempotent: when everything is there it only runs dpkg-query.
#
#   tools/e2e/install-deps.sh
set -euo pipefail

packages=(
	# the guest root tree (tools/e2e/mkroot.sh)
	debootstrap debian-archive-keyring
	# QEMU monitor over a unix socket (hot-plug)
	socat
	# images and on-disk checks on the host (sfdisk: a partitioned stick)
	e2fsprogs coreutils fdisk
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
	echo "install-deps-e2e: all ${#packages[@]} packages present"
	exit 0
fi
echo "install-deps-e2e: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps-e2e: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
