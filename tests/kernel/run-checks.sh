#!/usr/bin/env bash
# Static checks of the kernel series (issue 2's "done when"), for each base
# (kernel-patches/6.1, kernel-patches/6.12, kernel-patches/7.3):
#   - git am of kernel-patches/BASE/series onto the base source succeeds, in a
#     fresh checkout, and leaves one commit per patch;
#   - scripts/checkpatch.pl --strict: no errors, and no warning or check
#     other than the ones the cover letter justifies (listed below);
#   - W=1 builds of fs/ext4 and fs/ext2: no warning the unpatched tree
#     does not have.
#
#   tests/kernel/run-checks.sh
#
# EXTOWN_KERNEL_BASES: the bases to check (default: those of tools/kernel/bases
# whose SUITES has kernel). EXTOWN_KERNEL_BREAK=no-checkpatch runs a
# checkpatch.pl that is not there, to show that a checkpatch that did not
# run fails its checks (its summary line, "total: ... lines checked", must
# be there and agree with the reports read). Test names
# are kernel.BASE.*, e.g. kernel.6.12.checkpatch.0001_no_errors.
# Prints "PASS name" / "FAIL name: why" lines; exit 1 only when the
# harness itself broke. Uses the source checkout of
# tools/kernel/build-kernel.sh (${EXTOWN_CACHE:-/var/cache/extown}/BASE/src).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${EXTOWN_CACHE:-/var/cache/extown}
work=$(mktemp -d "${TMPDIR:-/tmp}/extown-kchecks.XXXXXX")
worktrees=()
cleanup() {
	local w
	for w in "${worktrees[@]}"; do
		git -C "${w%%:*}" worktree remove --force "${w#*:}" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
T_LOG=kernel harness_test=kernel.checks
bases=$(bases_selected kernel)
checkpatch=scripts/checkpatch.pl
case ${EXTOWN_KERNEL_BREAK:-} in
'') ;;
no-checkpatch)
	checkpatch=scripts/checkpatch-not-installed.pl
	log "BROKEN ON PURPOSE: $checkpatch instead of scripts/checkpatch.pl"
	;;
*) harness_fail "EXTOWN_KERNEL_BREAK must be no-checkpatch" ;;
esac


# What checkpatch may still say, "PATCH TYPE: message" as printed with
# --show-types --terse, each explained in the base's cover letter (the 0002
# BIT_MACRO and SPACING reports come from 7.3's ext2, on the mount API).
justified() {
	cat <<'EOF'
0001 CAMELCASE: Avoid CamelCase: <Opt_uid>
0001 CAMELCASE: Avoid CamelCase: <Opt_gid>
0001 BIT_MACRO: Prefer using the BIT macro
0001 SPACING: space prohibited between function name and open parenthesis '('
0002 CAMELCASE: Avoid CamelCase: <Opt_uid>
0002 CAMELCASE: Avoid CamelCase: <Opt_gid>
0002 BIT_MACRO: Prefer using the BIT macro
0002 SPACING: space prohibited between function name and open parenthesis '('
EOF
}

