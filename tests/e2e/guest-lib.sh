# shellcheck shell=bash
# shellcheck disable=SC2154 # $results: set by the script that sources this
# Helpers the e2e guest scripts share (sourced in the guest from
# /usr/local/lib/extown-e2e/guest-lib.sh, after $results is set). The test
# lines come from tests/lib/results.sh (installed beside this file): each
# goes to $results and to the script's log.
#
#   pass NAME · fail NAME WHY · skip NAME WHY
#   check NAME WHY-IF-FAILED CMD...   pass when CMD succeeds
#   note TEXT                         a progress line in the log
#   wait_dev UUID                     the device node once udev has
#                                     processed it (bounded: 2 min)

T_RESULTS=$results T_ECHO=1
# shellcheck source=tests/lib/results.sh
. /usr/local/lib/extown-e2e/results.sh
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
