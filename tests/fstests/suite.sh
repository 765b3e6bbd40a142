#!/usr/bin/env bash
# fstests as a suite of tests/run (`tests/run fstests[:PATTERN]`; not in
# the default list: a run takes an hour of TCG time, and CI has no fstests
# checkout). Runs tests/fstests/run.sh on the checkout in
# EXTOWN_FSTESTS_DIR (built with its own `make`, docs/fstests.md) with the
# tests of tests/fstests/list whose names are selected, and prints one line
# per test and run:
#     PASS fstests.RUN.TEST         (RUN plain or uid, TEST e.g. ext4/001)
#     FAIL fstests.RUN.TEST: failed
#     SKIP fstests.RUN.TEST: not run (fstests' _notrun)
# and "SKIP fstests.checkout: ..." when EXTOWN_FSTESTS_DIR is not set.
# EXTOWN_FSTESTS_ARGS: more options for run.sh (--kernel, --list, --budget).
#
#   tests/fstests/suite.sh
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
harness_init fstests

if [ -z "${EXTOWN_FSTESTS_DIR:-}" ]; then
	skip fstests.checkout "no fstests checkout: set EXTOWN_FSTESTS_DIR to a built kdave/xfstests checkout (docs/fstests.md)"
	exit 0
fi
[ -x "$EXTOWN_FSTESTS_DIR/check" ] || harness_fail "$EXTOWN_FSTESTS_DIR has no ./check"

read -ra extra <<<"${EXTOWN_FSTESTS_ARGS:-}"
list=$top/tests/fstests/list
for ((i = 0; i < ${#extra[@]}; i++)); do
	[ "${extra[i]}" != --list ] || list=${extra[i + 1]}
done
# the selected tests of the list
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" | while read -r t; do
	if t_selected "fstests.plain.$t" || t_selected "fstests.uid.$t"; then echo "$t"; fi
done >"$work/list"
[ -s "$work/list" ] || exit 0

"$top/tests/fstests/run.sh" "${extra[@]}" --list "$work/list" --out "$work/out" \
	"$EXTOWN_FSTESTS_DIR" >&2 || harness_fail "tests/fstests/run.sh failed"
for run in plain uid; do
	[ -f "$work/out/$run/per-test" ] || continue
	while read -r t result; do
		case $result in
		pass) pass "fstests.$run.$t" ;;
		notrun) skip "fstests.$run.$t" "not run (fstests' _notrun; $work/out/$run/results)" ;;
		*) fail "fstests.$run.$t" "$result (see $run/results/$t.out.bad)" ;;
		esac
	done <"$work/out/$run/per-test"
done
