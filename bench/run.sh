#!/usr/bin/env bash
# extown benchmarks (issue 5): the cost of uid=/gid= against a plain ext4
# mount, bindfs and an idmapped mount, measured side by side in one VM run
# on the patched kernel, plus the mount helper's added latency. Prints a
# table of medians, min-max and ratios; asserts no times.
#
#   bench/run.sh [--out DIR]
#
# Needs: bench/install-deps.sh (bindfs, fuse3 on top of the kernel/VM and
# helper build dependencies). Builds the patched kernel if it is not cached
# (tools/kernel/build-kernel.sh), bench/benchtool.c (static) and the
# mount.ext4 helper (out of tree), makes the image on the host with
# `mke2fs -d` (FILES empty files in /tree, a 1777 scratch dir /w, all
# 1234:1234 on disk), boots the busybox VM (tools/vm) with it and runs
# bench/guest.sh there (it documents the workloads and the order).
#
# Configurations (each on the same image, same VM):
#   plain   mount -t ext4 DEV DIR                          (the baseline)
#   uid     -o uid=1000,gid=1000
#   split   -o uid=1000:2000,gid=1000:2000                 (presented 1000,
#                                                          new inodes 2000)
#   bindfs  bindfs --force-user=1000 --force-group=1000 over a plain mount
#   idmap   idmapped bind mount of a plain mount, 1234->1000 (uid and gid;
#           benchtool idmap: open_tree + mount_setattr(MOUNT_ATTR_IDMAP))
#   fallback mount.ext4 -o uid=1000,gid=1000 with the kernel's feature file
#           hidden: the helper's idmapped-mount fallback (fsmount + a
#           one-way map 1234->1000, identity elsewhere but 1000)
#
# Environment (defaults = the figures of docs/benchmarks.md; smaller
# values for development):
#   BENCH_FILES=100000   files in the stat-walk tree
#   BENCH_CREATE=20000   files per create run
#   BENCH_MIB=512        MiB of the sequential write/read
#   BENCH_REPS=5         repetitions of every workload on every config
#   BENCH_MOUNTS=200     mounts with and without the helper (0: skip)
#   BENCH_CONFIGS=plain+uid+split+bindfs+idmap+fallback
#   BENCH_MEMORY=2048    guest memory, MB
#   BENCH_TIMEOUT=7200   seconds before the VM is killed
#   BENCH_KERNEL=PATH    boot this bzImage instead of asking
#                        tools/kernel/build-kernel.sh patched (e.g. while
#                        another build-kernel.sh runs: it must not run twice)
#   EXTOWN_KEEP=1        keep the work directory
#
# Output: the table on stdout (Markdown); --out DIR also keeps raw.txt,
# detail.txt, env.txt, table.md, loadavg.txt (the host's load every 30 s
# during the VM run) and the VM's results there.
# Exit status 0 when the VM ran and every sanity check passed, 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	*)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done

files=${BENCH_FILES:-100000}
create=${BENCH_CREATE:-20000}
mib=${BENCH_MIB:-512}
reps=${BENCH_REPS:-5}
mounts=${BENCH_MOUNTS:-200}
configs=${BENCH_CONFIGS:-plain+uid+split+bindfs+idmap+fallback}
memory=${BENCH_MEMORY:-2048}
timeout=${BENCH_TIMEOUT:-7200}
for v in "$files" "$create" "$mib" "$reps" "$mounts" "$memory" "$timeout"; do
	case $v in '' | *[!0-9]*) echo "bench: BENCH_* sizes must be numbers, got '$v'" >&2; exit 2 ;; esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/extown-bench.XXXXXX")
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() { if [ -z "${EXTOWN_KEEP:-}" ]; then rm -rf "$work"; else echo "bench: work directory kept: $work" >&2; fi; }
trap cleanup EXIT
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=bench

command -v bindfs >/dev/null || die "bindfs missing: run bench/install-deps.sh"

