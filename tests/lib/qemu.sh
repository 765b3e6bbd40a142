# shellcheck shell=bash
# Talking to a running test VM (tools/vm/run-vm.sh --qmp SOCK) over QMP,
# QEMU's machine protocol: JSON answers, no scraping of the human monitor.
# Bash, host side; needs socat (tools/e2e/install-deps.sh).
#
#   qmp SOCK COMMAND-JSON...
#       sends the commands in order over one connection (after
#       qmp_capabilities) and prints one answer line per command
#       ({"return": ...} or {"error": ...}; greeting and events dropped);
#       status 1 unless every command returned
#   usb_plug SOCK ID IMAGE
#       hot-plugs the raw IMAGE as a removable USB stick (usb-storage on the
#       VM's qemu-xhci controller xhci.0, drive node ID, device usb-ID), as
#       plugging a stick into a port would; the answers on stdout

qmp() {
	local sock=$1 out answers
	shift
	out=$({
		echo '{"execute": "qmp_capabilities"}'
		printf '%s\n' "$@"
	} | socat -t 3 - "UNIX-CONNECT:$sock" 2>&1) || true
	answers=$(grep -E '^\{ *"(return|error)"' <<<"$out" | tail -n +2)
	echo "$answers"
	[ "$(grep -cE '^\{ *"return"' <<<"$answers")" -eq $# ]
}

usb_plug() {
	local sock=$1 id=$2 img=$3
	qmp "$sock" \
		"{\"execute\": \"blockdev-add\", \"arguments\": {\"node-name\": \"$id\", \"driver\": \"raw\", \"file\": {\"driver\": \"file\", \"filename\": \"$img\"}}}" \
		"{\"execute\": \"device_add\", \"arguments\": {\"driver\": \"usb-storage\", \"bus\": \"xhci.0\", \"drive\": \"$id\", \"id\": \"usb-$id\", \"removable\": true}}"
}

# A kernel that panicked in a test VM (serial log of tools/vm/run-vm.sh).
# A first panic that a suite boots through again is still reported, by a
# line no filter hides (panic_report):
#
#   vm_panic SERIAL-LOG
#       the first Oops, BUG or "Kernel panic" line of the log; status 1
#       when it has none
#   vm_panic_known_tcg SERIAL-LOG
#       status 0 when the log's panic is the one known fault of Debian's
#       own kernels under TCG (not of our code; docs/e2e.md): an int3 oops
#       in sched_clock_cpu while another CPU patches kernel text, before
#       the root filesystem was mounted (no "EXT4-fs" line before it)
#   panic_report NAME SERIAL-LOG STOCK
#       a line for a first boot that panicked and was booted again: "SKIP
#       T_PREFIX NAME: ..." when STOCK is yes (a Debian kernel) and the panic is
#       vm_panic_known_tcg's, else "FAIL NAME: ..." (our kernels, or any
#       other panic); both shown whatever the selection (tests/run counts
#       a NAME.guest_* line always)
vm_panic() {
	grep -a -m 1 -oE '(Oops|BUG:|Kernel panic).*' "$1" 2>/dev/null | tr -d '\r' | grep .
}

vm_panic_known_tcg() {
	local before
	grep -aq -E 'Oops: int3|int3: 0000' "$1" 2>/dev/null || return 1
	before=$(sed -n '/Kernel panic/q; p' "$1" 2>/dev/null) || return 1
	grep -q 'sched_clock_cpu' <<<"$before" && ! grep -q 'EXT4-fs' <<<"$before"
}

panic_report() {
	local name=$1 serial=$2 stock=$3 what
	what=$(vm_panic "$serial") || what='no Oops line'
	if [ "$stock" = yes ] && vm_panic_known_tcg "$serial"; then
		t_line "SKIP ${T_PREFIX:-}$name: Debian's kernel panicked under TCG before mounting / (the known int3 oops in sched_clock_cpu: $what); booted again, first serial log $serial"
	else
		t_line "FAIL ${T_PREFIX:-}$name: the kernel panicked ($what); booted again, first serial log $serial"
	fi
}
