#!/usr/bin/env bash
# Boot an extown test VM and collect its results. The only qemu command
# line of the project.
#
#   tools/vm/run-vm.sh [OPTIONS] KERNEL INITRAMFS [DISK...] TIMEOUT
#
# KERNEL     bzImage (tools/kernel/build-kernel.sh)
# INITRAMFS  cpio.gz (tools/vm/mkinitramfs.sh), or "none" to boot a root
#            disk (give e.g. --append "root=/dev/vdb rw"); such a guest runs
#            tools/vm/guest-write-results.sh itself before powering off
# DISK       raw images, attached read-write as virtio-blk /dev/vdb, /dev/vdc,
#            ... in the order given (/dev/vda is the results disk). Append
#            ":ro" to attach one read-only, ":snapshot" to discard writes.
# TIMEOUT    seconds before qemu is killed
#
# OPTIONS
#   --out DIR        where to put the results (default: a new directory
#                    under ${TMPDIR:-/tmp}); must be empty or absent
#   --args A,B,C     passed to every guest script as arguments (extown.args=)
#   --append STR     extra kernel command line
#   --memory MB      guest memory (default 1024)
#   --qmp SOCK       QEMU's QMP on unix socket SOCK, plus a qemu-xhci USB
#                    controller (id xhci) for hot-plugging sticks
#                    (tests/lib/qemu.sh: usb_plug)
#   --usb-disk IMG   attach raw image IMG (":ro", ":snapshot" as for DISK) as
#                    a USB mass-storage disk (usb-storage on a qemu-xhci
#                    controller, id xhci) present from boot, /dev/sda for
#                    the first; repeatable. A root disk on USB: --append
#                    "root=/dev/sda rootwait" (tests/e2e rootusb flavour)
#   --pidfile FILE   qemu writes its own pid to FILE (qemu -pidfile), for
#                    tests that kill it from outside (tests/reliability
#                    power cut: SIGKILL; run-vm then exits 1, "qemu killed")
#
# Results directory (its path is the last line printed on stdout):
#   serial.log        the guest's serial console
#   accel             the accelerator qemu ran with (tcg; EXTOWN_ACCEL=kvm
#                     tries KVM, see docs/vm.md)
#   qemu.cmdline      the command line used
#   boot-seconds      wall time from qemu start to power-off
#   guest/            what the guest wrote to /results:
#     NAME/results    test lines of guest script NAME.sh (PASS/FAIL/SKIP)
#     NAME/log        its stdout+stderr; NAME/rc its exit status
#     NAME/...        any other files the script wrote to its OUTDIR
#     dmesg           the whole kernel log since boot
#     dmesg.tail      `dmesg` at the end; guest-info: cmdline and uname -a
#     DONE            present when every script ran; TIMEOUT when the guest
#                     watchdog fired first
#
# Exit status: 0 when the guest powered off and its results were read
# (whatever the tests said), 1 on a harness failure (timeout, kernel
# panic, no results), 2 on usage errors. Test verdicts are in the files.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG='run-vm'

outdir='' guest_args='' append='' memory=1024 qmp='' pidfile=''
usb_disks=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) outdir=$2; shift 2 ;;
	--args) guest_args=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--memory) memory=$2; shift 2 ;;
	--qmp) qmp=$2; shift 2 ;;
	--pidfile) pidfile=$2; shift 2 ;;
	--usb-disk) usb_disks+=("$2"); shift 2 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || usage
kernel=$1 initrd=$2
shift 2
disks=("${@:1:$#-1}")
timeout=${!#}
case $timeout in '' | *[!0-9]*) die "TIMEOUT must be a number of seconds, got '$timeout'" ;; esac
[ -f "$kernel" ] || die "no kernel $kernel"
[ "$initrd" = none ] || [ -f "$initrd" ] || die "no initramfs $initrd"
case $guest_args in *' '*) die "--args must not contain spaces (use commas)" ;; esac

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/extown-vm.XXXXXX")
else
	mkdir -p "$outdir"
	[ -z "$(ls -A "$outdir")" ] || die "--out $outdir is not empty"
fi
outdir=$(cd "$outdir" && pwd)

results_img=$outdir/results.img
truncate -s "${EXTOWN_RESULTS_MB:-16}M" "$results_img"

# drive_opt IMG[:ro|:snapshot]: the -drive options of a raw image, without if=
drive_opt() {
	local d=$1 img=${1%:*} mode=rw opt
	case $d in
	*:ro) mode=ro ;;
	*:snapshot) mode=snapshot ;;
	*) img=$d ;;
	esac
	[ -f "$img" ] || die "no disk image $img"
	opt="file=$img,format=raw"
	case $mode in
	ro) opt="$opt,readonly=on" ;;
	snapshot) opt="$opt,snapshot=on" ;;
	esac
	echo "$opt"
}
drives=(-drive "file=$results_img,format=raw,if=virtio,cache=unsafe")
for d in "${disks[@]}"; do
	opt=$(drive_opt "$d") || exit 1
	drives+=(-drive "$opt,if=virtio")
