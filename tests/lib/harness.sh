# shellcheck shell=bash
# The host side every test suite (and the tools/ scripts) share; bash,
# sourced after $top is set:
#
#   . "$top/tests/lib/harness.sh"
#
# It sources tests/lib/results.sh (pass, fail, skip, check, check_eq,
# t_selected, t_wanted, t_relay). Then:
#
#   T_LOG=NAME                  the prefix of log and die messages (default:
#                               the script's file name)
#   harness_init NAME [TEST]    T_LOG=NAME; $work, a new directory under
#                               ${TMPDIR:-/tmp} removed on exit unless
#                               EXTOWN_KEEP=1; TEST (default NAME) names the
#                               suite's harness failures
#   log MSG...                  "NAME: MSG" on stderr
#   die MSG...                  log, exit 1 (a tool that cannot go on)
#   harness_fail MSG...         "FAIL TEST.harness: MSG" on stdout, exit 1:
#                               the harness broke, which is not a test failing
#   usage                       the comment block at the head of the script
#                               (its lines 2 up to "set -euo"), exit 2
#   need_root WHY               harness_fail (die outside a suite) unless root
#   in_root ROOT CMD...         CMD chrooted into ROOT with a clean
#                               environment (PATH, DEBIAN_FRONTEND, LC_ALL)
#   harness_build_helper SRC BUILD
#                               builds mount.ext4 from the checkout SRC in
#                               BUILD with tools/build-helper.sh (as it is
#                               installed), output in BUILD/build.log
#   guest_results VMDIR SCRIPT PREFIX RUNVM_STATUS [RELAY_PREFIX]
#                               relays the selected test lines of the guest
#                               script SCRIPT of a tools/vm/run-vm.sh run
#                               in VMDIR (RELAY_PREFIX before each name),
#                               then PREFIX.guest_finished; status
#                               1 (and FAIL PREFIX.guest_ran) when the guest
#                               wrote no results at all

# shellcheck source=tests/lib/results.sh
. "$(dirname "${BASH_SOURCE[0]}")/results.sh"

harness_init() {
	T_LOG=$1
	harness_test=${2:-$1}
	work=$(mktemp -d "${TMPDIR:-/tmp}/extown-$1.XXXXXX") ||
		harness_fail "cannot make a work directory in ${TMPDIR:-/tmp}"
	trap harness_cleanup EXIT
}

# shellcheck disable=SC2317 # run by the EXIT trap
harness_cleanup() {
	if [ -z "${EXTOWN_KEEP:-}" ]; then
		rm -rf "$work"
	else
		log "work directory kept: $work"
	fi
}

log() { echo "${T_LOG:-${0##*/}}: $*" >&2; }

die() {
	log "$*"
	exit 1
}

harness_fail() {
	echo "FAIL ${harness_test:-${T_LOG:-${0##*/}}}.harness: $*"
	exit 1
}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

need_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	if [ -n "${harness_test:-}" ]; then
		harness_fail "must run as root ($1)"
	fi
	die "must run as root ($1)"
}

in_root() {
	local root=$1
	shift
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
}

harness_build_helper() {
	"$(dirname "${BASH_SOURCE[0]}")/../../tools/build-helper.sh" --src "$1" "$2" >/dev/null ||
		harness_fail "cannot build mount.ext4 from $1 (see $2/build.log; EXTOWN_KEEP=1 keeps it)"
}

guest_results() {
	local vm=$1 g=$1/guest/$2 prefix=$3 vrc=$4 relay_prefix=${5:-}
	if [ ! -s "$g/results" ]; then
		fail_always "$prefix.guest_ran" "no results (run-vm status $vrc); serial log ends: $(tail -n 5 "$vm/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	t_relay "$g/results" "$relay_prefix"
	if [ "$vrc" -eq 0 ] && [ -f "$vm/guest/DONE" ] && [ "$(cat "$g/rc")" = 0 ]; then
		pass "$prefix.guest_finished"
	else
		fail_always "$prefix.guest_finished" "run-vm status $vrc, guest script status $(cat "$g/rc" 2>/dev/null)"
	fi
}
