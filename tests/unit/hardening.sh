#!/usr/bin/env bash
# The installed mount.ext4 is a hardened setuid binary (issue 10, defect 11):
# built the way a user builds it (configure --prefix=/usr, default CFLAGS),
# installed with `make install DESTDIR=`, then read back with readelf:
# PIE, full RELRO (GNU_RELRO segment + BIND_NOW), stack protector and
# fortified libc calls, setuid root.
#
#   tests/unit/hardening.sh
#
# stdout: one "PASS helper.hardening.NAME" / "FAIL helper.hardening.NAME: why"
# per property. Built by tools/build-helper.sh; output in build/release/build.log. Exit 0 unless the
# build breaks ("FAIL helper.hardening.build: why", exit 1).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_PREFIX=helper.hardening.
build=$top/build/release
dest=$build/destdir
rm -rf "$dest"
if ! "$top/tools/build-helper.sh" --install "$dest" "$build" >/dev/null 2>&1; then
	fail_always build "configure, make or make install failed (see $build/build.log)"
	exit 1
fi

bin=$dest/usr/sbin/mount.ext4
headers=$(readelf -lhd --wide "$bin")
symbols=$(readelf --dyn-syms --wide "$bin")
check pie "ELF type is not DYN with the PIE flag" \
	grep -qE 'Type: +DYN' <<<"$headers"
check pie_flag "no FLAGS_1 PIE in the dynamic section" \
	grep -qE 'FLAGS_1.*PIE' <<<"$headers"
check relro "no GNU_RELRO segment" grep -q GNU_RELRO <<<"$headers"
check bind_now "no BIND_NOW (partial RELRO only)" \
	grep -qE '\(FLAGS\).*BIND_NOW|FLAGS_1.*NOW' <<<"$headers"
check stack_protector "__stack_chk_fail not referenced" \
	grep -q __stack_chk_fail <<<"$symbols"
check fortify "no fortified libc call (__*_chk) referenced" \
	grep -qE '__[a-z]+_chk' <<<"$symbols"
check setuid_root "installed as $(stat -c '%U %a' "$bin"), not root 4755" \
	test "$(stat -c '%u %a' "$bin")" = "0 4755"