if [ -n "${BENCH_KERNEL:-}" ]; then
	kernel=$BENCH_KERNEL
else
	kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) || die "tools/kernel/build-kernel.sh patched failed"
fi
[ -f "$kernel" ] || die "build-kernel.sh gave no bzImage"

gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$work/benchtool" "$top/bench/benchtool.c" ||
	die "cannot build bench/benchtool.c"

helper=()
if [ "$mounts" -gt 0 ] || [[ "+$configs+" == *+fallback+* ]]; then
	log "building mount.ext4 (tools/build-helper.sh)"
	"$top/tools/build-helper.sh" "$work/helper" >/dev/null || die "cannot build mount.ext4 (EXTOWN_KEEP=1 keeps $work/helper/build.log)"
	helper=(--file "$work/helper/mount.ext4")
fi

log "image: $files files in /tree"
mkdir -p "$work/root"
"$work/benchtool" mktree "$work/root/tree" "$files" 1234 1234
mkdir -m 1777 "$work/root/w"
chown 1234:1234 "$work/root/w"
# Room for the tree, one create run, the big file; inode tables written
# now (no ext4lazyinit thread running during the measurements).
inodes=$((files + create + 10000))
size_mib=$((mib + (files + create) * 4 / 1024 + 512))
mke2fs -q -F -t ext4 -N "$inodes" -E root_owner=1234:1234,lazy_itable_init=0,lazy_journal_init=0 \
	-d "$work/root" "$work/bench.img" "${size_mib}M" || die "mke2fs failed"
rm -rf "$work/root"

"$top/tools/vm/mkinitramfs.sh" --file "$work/benchtool" "${helper[@]}" --file "$(command -v bindfs)" \
	--file "$top/tests/lib/results.sh" \
	"$work/initramfs.cpio.gz" "$top/bench/guest.sh" >/dev/null || die "tools/vm/mkinitramfs.sh failed"
# bindfs lands in /tests/ (with libfuse2); guest.sh finds it on PATH there.
vmdir=${out:-$work/vm}
[ -n "$out" ] && vmdir=$out/vm
log "VM: $configs x $reps reps (files=$files create=$create mib=$mib mounts=$mounts), timeout ${timeout}s"
# The host's load average every 30 s while the VM runs (other jobs on the
# machine show up here; the VM itself adds about 1-2).
(
	while :; do
		echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
		sleep 30
	done
) >"$work/loadavg.txt" &
sampler=$!
rc=0
"$top/tools/vm/run-vm.sh" --out "$vmdir" --memory "$memory" \
	--args "$files,$create,$mib,$reps,$mounts,$configs" \
	"$kernel" "$work/initramfs.cpio.gz" "$work/bench.img" "$timeout" >/dev/null || rc=$?
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
g=$vmdir/guest/guest
[ -s "$g/raw.txt" ] || die "the VM wrote no measurements (run-vm status $rc); serial log: $vmdir/serial.log"

{
	"$top/bench/summarize.sh" "$g" "$(cat "$vmdir/accel")"
	echo
	echo "VM wall time $(cat "$vmdir/boot-seconds") s; host load average (1 min) during the run:" \
		"$(awk '{ print $2 }' "$work/loadavg.txt" | LC_ALL=C sort -g | sed -n '1p;$p' | paste -sd- -)" \
		"($(wc -l <"$work/loadavg.txt") samples, every 30 s)."
} >"$work/table.md"
cat "$work/table.md"
if [ -n "$out" ]; then
	cp "$g/raw.txt" "$g/detail.txt" "$g/env.txt" "$g/results" "$work/table.md" "$work/loadavg.txt" "$out/"
fi
status=0
if grep -q '^FAIL' "$g/results" || [ "$rc" -ne 0 ]; then
	log "sanity checks or the VM failed (run-vm status $rc):"
	grep '^FAIL' "$g/results" >&2 || true
	status=1
fi
exit "$status"
