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
