#!/usr/bin/env bash
# Lint of the project's own scripts: every shell script tracked by git
# passes "shellcheck -x" (sourced files are followed).
#
#   tests/lint/run.sh
#
# One "PASS lint.shellcheck.PATH" / "FAIL ...: first finding" line per script.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
command -v shellcheck >/dev/null || {
	fail_always lint.shellcheck "shellcheck not installed (tools/install-deps.sh)"
	exit 0
}
# Tracked files that are shell scripts by name or by #! line.
git ls-files -z | while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) ;;
	*) head -n 1 "$f" | grep -qE '^#!.*\b(ba|da)?sh\b' || continue ;;
	esac
	name=$(tr '/.' '__' <<<"$f")
	t_selected "lint.shellcheck.$name" || continue
	if out=$(shellcheck -x "$f" 2>&1); then
		pass "lint.shellcheck.$name"
	else
		fail "lint.shellcheck.$name" "$(grep -m 1 -E 'SC[0-9]+' <<<"$out")"
	fi
done
