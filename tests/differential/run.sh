#!/usr/bin/env bash
# Differential test of the mount helper against util-linux mount(8) itself
# (issue 10): every request of tests/differential/cases (fstab entry x
# caller x command line) is run in the busybox test VM by the real setuid
# mount(8) 2.38.1, once with no mount.ext* helper installed and once with
# the helper installed (/usr/sbin/mount.ext4 setuid root, mount.ext3 and
# mount.ext2 symlinks). The guest (tests/differential/guest.sh) records
# exit status, mounts (per-mount and superblock options), /run/mount/utab,
# the caller's umount and loop devices left; this script judges each case
# by the rules of docs/differential.md:
#   1. the helper mounts nothing mount(8) alone refuses (unless mount(8)
#      grants the case's "same-as" case, whose helper argv is identical up
#      to the order of the -o options:
#      then the helper's result must be mount(8)'s result for that case);
#   2. where both mount, the only difference is uid=,gid= (the expected
#      owner) plus nosuid,nodev on a tagged device, exactly where the
#      table's owner column expects it (and then it must be there); a
#      mount(8) alone grants is mounted with the helper too;
#   3. the caller's umount gives the same status, the same mounts remain,
#      and no loop device is left that mount(8) alone does not leave;
#   4. /run/mount/utab holds no line mount(8) alone does not write, after
#      the command and after the umount;
#   5. root requests pass through (root is a caller like the others: same
#      comparison, owner only with default-owner on the tagged device).
#
#   tests/differential/run.sh                 build, boot, judge
#   tests/differential/run.sh --judge DIR     judge the guest results in DIR
#                                             (the guest/guest of a kept run)
#
# Environment: EXTOWN_DIFF_SRC=TREE builds the helper from another checkout
# (e.g. a `git worktree` of an older commit; default: this one);
# EXTOWN_DIFF_KERNEL=BZIMAGE uses that kernel instead of
# tools/kernel/build-kernel.sh patched; EXTOWN_KEEP=1 keeps the work
# directory (guest records in vm/guest/guest/{nohelper,helper}/CASE/).
#
# stdout: "PASS differential.CASE" / "FAIL differential.CASE: why" per case,
# plus differential.guest_finished; the table (case | mount(8) alone | with
# helper | verdict) and everything else goes to stderr. Exit 0 whatever the
# tests say, 1 when the harness broke.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$top/tests/differential
# shellcheck source=tests/harness.sh
. "$top/tests/harness.sh"

# Devices the guest tags removable (guest.sh): ownership is expected only there.
tagged=" /dev/vdb /dev/vdd "

# --- judging, with bash builtins only (hundreds of cases x forks are slow) ---

# FILE's lines (no trailing newline) into VAR; empty when FILE is missing.
# argv_set VAR ARGV: the helper argv with its -o list sorted, so that two
# requests whose options differ only in order compare equal (the helper
# reads options as a set: mount -o nosuid,nodev gives the options of a
# plain mount in another order)
argv_set() {
	local -n _as=$1
	local w prev="" out=""
	# the guest writes each word as [word]
	for w in $2; do
		if [ "$prev" = "[-o]" ]; then
			w=${w#[}
			w="[$(tr ',' '\n' <<<"${w%]}" | LC_ALL=C sort | paste -sd, -)]"
		fi
		out+="$w "
		prev=$w
	done
	_as=${out% }
}

readf() { # VAR FILE
	local -n _rf=$1
	local _l
	_rf=""
	[ -f "$2" ] || return 0
	while IFS= read -r _l || [ -n "$_l" ]; do _rf+="$_l"$'\n'; done <"$2"
	_rf=${_rf%$'\n'}
}

