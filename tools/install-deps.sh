#!/usr/bin/env bash
# Install the Debian packages the extown kernel build and VM tests need.
# Idempotent: when everything is installed already it only runs dpkg-query.
#
#   tools/install-deps.sh
set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
# the kernel source of every base (tools/kernel/bases; linux-source-6.12
# comes from bookworm-security)
mapfile -t packages < <(awk '!/^#/ && NF { print $2 }' "$here/kernel/bases")
packages+=(
	# the kernel build (tools/kernel/build-kernel.sh)
	xz-utils tar gcc make libc6-dev bc flex bison
	libelf-dev libssl-dev perl python3 ccache git util-linux coreutils
	# VM harness (tools/vm/*.sh)
	qemu-system-x86 busybox-static cpio gzip e2fsprogs dash bash file
	# lint
	shellcheck
)

"$here/apt-ensure.sh" install-deps "${packages[@]}"
