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
exec "$(dirname "${BASH_SOURCE[0]}")/../apt-ensure.sh" install-deps-e2e "${packages[@]}"
