# shellcheck shell=bash
# shellcheck disable=SC2154 # $results: set by the script that sources this
# Test-line helpers the e2e guest scripts share (sourced in the guest from
# /usr/local/lib/extown-e2e/guest-lib.sh, after $results is set): each line
# goes to $results and to the script's log.
#
#   pass NAME · fail NAME WHY · skip NAME WHY
#   check NAME WHY-IF-FAILED CMD...   pass when CMD succeeds
#   note TEXT                         a progress line in the log
#   wait_dev UUID                     the device node once udev has
#                                     processed it (bounded: 2 min)

pass() { echo "PASS $1" >>"$results"; echo "PASS $1"; }
fail() { echo "FAIL $1: $2" >>"$results"; echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2" >>"$results"; echo "SKIP $1: $2"; }
check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
note() { echo "== $*"; }
wait_dev() {
	for _ in $(seq 240); do
		if [ -e "/dev/disk/by-uuid/$1" ]; then
			udevadm settle -t 30
			readlink -f "/dev/disk/by-uuid/$1"
			return 0
		fi
		sleep 0.5
	done
	return 1
}
