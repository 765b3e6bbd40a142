#!/usr/bin/env bash
# Install the Debian packages bench/run.sh needs on top of the kernel/VM
# harness (tools/install-deps.sh) and the helper build
# (tools/install-deps-userspace.sh). Idempotent.
#
#   bench/install-deps.sh
#
# bindfs and fuse3 are copied from the host into the benchmark VM's
# initramfs (bindfs with its shared libraries, fusermount3 too).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/../tools/install-deps.sh"
"$here/../tools/install-deps-userspace.sh"
"$here/../tools/apt-ensure.sh" bench-install-deps bindfs fuse3 gcc libc6-dev
