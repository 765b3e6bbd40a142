# shellcheck shell=sh
# Test result lines and test selection, shared by every extown test
# script: the host-side suites (bash) and the guest halves (dash in the
# busybox VMs, bash in the Debian guests). POSIX sh only.
#
# A test reports exactly one line:
#     PASS NAME
#     FAIL NAME: WHY
#     SKIP NAME: WHY
# tests/run counts those lines and prints the closing line
# "N passed, N failed, N skipped"; a suite never prints a summary itself.
#
# Set before use (all optional):
#   T_RESULTS  file the lines are appended to (unset: standard output)
#   T_ECHO=1   with T_RESULTS, also print each line on standard output
#   T_PREFIX   prepended to every NAME ("privilege." gives privilege.NAME)
#   T_SAY      a command check runs with NAME before CMD (progress on a
#              console, say)
#   EXTOWN_TEST_FILTER
#              space-separated patterns (tests/run SUITE:PATTERN sets it):
#              a test is selected when its full name (with T_PREFIX)
#              contains one of them, read as a shell glob (so "K7" selects
#              6.1/patched/ext4.K7.remount_same, "fallback.*msg" globs).
#              Empty or unset: every test is selected.
#
#   pass NAME · fail NAME WHY · skip NAME WHY
#       one line, when NAME is selected (nothing otherwise)
#   check NAME WHY CMD...
#       runs CMD (always: later tests may rely on what it did) and reports
#       PASS when it succeeds, FAIL NAME: WHY otherwise
#   check_eq NAME WHAT EXPECTED ACTUAL
#       PASS when EXPECTED = ACTUAL, else "FAIL NAME: WHAT: expected 'E', got 'A'"
#   check_none NAME FOUND
#       PASS when FOUND (a list of what went wrong) is empty, else
#       "FAIL NAME: FOUND"
#   t_selected NAME
#       status 0 when NAME (without T_PREFIX) is selected
#   t_wanted TAG...
#       status 0 when a block of tests that carries one of TAGs (a
#       semantics label such as K7, a run name such as 6.1/patched) may
#       hold a selected test: used to skip whole VM boots and guest suites.
#       A pattern that contains a semantics label (K, H, U or S and a
#       number) wants only the blocks tagged with one of its labels; any
#       other pattern wants every block (its tests are then filtered by
#       name); a pattern with a "/" (a run name such as 6.1/patched/...)
#       wants only the blocks with a tag that is in the pattern or that
#       holds the pattern's part before its last "/".
#   t_relay FILE [PREFIX]
#       passes the selected PASS/FAIL/SKIP lines of FILE (another
#       script's results, e.g. a guest's) to where this script reports,
#       PREFIX put in front of each name; a FAIL or SKIP line of the
#       harness (t_always) passes whatever the selection
#   fail_always NAME WHY
#       a FAIL line whatever the selection: for the harness's own checks
#       (a guest that did not run), which no filter may hide; NAME ends
#       in ".harness" or ".guest_WORD" so that every relay (t_relay,
#       release_relay, tests/run) passes it on too
#   t_always NAME
#       status 0 when NAME is a harness check's (its last part is
#       "harness" or "guest_WORD", or it is SUITE.suite): its FAIL and
#       SKIP lines are never filtered out

t_match() { # NAME: status 0 when the full NAME is selected
	[ -n "${EXTOWN_TEST_FILTER:-}" ] || return 0
	for t_pat in $EXTOWN_TEST_FILTER; do
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $1 in *$t_pat*) return 0 ;; esac
	done
	return 1
}

t_selected() { t_match "${T_PREFIX:-}$1"; }

t_line() {
	if [ -n "${T_RESULTS:-}" ]; then
		echo "$1" >>"$T_RESULTS"
		[ -z "${T_ECHO:-}" ] || echo "$1"
	else
		echo "$1"
	fi
}

pass() { if t_selected "$1"; then t_line "PASS ${T_PREFIX:-}$1"; fi; }
fail() { if t_selected "$1"; then t_line "FAIL ${T_PREFIX:-}$1: $2"; fi; }
skip() { if t_selected "$1"; then t_line "SKIP ${T_PREFIX:-}$1: $2"; fi; }

check() {
	t_cn=$1 t_cw=$2
	shift 2
	[ -z "${T_SAY:-}" ] || "$T_SAY" "$t_cn"
	if "$@"; then pass "$t_cn"; else fail "$t_cn" "$t_cw"; fi
}

check_eq() {
	if [ "$3" = "$4" ]; then
		pass "$1"
	else
		fail "$1" "$2: expected '$3', got '$4'"
	fi
}

check_none() {
	if [ -z "$2" ]; then
		pass "$1"
	else
		fail "$1" "$2"
	fi
}

t_labels() { # the semantics labels in $1, one per line
	echo "$1" | grep -oE '(^|[^A-Za-z0-9])[KHUS][0-9]+([^0-9]|$)' | grep -oE '[KHUS][0-9]+'
}

t_wanted() {
	[ -n "${EXTOWN_TEST_FILTER:-}" ] || return 0
	for t_pat in $EXTOWN_TEST_FILTER; do
		t_hit=yes
		t_lab=$(t_labels "$t_pat")
		if [ -n "$t_lab" ]; then
			t_hit=no
			for t_l in $t_lab; do
				case " $* " in *" $t_l "*) t_hit=yes ;; esac
			done
		fi
		case $t_pat in
		*/*)
			# a run name: some tag is in the pattern, or the pattern's
			# part before its last "/" is in some tag
			t_run=no
			for t_t in "$@"; do
				case $t_t in */*) ;; *) continue ;; esac
				case $t_pat in *"$t_t"*) t_run=yes ;; esac
				case $t_t in *"${t_pat%/*}"*) t_run=yes ;; esac
			done
			[ "$t_run" = yes ] || t_hit=no
			;;
		esac
		[ "$t_hit" = no ] || return 0
	done
	return 1
}

fail_always() { t_line "FAIL ${T_PREFIX:-}$1: $2"; }

t_always() {
	case ${1##*.} in
	harness | guest_[a-z]* | suite) return 0 ;;
	esac
	return 1
}

t_relay() {
	[ -f "$1" ] || return 0
	while IFS= read -r t_rl; do
		case $t_rl in
		PASS\ * | FAIL\ * | SKIP\ *) ;;
		*) continue ;;
		esac
		t_rn=${2:-}${t_rl#* }
		case $t_rl in
		PASS\ *) t_match "${t_rn%%: *}" || continue ;;
		*) t_match "${t_rn%%: *}" || t_always "${t_rn%%: *}" || continue ;;
		esac
		t_line "${t_rl%% *} $t_rn"
	done <"$1"
}
