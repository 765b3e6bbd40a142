#!/usr/bin/env bash
# libFuzzer runs over the mount helper's pure parsing and decision code:
#   fuzz-request  argv (request_parse), H4 id check, a user's merged options,
#                 then the owner rewriting (mount-helper/request.c, owner.c)
#   fuzz-policy   /etc/extown.conf parser, then owner decisions (policy.c)
#   fuzz-owner    owner decision and option rewriting (owner.c)
# Each target is built with clang -fsanitize=fuzzer,address,undefined and
# checks properties (tests/fuzz/oracle.h) besides memory safety: e.g. no
# uid=/gid= the kernel would parse from the helper's final options belongs
# to anybody but the caller; an added owner always comes with nosuid,nodev.
#
#   tests/fuzz/run.sh
#
# Environment:
#   EXTOWN_FUZZ_SECONDS  fuzzing time per release, split evenly between the
#                        targets (default 60)
#   EXTOWN_FUZZ_JOBS     libFuzzer -jobs/-workers per target (default 1)
#   EXTOWN_RELEASES      the releases (tests/lib/releases.sh; default all
#                        of tools/releases)
# The host's run is followed by the same run in a copy of each other
# release's build tree (tools/in-build-root.sh: its clang and its libmount,
# which reads option strings its own way: 2.41 reads "\," as an escaped
# comma, 2.38 does not), named fuzz.RELEASE.TARGET.* (fuzz.trixie.owner.
# no_crash), its files in build/RELEASE/fuzz/. EXTOWN_RELEASE is set inside
# such a tree (no recursion).
# Seed corpus: tests/fuzz/corpus/TARGET/ (committed, small). Inputs found
# during the run go to build/fuzz/corpus/TARGET/ (kept between runs, not
# committed); a crash leaves build/fuzz/artifacts/TARGET-crash-*.
# Known reproducers: tests/fuzz/known/TARGET-NAME, inputs that once found a
# bug, each replayed on its own (fuzz.TARGET.known.TARGET-NAME).
#
# EXTOWN_FUZZ_BREAK=append-check builds the targets from a copy of
# mount-helper/ in which opts_append() no longer reads back what it
# appended (the defence against options that swallow what is appended: an
# unpaired '"', a trailing backslash for libmount 2.40+), replays the seeds
# and the known reproducers only (no timed run), and so shows that each
# reproducer catches that bug (tests/breaks/run.sh).
#
# stdout: "PASS fuzz.TARGET.seed_corpus" (every seed runs clean),
# "PASS fuzz.TARGET.known.NAME" (the reproducer runs clean),
# "PASS fuzz.TARGET.no_crash" (the timed run found nothing), or FAIL lines
# with the reason; figures (execs, coverage) on stderr. Exit 0 whatever the
# tests say, 1 when the build broke ("FAIL fuzz.build: why").
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=fuzz harness_test=fuzz
out=$top/build/fuzz
seconds=${EXTOWN_FUZZ_SECONDS:-60}
jobs=${EXTOWN_FUZZ_JOBS:-1}
case $seconds$jobs in '' | *[!0-9]*)
	harness_fail "EXTOWN_FUZZ_SECONDS and EXTOWN_FUZZ_JOBS must be numbers"
	;;
esac
targets=(request policy owner)
per_target=$((seconds / ${#targets[@]}))
[ "$per_target" -ge 1 ] || per_target=1
mkdir -p "$out/artifacts"

build_fail() {
	fail_always fuzz.build "$*"
	exit 1
}
command -v clang >/dev/null 2>&1 || build_fail "clang not installed (tools/install-deps-userspace.sh)"
# the helper's sources the targets are built from
src=$top/mount-helper
break_what=${EXTOWN_FUZZ_BREAK:-}
case $break_what in
'') ;;
append-check)
	log "BROKEN ON PURPOSE: opts_append() without its read-back check"
	src=$out/broken-src
	rm -rf "$src"
	cp -r "$top/mount-helper" "$src"
	sed -i 's/!last_option_is(copy, name, val)/false/' "$src/optstr.c"
	! cmp -s "$top/mount-helper/optstr.c" "$src/optstr.c" ||
		harness_fail "EXTOWN_FUZZ_BREAK=append-check: opts_append() no longer has the check it removes (update tests/fuzz/run.sh)"
	;;
*) harness_fail "EXTOWN_FUZZ_BREAK must be append-check" ;;
esac
mount_cflags=$(pkg-config --cflags mount) || build_fail "pkg-config mount failed (libmount-dev)"
mount_libs=$(pkg-config --libs mount)

