#!/usr/bin/env bash
# Install the Debian packages the extown kernel build and VM tests need.
# Idempotent: when everything is installed already it only runs dpkg-query.
#
#   tools/install-deps.sh
set -euo pipefail

packages=(
	# kernel source and build (tools/kernel/build-kernel.sh)
	linux-source-6.1 xz-utils tar gcc make libc6-dev bc flex bison
	libelf-dev libssl-dev perl python3 ccache git util-linux coreutils
	# VM harness (tools/vm/*.sh)
	qemu-system-x86 busybox-static cpio gzip e2fsprogs dash bash file
	# lint
	shellcheck
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
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
