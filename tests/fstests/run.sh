#!/usr/bin/env bash
# fstests on ext4 in a VM on the patched kernel, twice with the same test
# list: once with fstests' own mount options ("plain") and once with
# uid=0,gid=0 added to both the scratch and the test filesystem ("uid").
# docs/fstests.md has the figures and every test whose result differs.
#
#   tests/fstests/run.sh [OPTIONS] PATH-TO-FSTESTS-CHECKOUT
#
# PATH-TO-FSTESTS-CHECKOUT  a checkout of kdave/xfstests (the commit in
#            docs/fstests.md), already built with its own `make` on Debian 12
#            (the guest is bookworm: its binaries must run there). This script
#            neither fetches nor builds fstests; it copies the checkout into
#            a copy of the guest tree.
#
# OPTIONS
#   --kernel BZIMAGE   the kernel to boot (default: the bzImage printed by
#                      tools/kernel/build-kernel.sh patched); e.g. a 6.12 one
#   --list FILE        tests to run, one per line, # comments (default
#                      tests/fstests/list; also list-users, list-quota)
#   --runs "plain uid" which runs, in this order (default both)
#   --budget MIN       per run: after MIN minutes check is sent SIGTERM,
#                      finishes the test under way and writes its summary
#                      (default 0: no budget)
#   --timeout MIN      per run: qemu is killed after MIN minutes (default
#                      budget + 40, or 180 without a budget)
#   --disk-gib N       size of TEST_DEV and SCRATCH_DEV (sparse; default 3)
#   --out DIR          results (default build/fstests/RUN-STAMP in the clone)
#
# kernel-patches/fstests/*.patch (extown's own fstests tests, e.g. ext4/309
# for uid= and gid=) are applied to the copy of the checkout that goes into
# the guest; list them in --list to run them.
#
# Per run, DIR/MODE/ gets check.out (what ./check printed), results/ (its
# results directory: check.log, check.time, ext4/*.out.bad, *.full, *.dmesg,
# *.notrun), dmesg, init.log, local.config, serial.log, and summary (counts).
# DIR/compare lists every test whose result differs between the runs.
# The kernel's config (the file `config` beside BZIMAGE, where build-kernel.sh
# leaves it) goes into the guest as fstests' KCONFIG_PATH: the quota tests
# read it.
# Needs root (chroot, images) and a Debian mirror the first time (the guest
# tree, tests/fstests/mkroot.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=fstests

kernel='' list=$top/tests/fstests/list runs='plain uid' budget=0 timeout='' gib=3 out=''
# every option takes a value
while [ $# -gt 1 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--list) list=$2 ;;
	--runs) runs=$2 ;;
	--budget) budget=$2 ;;
	--timeout) timeout=$2 ;;
	--disk-gib) gib=$2 ;;
	--out) out=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then usage; fi
fst=$(cd "$1" && pwd) || die "no directory $1"
for n in "$budget" "$gib" ${timeout:+"$timeout"}; do
	case $n in '' | *[!0-9]*) die "--budget, --timeout and --disk-gib take whole numbers" ;; esac
done
[ -n "$timeout" ] || timeout=$((budget > 0 ? budget + 40 : 180))
for r in $runs; do
	case $r in plain | uid) ;; *) die "--runs: plain and/or uid, not '$r'" ;; esac
done
[ "$(id -u)" -eq 0 ] || die "must run as root (chroot, images)"
if [ ! -x "$fst/check" ] || [ ! -d "$fst/tests/ext4" ]; then
	die "$fst is not an fstests checkout"
fi
if [ ! -x "$fst/ltp/fsstress" ] || [ ! -x "$fst/src/xfsctl" ]; then
	die "$fst is not built: run fstests' own make in it (its README) on Debian 12 first"
fi
[ -f "$list" ] || die "no test list $list"
commit=$(git -C "$fst" rev-parse HEAD 2>/dev/null || cat "$fst/.extown-fstests-commit" 2>/dev/null || echo unknown)

"$top/tools/install-deps.sh" >&2 || die "tools/install-deps.sh failed"
if [ -z "$kernel" ]; then
	kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) ||
		die "tools/kernel/build-kernel.sh patched failed"
fi
[ -f "$kernel" ] || die "no kernel $kernel"
tree=$("$top/tests/fstests/mkroot.sh" | tail -n 1) || die "tests/fstests/mkroot.sh failed"

[ -n "$out" ] || out=$top/build/fstests/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
log "fstests $commit from $fst; kernel $kernel; list $list ($(grep -vc '^#' "$list") tests); runs: $runs; results in $out"
{
	echo "fstests_commit $commit"
	echo "kernel $kernel"
	echo "kernel_sha256 $(sha256sum "$kernel" | cut -d' ' -f1)"
	echo "list $list"
	echo "budget_min $budget"
	echo "disk_gib $gib"
} >"$out/inputs"