done
usb=()
n=0
for d in "${usb_disks[@]}"; do
	opt=$(drive_opt "$d") || exit 1
	usb+=(-drive "$opt,if=none,id=usbdisk$n" -device "usb-storage,bus=xhci.0,drive=usbdisk$n")
	n=$((n + 1))
done

accel=${EXTOWN_ACCEL:-tcg}
case $accel in
tcg) accel_opt=tcg,thread=multi ;;
kvm) accel_opt=kvm ;;
*) die "EXTOWN_ACCEL must be tcg or kvm" ;;
esac
echo "$accel" >"$outdir/accel"

# The guest writes partial results a little before the host kills it.
deadline=$((timeout > 20 ? timeout - 10 : timeout * 3 / 4))
cmdline="console=ttyS0 quiet panic=-1 extown.deadline=$deadline"
[ -n "$guest_args" ] && cmdline="$cmdline extown.args=$guest_args"
[ -n "$append" ] && cmdline="$cmdline $append"

qemu=(qemu-system-x86_64 -accel "$accel_opt" -smp 2 -m "$memory"
	-nographic -no-reboot -nodefaults -serial "file:$outdir/serial.log"
	-kernel "$kernel" -append "$cmdline" "${drives[@]}")
[ "$initrd" = none ] || qemu+=(-initrd "$initrd")
if [ -n "$qmp" ]; then
	qemu+=(-qmp "unix:$qmp,server=on,wait=off")
fi
if [ -n "$qmp" ] || [ ${#usb[@]} -gt 0 ]; then
	qemu+=(-device "qemu-xhci,id=xhci" "${usb[@]}")
fi
[ -z "$pidfile" ] || qemu+=(-pidfile "$pidfile")
printf '%q ' "${qemu[@]}" >"$outdir/qemu.cmdline"
echo >>"$outdir/qemu.cmdline"

echo "run-vm: booting $(basename "$kernel") with accel=$accel, ${#disks[@]} disk(s)$([ ${#usb_disks[@]} -eq 0 ] || echo ", ${#usb_disks[@]} USB disk(s)"), timeout ${timeout}s" >&2
start=$(date +%s.%N)
rc=0
timeout -k 5 "$timeout" "${qemu[@]}" </dev/null >"$outdir/qemu.out" 2>&1 || rc=$?
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
echo "$secs" >"$outdir/boot-seconds"
echo "run-vm: qemu exited with status $rc after ${secs}s" >&2

# Unpack what the guest wrote to /dev/vda, if anything.
extract() {
	local header magic version len
	header=$(head -c 512 "$results_img" | tr -d '\0' | head -n 1)
	read -r magic version len <<<"$header" || true
	[ "$magic" = EXTOWN-RESULTS ] && [ "$version" = 1 ] || return 1
	case $len in '' | *[!0-9]*) return 1 ;; esac
	mkdir -p "$outdir/guest"
	dd if="$results_img" of="$outdir/results.tar" bs=512 skip=1 count=$(((len + 511) / 512)) status=none
	truncate -s "$len" "$outdir/results.tar"
	tar -x -C "$outdir/guest" --no-same-owner -f "$outdir/results.tar"
	rm -f "$outdir/results.tar"
}
extracted=yes
extract || extracted=no

problem=''
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	problem="guest did not power off within ${timeout}s: qemu killed"
elif grep -q 'Kernel panic' "$outdir/serial.log" 2>/dev/null; then
	problem="kernel panic: $(grep -m1 'Kernel panic' "$outdir/serial.log")"
elif [ "$rc" -ne 0 ]; then
	problem="qemu failed with status $rc: $(tail -n 3 "$outdir/qemu.out" | tr '\n' ' ')"
elif [ "$extracted" = no ]; then
	problem="the guest wrote no results to /dev/vda"
elif [ ! -e "$outdir/guest/DONE" ]; then
	problem="the guest did not finish its scripts ($(cat "$outdir/guest/TIMEOUT" 2>/dev/null || echo 'no DONE marker'))"
fi
rm -f "$results_img"
if [ -n "$problem" ]; then
	echo "run-vm: $problem" >&2
	echo "run-vm: serial log: $outdir/serial.log (last lines follow)" >&2
	tail -n 15 "$outdir/serial.log" 2>/dev/null | sed 's/^/    /' >&2 || true
	[ "$extracted" = yes ] && echo "run-vm: partial results in $outdir/guest" >&2
	echo "$outdir"
	exit 1
fi
echo "$outdir"
