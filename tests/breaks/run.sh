#!/usr/bin/env bash
# The proof that the tests catch what they claim: each break switch of
# tests/breaks/table (EXTOWN_FUZZ_BREAK, EXTOWN_E2E_BREAK, ...) runs its
# suite broken on purpose, and passes only when every test the table
# names for it failed.
#
#   tests/breaks/run.sh
#
# Per entry ID of the table that runs (EXTOWN_BREAKS, below):
#   breaks.ID.caught.NAME   the run has a FAIL line for a test matching the
#                           table's NAME (a glob) and no PASS line for one;
#                           the FAIL line's reason is in the log
#   breaks.ID.ran           the suite's script printed results and exited 0
#                           (a broken harness proves nothing)
# and, whatever runs:
#   breaks.table.lists.VAR  each EXTOWN_*_BREAK variable that a script under
#                           tests/ or tools/ reads has an entry
#   breaks.fuzz_known.NAME  each reproducer of tests/fuzz/known/ is named by
#                           an entry (PASS), or by a "known" line of the
#                           table with the reason no break of the current
#                           code makes it fail (SKIP with that reason)
# The failures each break made, all of them, are listed on stderr and in
# build/breaks/ID.out (the run's lines) and ID.err (its log).
#
# Environment:
#   EXTOWN_BREAKS   commit (default): the entries of tier "commit"; all:
#                   every entry; or entry IDs, space-separated
# stdout: PASS/FAIL/SKIP lines; exit 0 unless the table cannot be read.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=breaks harness_test=breaks T_PREFIX=breaks.
table=$top/tests/breaks/table
out=$top/build/breaks
mkdir -p "$out"
want=${EXTOWN_BREAKS:-commit}

# field LINE N: the N-th " | "-separated field of LINE, trimmed
field() {
	awk -F ' [|] ' -v n="$2" '{ f = $n; sub(/^[ \t]+/, "", f); sub(/[ \t]+$/, "", f); print f }' <<<"$1"
}

mapfile -t entries < <(grep -vE '^[[:space:]]*(#|$)' "$table" | grep -v '^known ')
[ ${#entries[@]} -gt 0 ] || harness_fail "no entry in $table"

# names LIST FILE KIND: the test names of FILE's KIND (PASS, FAIL) lines
# that match the glob LIST
matches() {
	local glob=$1 file=$2 kind=$3 line name
	while IFS= read -r line; do
		case $line in "$kind "*) ;; *) continue ;; esac
		name=${line#* }
		name=${name%%: *}
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $name == $glob ]] && echo "$name"
	done <"$file"
	return 0
}

selected() { # ID TIER
	case $want in
	all) return 0 ;;
	commit) [ "$2" = commit ] ;;
	*) [[ " $want " == *" $1 "* ]] ;;
	esac
}

for e in "${entries[@]}"; do
	id=$(field "$e" 1) tier=$(field "$e" 2) envs=$(field "$e" 3)
	script=$(field "$e" 4) filter=$(field "$e" 5) mustfail=$(field "$e" 6)
	if [ -z "$id" ] || [ -z "$mustfail" ] || [ ! -x "$top/$script" ]; then
		harness_fail "bad entry in $table: $e"
	fi
	selected "$id" "$tier" || continue
	# tests/run breaks:PATTERN: only the entries with a selected test
	any=no
	for g in ran $mustfail; do
		[ "$g" = ran ] || g=caught.$g
		if t_selected "$id.$g"; then any=yes; fi
	done
	[ "$any" = yes ] || continue
	[ "$filter" != - ] || filter=''
	read -r -a envv <<<"$envs"
	log "$id: $envs $script${filter:+ (selected: $filter)}"
	start=$SECONDS
	rc=0
	env "${envv[@]}" EXTOWN_TEST_FILTER="$filter" "$top/$script" \
		>"$out/$id.out" 2>"$out/$id.err" </dev/null || rc=$?
	n=$(grep -cE '^(PASS|FAIL|SKIP) ' "$out/$id.out" || true)
	log "$id: status $rc, $n result lines, $((SECONDS - start)) s; failed:"
	grep '^FAIL ' "$out/$id.out" | sed "s/^/breaks: $id: /" >&2 || true
	if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
		pass "$id.ran"
	else
		fail "$id.ran" "$script exited with status $rc after $n result lines (see $out/$id.err)"
	fi
	for g in $mustfail; do
		failed=$(matches "$g" "$out/$id.out" FAIL | head -n 3 | tr '\n' ' ')
		passed=$(matches "$g" "$out/$id.out" PASS | head -n 3 | tr '\n' ' ')
		if [ -n "$failed" ] && [ -z "$passed" ]; then
			pass "$id.caught.$g"
		elif [ -n "$passed" ]; then
			fail "$id.caught.$g" "passed with the break: $passed"
		else
			fail "$id.caught.$g" "no FAIL line for it (not run, or not caught)"
		fi
	done
done

# every break variable the scripts read has an entry
mapfile -t vars < <(grep -rhoE 'EXTOWN_[A-Z0-9_]*_BREAK\b' "$top/tests" "$top/tools" \
	--include='*.sh' --include=run --exclude-dir=breaks 2>/dev/null | sort -u)
for v in "${vars[@]}"; do
	if grep -vE '^[[:space:]]*#' "$table" | grep -q "$v="; then
		pass "table.lists.$v"
	else
		fail "table.lists.$v" "no entry of $table sets $v"
	fi
done

# every known fuzz reproducer is caught by a break, or said not to be
for k in "$top"/tests/fuzz/known/*; do
	[ -f "$k" ] || continue
	name=${k##*/}
	why=$(awk -F ' [|] ' -v n="$name" '$1 == "known" && $2 == n { print $3 }' "$table")
	if grep -vE '^[[:space:]]*#' "$table" | grep -v '^known ' | grep -q "\.known\.$name\b"; then
		pass "fuzz_known.$name"
	elif [ -n "$why" ]; then
		skip "fuzz_known.$name" "no break of the current code makes it fail: $why"
	else
		fail "fuzz_known.$name" "tests/fuzz/known/$name is named by no entry of $table"
	fi
done