# --- the root image: the tree, the checkout, the init -------------------
work=$out/work
rm -rf "$work"
mkdir -p "$work"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
root=$work/root
cp -a "$tree" "$root"
mkdir -p "$root/opt/fstests"
tar -C "$fst" --exclude=./.git --exclude=./results --exclude=./local.config -cf - . | tar -C "$root/opt/fstests" -xf -
# extown's own fstests tests (kernel-patches/fstests/*.patch, git
# format-patch against the fstests commit of docs/fstests.md), into the
# copy: the checkout itself is left as it is
for p in "$top"/kernel-patches/fstests/*.patch; do
	[ -f "$p" ] || continue
	if ! (cd "$root/opt/fstests" && git apply --whitespace=nowarn "$p") >&2; then
		if (cd "$root/opt/fstests" && git apply -R --check "$p") 2>/dev/null; then
			log "$(basename "$p") is already in $fst"
		else
			die "kernel-patches/fstests/$(basename "$p") does not apply to $fst"
		fi
	fi
	# check only runs tests of tests/DIR/group.list, which fstests' make
	# writes: write it again for every directory a patch adds tests to
	sed -n 's#^+++ b/tests/\([^/]*\)/[0-9][0-9]*$#\1#p' "$p" | sort -u | while read -r d; do
		(cd "$root/opt/fstests/tests/$d" && ../../tools/mkgroupfile group.list) >&2 ||
			die "tools/mkgroupfile in tests/$d failed"
	done
done
grep -v '^#' "$list" | grep . >"$root/opt/fstests/extown-list"
# the kernel's .config, for the tests that read it (_require_kernel_config:
# the quota tests); build-kernel.sh leaves it beside the bzImage
if [ -f "$(dirname "$kernel")/config" ]; then
	cp "$(dirname "$kernel")/config" "$root/opt/fstests/extown-kernel.config"
else
	log "no config beside $kernel: tests that read the kernel's config will not run"
fi
install -D -m 0755 "$top/tests/fstests/guest-init.sh" "$root/usr/local/lib/extown-fstests/init"
install -D -m 0755 "$top/tools/vm/guest-write-results.sh" "$root/usr/local/bin/extown-write-results"
size=$(du -sm "$root" | cut -f1)
mkfs.ext4 -q -F -L extown-fstests-root -d "$root" "$work/root.img" "$((size + 1024))M" >&2 ||
	die "mkfs.ext4 -d of the guest tree failed"
rm -rf "$root"

# result of every test of a run: pass, fail or notrun, from the summary
# check prints (Ran:, Not run:, Failures:). When check was stopped by the
# budget ("Interrupted!"), the last test of Ran: was under way and its result
# was never recorded: it is left out.
results_of() { # CHECK.OUT
	awk '
		/^Ran: / { for (i = 2; i <= NF; i++) r[$i] = "pass"; last = $NF }
		/^Not run: / { for (i = 3; i <= NF; i++) r[$i] = "notrun" }
		/^Failures: / { for (i = 2; i <= NF; i++) r[$i] = "fail" }
		/^Interrupted!/ { interrupted = 1 }
		END {
			if (interrupted) delete r[last]
			for (t in r) print t, r[t]
		}' "$1" | sort
}

# --- one VM per run -------------------------------------------------------
for mode in $runs; do
	d=$out/$mode
	rm -rf "$d"
	mkdir -p "$d"
	for disk in test scratch; do
		rm -f "$work/$disk.img"
		truncate -s "${gib}G" "$work/$disk.img"
	done
	# TEST_DEV must hold an ext4 already; check makes SCRATCH_DEV itself
	mkfs.ext4 -q -F "$work/test.img" >&2
	log "run $mode: booting (budget ${budget} min, timeout ${timeout} min)"
	start=$SECONDS
	rc=0
	EXTOWN_RESULTS_MB=512 "$top/tools/vm/run-vm.sh" --out "$d/vm" --memory 2048 \
		--append "root=/dev/vdb rw rootfstype=ext4 init=/usr/local/lib/extown-fstests/init" \
		--args "$mode,$((budget * 60))" \
		"$kernel" none "$work/root.img:snapshot" "$work/test.img" "$work/scratch.img" \
		$((timeout * 60)) >/dev/null || rc=$?
	echo $((SECONDS - start)) >"$d/seconds"
	log "run $mode: run-vm status $rc after $((SECONDS - start)) s"
	g=$d/vm/guest
	for f in check.out dmesg init.log local.config uname TIMEOUT; do
		[ ! -e "$g/$f" ] || cp "$g/$f" "$d/"
	done
	cp "$d/vm/serial.log" "$d/" 2>/dev/null || true
	if [ -f "$g/results.tar.gz" ]; then
		tar -C "$d" -xzf "$g/results.tar.gz"
	fi
	rm -rf "$d/vm/guest"
	results_of "$d/check.out" >"$d/per-test"
	awk -v mode="$mode" '{ n[$2]++ }
		END {
			printf "%s ran %d passed %d failed %d not_run %d\n", mode,
				n["pass"] + n["fail"], n["pass"], n["fail"], n["notrun"]
		}' "$d/per-test" >"$d/summary"
	log "run $mode: $(cat "$d/summary")"
done

# --- the differences -----------------------------------------------------
if [ -f "$out/plain/per-test" ] && [ -f "$out/uid/per-test" ]; then
	join -a1 -a2 -e missing -o 0,1.2,2.2 "$out/plain/per-test" "$out/uid/per-test" |
		awk '$2 != $3 { print $1, "plain=" $2, "uid=" $3 }' >"$out/compare"
	log "$(wc -l <"$out/compare") tests differ between the runs (see $out/compare)"
fi
cat "$out"/*/summary
echo "$out"