for t in "${targets[@]}"; do
	# shellcheck disable=SC2086 # pkg-config output is a list of flags
	clang -std=gnu11 -g -O1 -Wall -Wextra -Werror \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$src" $mount_cflags \
		-o "$out/fuzz-$t" "$top/tests/fuzz/fuzz-$t.c" \
		"$src/request.c" "$src/optstr.c" "$src/restricted.c" "$src/msg.c" \
		"$src/policy.c" "$src/owner.c" $mount_libs >&2 ||
		build_fail "clang could not build tests/fuzz/fuzz-$t.c"
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

for t in "${targets[@]}"; do
	seeds=$top/tests/fuzz/corpus/$t
	bin=$out/fuzz-$t
	log=$out/$t.log

	# Every committed seed runs once, clean.
	if t_selected "fuzz.$t.seed_corpus"; then
		if "$bin" -runs=0 "$seeds" >"$out/$t.seeds.log" 2>&1; then
			pass "fuzz.$t.seed_corpus"
		else
			fail "fuzz.$t.seed_corpus" "$(grep -m 1 -E 'ERROR|violated|runtime error' "$out/$t.seeds.log" || echo 'non-zero exit') (log $out/$t.seeds.log)"
		fi
	fi

	# Every known reproducer of the target runs once, clean.
	for k in "$top/tests/fuzz/known/$t"-*; do
		[ -f "$k" ] || continue
		name=fuzz.$t.known.${k##*/}
		t_selected "$name" || continue
		if "$bin" "$k" >"$out/known-${k##*/}.log" 2>&1; then
			pass "$name"
		else
			fail "$name" "$(grep -m 1 -E 'ERROR|violated|runtime error' "$out/known-${k##*/}.log" || echo 'non-zero exit') (log $out/known-${k##*/}.log)"
		fi
	done

	[ -z "$break_what" ] || continue
	t_selected "fuzz.$t.no_crash" || continue

	mkdir -p "$out/corpus/$t"
	rm -f "$out/artifacts/$t-"*
	rc=0
	"$bin" -max_total_time="$per_target" -timeout=10 -rss_limit_mb=2048 \
		-max_len=512 -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
		-artifact_prefix="$out/artifacts/$t-" \
		"$out/corpus/$t" "$seeds" >"$log" 2>&1 || rc=$?
	[ "$jobs" -le 1 ] || cat fuzz-*.log >>"$log" 2>/dev/null || true
	rm -f fuzz-[0-9]*.log
	execs=$(awk '/stat::number_of_executed_units/ { s += $2 } END { print s + 0 }' "$log")
	cov=$(grep -oE '(DONE|#[0-9]+).* cov: [0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+' || true)
	echo "fuzz: $t: $per_target s, $execs execs, ${cov:-cov: ?}, exit $rc" >&2
	artifacts=$(find "$out/artifacts" -name "$t-*" -type f | head -n 3 | tr '\n' ' ')
	if [ "$rc" -eq 0 ] && [ -z "$artifacts" ] && [ "$execs" -gt 0 ]; then
		pass "fuzz.$t.no_crash"
	else
		fail "fuzz.$t.no_crash" "exit $rc, $execs execs, artifacts: ${artifacts:-none}; $(grep -m 1 -E 'ERROR|violated|runtime error' "$log" || true) (log $log)"
	fi
done

# The same targets against each other release's libmount.
if [ -z "${EXTOWN_RELEASE:-}" ]; then
	# shellcheck source=tests/lib/releases.sh
	. "$top/tests/lib/releases.sh"
	for rel in $(releases_in_build_roots); do
		mkdir -p "$top/build/$rel"
		rc=0
		"$top/tools/in-build-root.sh" "$rel" /usr/bin/env EXTOWN_FUZZ_BREAK="$break_what" "$top/tests/fuzz/run.sh" \
			>"$top/build/$rel/fuzz.out" 2>"$top/build/$rel/fuzz.log" || rc=$?
		grep '^fuzz: ' "$top/build/$rel/fuzz.log" | sed "s/^fuzz: /fuzz: $rel: /" >&2 || true
		release_child_result "$rel" fuzz "$top/build/$rel/fuzz.out" "$rc" "$top/build/$rel/fuzz.log"
	done
fi
