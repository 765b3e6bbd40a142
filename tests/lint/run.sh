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
command -v shellcheck >/dev/null || {
	echo "FAIL lint.shellcheck: shellcheck not installed (tools/install-deps.sh)"
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
	if out=$(shellcheck -x "$f" 2>&1); then
		echo "PASS lint.shellcheck.$name"
	else
		echo "FAIL lint.shellcheck.$name: $(grep -m 1 -E 'SC[0-9]+' <<<"$out")"
	fi
done
