# shellcheck shell=bash
# shellcheck disable=SC2154 # $results: set by the script that sources this
# Helpers the e2e guest scripts share (sourced in the guest from
# /usr/local/lib/extown-e2e/guest-lib.sh, after $results is set). The test
# lines come from tests/lib/results.sh (installed beside this file): each
# goes to $results and to the script's log.
#
#   pass NAME · fail NAME WHY · skip NAME WHY
#   check NAME WHY-IF-FAILED CMD...   pass when CMD succeeds
#   note TEXT                         a progress line in the log, and on
#                                     the serial console as
#                                     "EXTOWN-E2E-NOTE TEXT" (the host
#                                     shows it as a step while the VM runs)
#   wait_dev UUID                     the device node once udev has
#                                     processed it (bounded: 2 min)

T_RESULTS=$results T_ECHO=1
# shellcheck source=tests/lib/results.sh
. /usr/local/lib/extown-e2e/results.sh
note() {
	echo "== $*"
	echo "EXTOWN-E2E-NOTE $*" >/dev/ttyS0 2>/dev/null || true
}
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

# Alice's desktop session. She logs in on tty1 (an autologin getty that
# tests/e2e/run.sh configures: login(1), PAM, pam_systemd), which gives an
# active, local logind session on seat0 and starts her user manager
# (user@1000.service) with her session bus. What she runs goes into that
# user manager, as a desktop's programs do, so that polkit judges it by her
# session with Debian's own policy and no rule of ours.
#
#   alice_session        waits (bounded: 2 min) until the session and the
#                        user manager are up; the session id on stdout
#   in_session CMD...    CMD as alice in her user manager; waits for it,
#                        its stdin/stdout/stderr and exit status are CMD's
alice_session() {
	local s
	for _ in $(seq 240); do
		s=$(loginctl show-user alice -p Display --value 2>/dev/null) || s=
		if [ -n "$s" ] && systemctl -q is-active user@1000.service &&
			[ -S /run/user/1000/bus ]; then
			echo "$s"
			return 0
		fi
		sleep 0.5
	done
	return 1
}
in_session() {
	systemd-run --user -M alice@.host --quiet --wait --pipe --collect \
		-p WorkingDirectory=/home/alice -- "$@"
}
