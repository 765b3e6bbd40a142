#!/usr/bin/env bash
# Build the extown userspace under ASan/UBSan and run the unit tests.
#
#   tests/unit/run.sh
#   EXTOWN_TEST_FILTER='H4 hardening' tests/unit/run.sh
#
# From a clean clone: autoreconf -fi, configure out of tree in build/asan
# (-fsanitize=address,undefined -fno-omit-frame-pointer in CFLAGS; -Wall
# -Wextra -Werror through --enable-werror, as -Werror in CFLAGS would break
# configure's own compiler checks), make, then every unit test program.
# stdout: exactly one line per test case, "PASS name" or "FAIL name: why",
# and no summary (tests/run counts). Build output goes to stderr and to
# build/asan/build.log. Exit status 0 unless the build itself breaks; then
# "FAIL helper.build: why" and exit 1. A test program exits 0, 1 (it
# printed FAIL lines) or 77 (none of its tests ran; tests/unit/tap.h); any
# other status, or 1 without a FAIL line, is a crash or a sanitizer report:
# "FAIL helper.<program>.run: ..." after the program's own lines.
#
# Then the same run in a copy of each other release's build tree
# (tools/in-build-root.sh: that release's compiler and libmount, e.g.
# trixie's libmount 2.41 beside the host's 2.38), its tests named with the
# release after "helper." (helper.trixie.H3.unbalanced_quotes_detected), its
# build in build/RELEASE/asan. EXTOWN_RELEASES (tests/lib/releases.sh) picks
# the releases; the host's own is the run above. EXTOWN_RELEASE is set
# inside such a tree (the run there does not recurse).
#
# EXTOWN_TEST_FILTER (space-separated patterns, set by tests/run
# SUITE:PATTERN): only the tests whose name contains one of them, read as a
# glob, as tests/run reads it. The test programs get the patterns as
# arguments; the hardening and man page checks here are selected by their
# names the same way. Unset or empty: every test.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
build=$top/build/asan
log=$build/build.log
mkdir -p "$build"
: >"$log"

build_fail() {
	fail_always helper.build "$1 (see $log)"
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

read -r -a patterns <<<"${EXTOWN_TEST_FILTER:-}"

export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:exitcode=99"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=98"

# run_prog NAME CMD...: the program (given the patterns) and its PASS/FAIL
# lines; exit 1 with FAIL lines is the tests' verdict, not a crash
run_prog() {
	local name=$1 rc=0 out
	shift
	out=$("$@" "${patterns[@]}" 2>>"$log") || rc=$?
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) ' || true
	case $rc in
	0 | 77) ;;
	1) printf '%s\n' "$out" | grep -q '^FAIL ' ||
		fail_always "helper.$name.run" "exited with status 1 and no FAIL line (crash in $log)" ;;
	*) fail_always "helper.$name.run" "exited with status $rc (sanitizer report or crash in $log)" ;;
	esac
	if [ "$rc" -eq 0 ] && [ "${#patterns[@]}" -eq 0 ] &&
		! printf '%s\n' "$out" | grep -qE '^(PASS|FAIL|SKIP) '; then
		fail_always "helper.$name.run" "printed no test result"
	fi
	return 0
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
	fail helper.udev.build "umockdev (libumockdev-dev, umockdev) not installed; run tools/install-deps-userspace.sh"
fi

# The installed setuid binary is hardened (a release build: only when one
# of its checks is selected).
hardening_names="build pie pie_flag relro bind_now stack_protector fortify setuid_root"
for h in $hardening_names; do
	if t_selected "helper.hardening.$h"; then
		"$top/tests/unit/hardening.sh" || true
		break
	fi
done

# The man pages render without groff warnings.
for page in mount-helper/mount.ext4.8 mount-helper/extown.conf.5; do
	name="helper.man.$(basename "$page")_renders"
	t_selected "$name" || continue
	if ! command -v groff >/dev/null 2>&1; then
		fail "$name" "groff not installed (run tools/install-deps-userspace.sh)"
		continue
	fi
	warn=$(groff -man -Tutf8 -ww -z "$top/$page" 2>&1) || true
	if [ -n "$warn" ]; then
		fail "$name" "$(printf '%s' "$warn" | head -n 1)"
	else
		pass "$name"
	fi
done

# The same tests against each other release's libmount and compiler.
if [ -z "${EXTOWN_RELEASE:-}" ]; then
	# shellcheck source=tests/lib/releases.sh
	. "$top/tests/lib/releases.sh"
	for rel in $(releases_in_build_roots); do
		mkdir -p "$top/build/$rel"
		rc=0
		"$top/tools/in-build-root.sh" "$rel" "$top/tests/unit/run.sh" \
			>"$top/build/$rel/unit.out" 2>"$top/build/$rel/unit.log" || rc=$?
		release_child_result "$rel" helper "$top/build/$rel/unit.out" "$rc" "$top/build/$rel/unit.log"
	done
fi
