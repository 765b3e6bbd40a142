#!/usr/bin/env bash
# Install the Debian packages the extown kernel build and VM tests need.
# Idempotent: when everything is installed already it only runs dpkg-query.
#
#   tools/install-deps.sh
set -euo pipefail

here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib/harness.sh
. "$here/../tests/lib/harness.sh"
# shellcheck source=tests/lib/bases.sh
. "$here/../tests/lib/bases.sh"
# the kernel source of every base of tools/kernel/bases that comes from
# the machine's apt sources (linux-source-6.12 from bookworm-security);
# the others (7.3; on a Debian 13 host also linux-source-6.1, which only
# Debian 12 has) are fetched into the cache by tools/kernel/fetch-source.sh
# (below, once the tools it uses are here)
packages=() fetched=()
for b in $(bases_listed); do
	if base_from_host_apt "$b"; then
		packages+=("$(base_field "$b" package)")
	else
		fetched+=("$b")
	fi
done
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
for b in "${fetched[@]}"; do
	"$here/kernel/fetch-source.sh" "$b" >/dev/null
done
