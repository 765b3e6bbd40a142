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
# per property. Build output in build/release/build.log. Exit 0 unless the
# build breaks ("FAIL helper.hardening.build: why", exit 1).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/release
dest=$build/destdir
log=$build/build.log
mkdir -p "$build"
rm -rf "$dest"
: >"$log"
{
	(cd "$top" && autoreconf -fi) &&
		(cd "$build" && "$top/configure" --prefix=/usr --sysconfdir=/etc --enable-werror) &&
		make -C "$build" -j"$(nproc)" &&
		make -C "$build" install DESTDIR="$dest"
} >>"$log" 2>&1 || {
	echo "FAIL helper.hardening.build: configure, make or make install failed (see $log)"
	exit 1
}

bin=$dest/usr/sbin/mount.ext4
check() { # NAME WHY CMD...
	local name=$1 why=$2
	shift 2
	if "$@"; then
		echo "PASS helper.hardening.$name"
	else
		echo "FAIL helper.hardening.$name: $why"
	fi
}
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