# check_base BASE: every check of kernel-patches/BASE
check_base() {
	local base=$1 t=kernel.$1 src=$cache/$1/src patchdir=$top/kernel-patches/$1
	local w=$work/$1
	local patches touched am_rc am_out n p dirs num out errors unexplained cover unquoted w1 v f new
	local cp_rc summary counts e wn c l broke not_run=''
	mkdir -p "$w"
	mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patchdir/series")
	[ ${#patches[@]} -gt 0 ] || harness_fail "kernel-patches/$base/series is empty"
	# The source checkout (with tag "base") comes from the first build.
	"$top/tools/kernel/build-kernel.sh" --base "$base" unpatched >/dev/null ||
		harness_fail "build-kernel.sh --base $base unpatched failed"
	git -C "$src" rev-parse -q --verify refs/tags/base >/dev/null || harness_fail "$src has no tag base"

	# --- git am in a fresh checkout of the base --------------------------------
	# Only the paths the series touches are checked out (sparse), which is
	# all git am needs.
	mapfile -t touched < <(for p in "${patches[@]}"; do
		sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' "$patchdir/$p"
	done | sort -u)
	git -C "$src" worktree add -q --no-checkout --detach "$w/am" base
	worktrees+=("$src:$w/am")
	git -C "$w/am" sparse-checkout set --no-cone "${touched[@]/#//}" >/dev/null
	git -C "$w/am" checkout -q base
	am_rc=0
	am_out=$(git -C "$w/am" -c user.name=extown-test -c user.email=test@extown.invalid \
		am -q --keep-cr "${patches[@]/#/$patchdir/}" 2>&1) || am_rc=$?
	if [ "$am_rc" -eq 0 ]; then
		pass "$t.series.git_am_applies"
	else
		fail "$t.series.git_am_applies" "$(head -n 3 <<<"$am_out" | tr '\n' ' ')"
		git -C "$w/am" am --abort >/dev/null 2>&1 || true
	fi
	n=$(git -C "$w/am" rev-list --count base..HEAD)
	if [ "$n" -eq ${#patches[@]} ]; then
		pass "$t.series.one_commit_per_patch"
	else
		fail "$t.series.one_commit_per_patch" "${#patches[@]} patches, $n commits"
	fi
	# Each patch touches one filesystem (plus its documentation).
	for p in "${patches[@]}"; do
		dirs=$(sed -n 's#^diff --git a/\(fs/[^/]*\)/.*#\1#p' "$patchdir/$p" | sort -u | tr '\n' ' ')
		if [ "$(wc -w <<<"$dirs")" -eq 1 ]; then
			pass "$t.series.${p%%-*}_one_filesystem"
		else
			fail "$t.series.${p%%-*}_one_filesystem" "touches $dirs"
		fi
	done

	# --- checkpatch --strict -------------------------------------------------------
	justified >"$w/justified"
	for p in "${patches[@]}"; do
		num=${p%%-*}
		# status 1 when it reports anything; anything else: it broke
		cp_rc=0
		out=$(cd "$src" && perl "$checkpatch" --strict --show-types --terse "$patchdir/$p" 2>&1) ||
			cp_rc=$?
		echo "$out" >"$w/checkpatch-$num.out"
		# "FILE:LINE: SEVERITY:TYPE: message" -> "NUM TYPE: message"
		sed -n 's/^[^:]*:[0-9]*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\): \(.*\)$/\1 \2: \3/p' <<<"$out" >"$w/cp.$num"
		errors=$(grep -c '^ERROR ' "$w/cp.$num" || true)
		# it ran: its summary is there, counts lines, and its counts are
		# those of the reports read above
		broke=''
		summary=$(grep -E '^total: [0-9]+ errors, [0-9]+ warnings, [0-9]+ checks, [0-9]+ lines checked$' <<<"$out" | tail -n 1 || true)
		if [ "$cp_rc" -gt 1 ] || [ -z "$summary" ]; then
			broke="checkpatch did not run (status $cp_rc, no summary line): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
		else
			# total: E errors, W warnings, C checks, L lines checked
			read -r _ e _ wn _ c _ l _ <<<"$summary"
			counts="$errors $(grep -c '^WARNING ' "$w/cp.$num" || true) $(grep -c '^CHECK ' "$w/cp.$num" || true)"
			if [ "$l" -eq 0 ]; then
				broke="checkpatch checked no line: $summary"
			elif [ "$e $wn $c" != "$counts" ]; then
				broke="checkpatch says '$summary', the reports read are $counts (errors, warnings, checks)"
			fi
		fi
		if [ -n "$broke" ]; then
			fail "$t.checkpatch.${num}_no_errors" "$broke"
			fail "$t.checkpatch.${num}_only_justified_reports" "$broke"
			not_run+="$num "
			continue
		fi
		if [ "$errors" -eq 0 ]; then
			pass "$t.checkpatch.${num}_no_errors"
		else
			fail "$t.checkpatch.${num}_no_errors" "$(grep '^ERROR ' "$w/cp.$num" | head -n 3 | tr '\n' ' ')"
		fi
		unexplained=$(cut -d' ' -f2- "$w/cp.$num" | sed "s/^/$num /" | sort -u |
			grep -vxF -f "$w/justified" || true)
		if [ -z "$unexplained" ]; then
			pass "$t.checkpatch.${num}_only_justified_reports"
		else
			fail "$t.checkpatch.${num}_only_justified_reports" "$(head -n 3 <<<"$unexplained" | tr '\n' ' ')"
		fi
		grep -c . "$w/cp.$num" | sed "s/^/kernel checks: $base: checkpatch $num reports: /" >&2 || true
	done
	# Every report left must be explained in the cover letter, quoted as
	# checkpatch prints it.
	cover=$patchdir/0000-cover-letter.patch
	unquoted=$(cat "$w"/cp.* | cut -d' ' -f3- | sort -u | while read -r msg; do
		grep -qF -- "$msg" "$cover" 2>/dev/null || echo "$msg"
	done)
	if [ -n "$not_run" ]; then
		fail "$t.series.cover_letter_explains_checkpatch_reports" "checkpatch did not run on $not_run"
	elif [ -f "$cover" ] && [ -z "$unquoted" ]; then
		pass "$t.series.cover_letter_explains_checkpatch_reports"
	else
		fail "$t.series.cover_letter_explains_checkpatch_reports" "${cover#"$top"/} lacks: $(head -n 3 <<<"$unquoted" | tr '\n' ' ')"
	fi

	# --- W=1 (two builds of fs/ext4 and fs/ext2: only when selected) -----------------
	t_selected "$t.w1.no_new_warnings_fs_ext4_ext2" || return 0
	w1=()
	for v in unpatched patched; do
		f=$("$top/tools/kernel/build-kernel.sh" --base "$base" --w1 "$v" | tail -n 1) ||
			harness_fail "build-kernel.sh --base $base --w1 $v failed"
		w1+=("${f%.txt}.nolines.txt")
	done
	new=$(comm -13 "${w1[0]}" "${w1[1]}")
	if [ -z "$new" ]; then
		pass "$t.w1.no_new_warnings_fs_ext4_ext2"
	else
		fail "$t.w1.no_new_warnings_fs_ext4_ext2" "$(head -n 3 <<<"$new" | tr '\n' ' ')"
	fi
}

for b in $bases; do
	check_base "$b"
done
