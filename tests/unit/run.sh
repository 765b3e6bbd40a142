#!/usr/bin/env bash
# Build the extown userspace under ASan/UBSan and run the unit tests.
#
#   tests/unit/run.sh
#
# From a clean clone: autoreconf -fi, configure out of tree in build/asan
# (-fsanitize=address,undefined -fno-omit-frame-pointer in CFLAGS; -Wall
# -Wextra -Werror through --enable-werror, as -Werror in CFLAGS would break
# configure's own compiler checks), make, then every unit test program.
# stdout: exactly one line per test case, "PASS name" or "FAIL name: why",
# and no summary (tests/run counts). Build output goes to stderr and to
# build/asan/build.log. Exit status 0 unless the build itself breaks; then
# "FAIL helper.build: why" and exit 1. A test program that crashes or trips
# a sanitizer gives "FAIL helper.<program>.run: ..." after its own lines.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/asan
log=$build/build.log
mkdir -p "$build"
: >"$log"

build_fail() {
	echo "FAIL helper.build: $1 (see $log)"
	tail -n 30 "$log" >&2 || true
	exit 1
}

step() {
	# step DESCRIPTION CMD...: run CMD in $build, output to the log and stderr
	local what=$1
	shift
	if ! (cd "$build" && "$@") >>"$log" 2>&1; then
		build_fail "$what failed"
	fi
}

for tool in autoreconf pkg-config make cc; do
	command -v "$tool" >/dev/null 2>&1 ||
		build_fail "$tool not installed (run tools/install-deps-userspace.sh)"
done

(cd "$top" && autoreconf -fi) >>"$log" 2>&1 || build_fail "autoreconf -fi failed"
san="-fsanitize=address,undefined -fno-omit-frame-pointer"
step "configure" "$top/configure" --enable-werror \
	CFLAGS="-g -O1 $san" LDFLAGS="$san"
step "make" make -j"$(nproc)"
step "make check programs" make -j"$(nproc)" check TESTS=

export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:exitcode=99"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=98"

# run_prog NAME CMD...: pass the program's PASS/FAIL lines through
run_prog() {
	local name=$1 rc=0 out
	shift
	out=$("$@" 2>>"$log") || rc=$?
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) ' || true
	if [ "$rc" -ne 0 ]; then
		echo "FAIL helper.$name.run: exited with status $rc (sanitizer report or crash in $log)"
	elif ! printf '%s\n' "$out" | grep -qE '^(PASS|FAIL|SKIP) '; then
		echo "FAIL helper.$name.run: printed no test result"
	fi
}

for prog in request policy owner fstab idmap; do
	run_prog "$prog" "$build/tests/unit/test-$prog"
done

if [ -x "$build/tests/unit/test-device" ]; then
	# libumockdev-preload comes before the ASan runtime (the link order
	# check is off for this program only); GLib's one-time allocations
	# inside libumockdev are not ours to fix
	printf 'leak:libglib-2.0.so\nleak:libumockdev\n' >"$build/lsan-umockdev.supp"
	ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" \
	LSAN_OPTIONS="suppressions=$build/lsan-umockdev.supp" \
		run_prog device umockdev-wrapper "$build/tests/unit/test-device"
else
	echo "FAIL helper.udev.build: umockdev (libumockdev-dev, umockdev) not installed;" \
		"run tools/install-deps-userspace.sh"
fi

# The installed setuid binary is hardened.
"$top/tests/unit/hardening.sh" || true

# The man pages render without groff warnings.
for page in mount-helper/mount.ext4.8 mount-helper/extown.conf.5; do
	name="helper.man.$(basename "$page")_renders"
	if ! command -v groff >/dev/null 2>&1; then
		echo "FAIL $name: groff not installed (run tools/install-deps-userspace.sh)"
		continue
	fi
	warn=$(groff -man -Tutf8 -ww -z "$top/$page" 2>&1) || true
	if [ -n "$warn" ]; then
		echo "FAIL $name: $(printf '%s' "$warn" | head -n 1)"
	else
		echo "PASS $name"
	fi
done
