#!/usr/bin/env bash
# Install the Debian packages the extown kernel build and VM tests need.
# Idempotent: when everything is installed already it only runs dpkg-query.
#
#   tools/install-deps.sh
set -euo pipefail

packages=(
	# kernel source and build (tools/kernel/build-kernel.sh)
	# (linux-source-6.12 comes from bookworm-security)
	linux-source-6.1 linux-source-6.12 xz-utils tar gcc make libc6-dev bc flex bison
	libelf-dev libssl-dev perl python3 ccache git util-linux coreutils
	# VM harness (tools/vm/*.sh)
	qemu-system-x86 busybox-static cpio gzip e2fsprogs dash bash file
	# lint
	shellcheck
)

"$(dirname "${BASH_SOURCE[0]}")/apt-ensure.sh" install-deps "${packages[@]}"
