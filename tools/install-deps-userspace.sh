#!/usr/bin/env bash
# Install the Debian packages the extown userspace build (mount.ext4 helper)
# and its unit tests (tests/unit/run.sh) need. Idempotent: when everything is
# installed already it only runs dpkg-query.
#
#   tools/install-deps-userspace.sh
set -euo pipefail

packages=(
	# autotools build (configure.ac, Makefile.am)
	autoconf automake pkgconf make gcc libc6-dev
	# libraries of the helper (pkg-config mount, libudev)
	libmount-dev libudev-dev
	# udev look-up tests against a fake udev database (libumockdev +
	# umockdev-wrapper); GLib for the umockdev API
	libumockdev-dev umockdev libglib2.0-dev
	# man page rendering check (groff), shell lint
	groff-base shellcheck
	# real-world loop mount checks (mkfs.ext4, losetup, mount(8))
	e2fsprogs util-linux mount
	# libFuzzer targets of tests/fuzz/run.sh (the release's clang: 14 on
	# Debian 12, 19 on Debian 13; the fuzzer and sanitizer runtimes are in
	# libclang-rt-dev, which depends on the matching libclang-rt-N-dev)
	clang libclang-rt-dev
)

"$(dirname "${BASH_SOURCE[0]}")/apt-ensure.sh" install-deps-userspace "${packages[@]}"