# The arguments sorted (C order), duplicates removed, into array VAR.
sort_into() { # VAR WORD...
	local -n _so=$1
	shift
	local _w _i _n _pos _dup
	_so=()
	for _w in "$@"; do
		_n=${#_so[@]} _pos=${#_so[@]} _dup=0
		for ((_i = 0; _i < _n; _i++)); do
			if [[ ${_so[_i]} == "$_w" ]]; then
				_dup=1
				break
			elif [[ ${_so[_i]} > "$_w" ]]; then
				_pos=$_i
				break
			fi
		done
		[ "$_dup" = 1 ] || _so=("${_so[@]:0:_pos}" "$_w" "${_so[@]:_pos}")
	done
}

# A comma-separated option list, sorted (order carries no meaning here).
sort_opts() { # VAR OPTS
	local -n _sr=$1
	local -a _parts _sorted
	IFS=, read -ra _parts <<<"$2"
	sort_into _sorted "${_parts[@]}"
	printf -v _sr '%s,' "${_sorted[@]}"
	_sr=${_sr%,}
}

# Mounts of a record file, normalised for comparison: "a; b; ..." sorted,
# options sorted; with OWNER (uid:gid) the mounts of tagged devices get what
# the helper is to add: nosuid,nodev per mount, uid=,gid= in the superblock.
norm_mounts() { # VAR FILE [OWNER]
	local -n _nm=$1
	local owner=${3:--} mp root src type per sup
	local -a lines=() sorted=()
	while read -r mp root src type per sup; do
		[ -n "$mp" ] || continue
		if [ "$owner" != - ] && [[ $tagged == *" $src "* ]]; then
			per="$per,nosuid,nodev"
			sup="$sup,uid=${owner%%:*},gid=${owner##*:}"
		fi
		sort_opts per "$per"
		sort_opts sup "$sup"
		lines+=("$mp $root $src $type $per $sup")
	done <"$2"
	sort_into sorted "${lines[@]}"
	printf -v _nm '%s; ' "${sorted[@]}"
	_nm=${_nm%; }
}

# Lines of file A (from field SKIP+1 on) that are not in file B, "; "-joined.
extra_lines() { # VAR A B [SKIP]
	local -n _el=$1
	local -A seen=()
	local l skip=${4:-0}
	_el=""
	if [ -f "$3" ]; then
		while IFS= read -r l; do
			[ "$skip" = 0 ] || l=${l#* }
			[ -z "$l" ] || seen["$l"]=1
		done <"$3"
	fi
	[ -f "$2" ] || return 0
	while IFS= read -r l; do
		[ "$skip" = 0 ] || l=${l#* }
		[ -z "$l" ] || [ -n "${seen["$l"]:-}" ] || _el+="$l; "
	done <"$2"
	_el=${_el%; }
}

# "MOUNTPOINT STATUS" of each line of an umount record, "; "-joined.
umount_status() { # VAR FILE
	local -n _us=$1
	local mp st _rest
	_us=""
	while read -r mp st _rest; do _us+="$mp $st; "; done <"$2"
	_us=${_us%; }
}

# One-cell summary of a record directory for the table.
summary() { # VAR DIR
	local -n _su=$1
	local d=$2 mp root src type per sup o ids rc msg line
	read -r rc <"$d/rc"
	_su="exit $rc"
	while read -r mp root src type per sup; do
		[ -n "$mp" ] || continue
		ids=""
		IFS=, read -ra o <<<"$sup"
		for line in "${o[@]}"; do
			case $line in uid=* | gid=*) ids+="${ids:+,}$line" ;; esac
		done
		_su+="; $mp $per${ids:+ $ids}"
	done <"$d/mounts"
	if [ -s "$d/umount" ]; then
		local st=""
		while read -r mp rc _; do st+="${st:+/}$rc"; done <"$d/umount"
		_su+="; umount $st"
	fi
	if [ -s "$d/utab" ]; then
		local u=""
		while IFS= read -r line; do u+="${u:+ }${line##*OPTS=}"; done <"$d/utab"
		_su+="; utab $u"
	fi
	if [ -s "$d/loops_after" ]; then
		local lo=""
		while read -r line _; do lo+="${lo:+ }$line"; done <"$d/loops_after"
		_su+="; loops left: $lo"
	fi
	msg=""
	[ ! -s "$d/msg" ] || IFS= read -r msg <"$d/msg"
	msg=${msg:0:70}
	[ -z "$msg" ] || _su+="; \"${msg//|//}\""
}

judge() { # GUESTDIR
	local g=$1 name caller policy bef owner same cmd N H B basis pass=0 fail=0
	local nh nb x y rcn rcs an as sn sh verdict joined
	local -a why
	if [ ! -d "$g/nohelper" ] || [ ! -d "$g/helper" ]; then
		echo "FAIL differential.guest_passes: no records of both passes in $g"
		return 0
	fi
	log "table (case | mount(8) alone | with helper | verdict):"
	echo "| case | caller, policy, before: command | mount(8) alone | with helper | verdict |" >&2
	echo "|---|---|---|---|---|" >&2
	while IFS=$'\t' read -r name caller policy bef owner same cmd; do
		N=$g/nohelper/$name H=$g/helper/$name
		if [ ! -f "$N/rc" ] || [ ! -f "$H/rc" ]; then
			echo "FAIL differential.$name: not run in both passes (guest stopped early?)"
			fail=$((fail + 1))
			continue
		fi
		why=()
		B=$N basis=""
		read -r rcn <"$N/rc"
		rcs=""
		[ "$same" = - ] || [ ! -f "$g/nohelper/$same/rc" ] || read -r rcs <"$g/nohelper/$same/rc"
		if [ "$same" != - ] && [ "$rcn" != 0 ] && [ "$rcs" = 0 ]; then
			# only where the helper cannot tell the two apart
			readf an "$g/argv/$name/argv"
			readf as "$g/argv/$same/argv"
			argv_set an "$an"
			argv_set as "$as"
			if [ -n "$an" ] && [ "$an" = "$as" ]; then
				B=$g/nohelper/$same basis=" (mount(8) alone refuses; its result for $same)"
			else
				why+=("same-as $same does not apply: helper argv [$an] vs [$as]")
			fi
		fi
		for x in "$N" "$H"; do
			if [ -e "$x/dirty" ]; then
				readf y "$x/dirty"
				why+=("the reset before the case left: ${y//$'\n'/; }")
			fi
		done
		# rules 1, 2, 5: what is mounted, with which options
		norm_mounts nb "$B/mounts" "$owner"
		norm_mounts nh "$H/mounts"
		if [ "$owner" != - ] && [ -s "$B/mounts" ]; then
			x=no
			while read -r _ _ y _; do [[ $tagged != *" $y "* ]] || x=yes; done <"$B/mounts"
			[ $x = yes ] || why+=("table: owner $owner expected, but mount(8) alone has no tagged device mounted")
		fi
		if [ ! -s "$B/mounts" ] && [ -s "$H/mounts" ]; then
			readf y "$H/mounts"
			why+=("mounted what mount(8) alone refuses: ${y//$'\n'/; }")
		elif [ -s "$B/mounts" ] && [ ! -s "$H/mounts" ]; then
			y=""
			[ ! -s "$H/msg" ] || IFS= read -r y <"$H/msg"
			why+=("mount(8) alone mounts$basis, the helper refused: $y")
		elif [ "$nb" != "$nh" ]; then
			why+=("mounts differ$basis: expected [$nb], got [$nh]")
		fi
		# rule 3: the caller's umount, what stays mounted, loop devices
		umount_status sn "$B/umount"
		umount_status sh "$H/umount"
		[ "$sn" = "$sh" ] || why+=("umount by $caller: mount(8) alone [$sn], helper [$sh]")
		norm_mounts nb "$B/mounts_after" "$owner"
		norm_mounts nh "$H/mounts_after"
		[ "$nb" = "$nh" ] || why+=("after umount still mounted: mount(8) alone [$nb], helper [$nh]")
		extra_lines x "$H/loops_after" "$B/loops_after" 1
		[ -z "$x" ] || why+=("loop device left after umount that mount(8) alone does not leave: $x")
		# rule 4: utab
		extra_lines x "$H/utab" "$B/utab"
		[ -z "$x" ] || why+=("utab line mount(8) alone does not write: $x")
		extra_lines x "$H/utab_after" "$B/utab_after"
		[ -z "$x" ] || why+=("utab line left after umount: $x")
		if [ ${#why[@]} -eq 0 ]; then
			echo "PASS differential.$name"
			verdict=PASS
			pass=$((pass + 1))
		else
			printf -v joined '%s; ' "${why[@]}"
			echo "FAIL differential.$name: ${joined%; }"
			verdict="FAIL: ${why[0]}"
			fail=$((fail + 1))
		fi
		summary sn "$N"
		summary sh "$H"
		echo "| $name | $caller, $policy, $bef: \`$cmd\` | $sn | $sh | ${verdict//|//} |" >&2
	done < <(awk -F'|' -v OFS='\t' '/^[[:space:]]*(#|$)/ { next }
		{ for (i = 1; i <= NF; i++) { gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i) } print }' "$here/cases")
	log "$((pass + fail)) cases: $pass passed, $fail failed"
	if [ -f "$g/info" ]; then
		sed 's/^/    /' "$g/info" >&2
	fi
}

harness_init differential differential
if [ "${1:-}" = --judge ]; then
	if [ $# -ne 2 ] || [ ! -d "$2" ]; then
		echo "usage: $0 [--judge GUESTDIR]" >&2
		exit 2
	fi
	judge "$2"
	exit 0
fi
start=$SECONDS
src=${EXTOWN_DIFF_SRC:-$top}
if [ -n "${EXTOWN_DIFF_KERNEL:-}" ]; then
	kernel=$EXTOWN_DIFF_KERNEL
else
	kernel=$("$top/tools/kernel/build-kernel.sh" patched | tail -n 1) ||
		harness_fail "tools/kernel/build-kernel.sh patched failed"
fi
[ -f "$kernel" ] || harness_fail "no bzImage at $kernel"

# The helper as it is installed: /usr/sbin/mount.ext4, policy /etc/extown.conf.
build=$work/build
harness_build_helper "$src" "$build"
log "helper built from $src ($(git -C "$src" describe --always --dirty 2>/dev/null || echo '?'))"

"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
cp --sparse=always "$work/images/ext4.img" "$work/stick.img"
cp --sparse=always "$work/images/ext3.img" "$work/internal.img"
cp --sparse=always "$work/images/ext2.img" "$work/ext2.img"
"$top/tools/vm/mkinitramfs.sh" --file "$build/mount.ext4" --file "$here/cases" \
	"$work/initramfs.cpio.gz" "$here/guest.sh" >/dev/null ||
	harness_fail "tools/vm/mkinitramfs.sh failed"

rc=0
"$top/tools/vm/run-vm.sh" --out "$work/vm" "$kernel" "$work/initramfs.cpio.gz" \
	"$work/stick.img" "$work/internal.img" "$work/ext2.img" 500 >/dev/null || rc=$?
g=$work/vm/guest/guest
if [ "$rc" -eq 0 ] && [ -f "$work/vm/guest/DONE" ] && [ "$(cat "$g/rc" 2>/dev/null)" = 0 ] &&
	[ -f "$g/passes-done" ]; then
	echo "PASS differential.guest_finished"
else
	echo "FAIL differential.guest_finished: run-vm status $rc, guest script status $(cat "$g/rc" 2>/dev/null); serial log ends: $(tail -n 3 "$work/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
fi
[ ! -s "$g/results" ] || cat "$g/results"
judge "$g"
log "wall time $((SECONDS - start)) s (VM $(cat "$work/vm/boot-seconds" 2>/dev/null) s)"
exit 0
