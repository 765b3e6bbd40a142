#!/usr/bin/env bash
# Differential test of the mount helper against util-linux mount(8) itself
# (issue 10): every request of tests/differential/cases (fstab entry x
# caller x command line) is run in the busybox test VM by the real setuid
# mount(8) (the host's: 2.38.1 on Debian 12), once with no mount.ext* helper
# installed and once with the helper installed (/usr/sbin/mount.ext4 setuid
# root, mount.ext3 and mount.ext2 symlinks). The guest
# (tests/differential/guest.sh) records exit status, mounts (per-mount and
# superblock options), the owner seen at each mount point, /run/mount/utab,
# the caller's umount and loop devices left. The guest boots twice (issue
# 18): on the patched kernel (tests "differential.CASE": the helper gives
# uid=,gid=) and on the unpatched kernel (tests
# "differential.fallback.CASE": the helper gives the owner through an
# idmapped mount). This script judges each case by the rules of
# docs/differential.md:
#   1. the helper mounts nothing mount(8) alone refuses (unless mount(8)
#      grants the case's "same-as" case, whose helper argv is identical up
#      to the order of the -o options:
#      then the helper's result must be mount(8)'s result for that case);
#   2. where both mount, the only difference is uid=,gid= (the expected
#      owner) plus nosuid,nodev on a tagged device, exactly where the
#      table's owner column expects it (and then it must be there) - on
#      the unpatched kernel instead the per-mount option idmapped plus
#      nosuid,nodev, no uid=/gid=, and type ext4 for ext2/ext3; the owner
#      seen at the mount point is the expected owner there and mount(8)
#      alone's elsewhere; a mount(8) alone grants is mounted with the
#      helper too;
#   3. the caller's umount gives the same status, the same mounts remain,
#      and no loop device is left that mount(8) alone does not leave;
#   4. /run/mount/utab holds no line mount(8) alone does not write (nor
#      more copies of one), after the command and after the umount;
#   5. root requests pass through (root is a caller like the others: same
#      comparison, owner only with default-owner on the tagged device).
#
#   tests/differential/run.sh                 build, boot both kernels, judge
#   tests/differential/run.sh --judge DIR [patched|unpatched]
#                                             judge the guest results in DIR
#                                             (the guest/guest of a kept run;
#                                             kernel: from DIR/info unless given)
#
# Environment: EXTOWN_DIFF_SRC=TREE builds the helper from another checkout
# (e.g. a `git worktree` of an older commit; default: this one);
# EXTOWN_DIFF_KERNEL=BZIMAGE uses that kernel instead of
# tools/kernel/build-kernel.sh patched, EXTOWN_DIFF_KERNEL_UNPATCHED=BZIMAGE
# instead of tools/kernel/build-kernel.sh unpatched;
# EXTOWN_DIFF_KERNELS="patched unpatched" (the default) the boots to make;
# EXTOWN_KEEP=1 keeps the work directory (guest records in
# vm/guest/guest/{nohelper,helper}/CASE/ for the patched kernel,
# vm-unpatched/guest/guest/... for the unpatched one).
#
# Then the same for each other release of tools/releases
# (tests/lib/releases.sh, release_children; EXTOWN_RELEASES picks them):
# that release's mount(8), umount(8) and libmount in the guest
# (tools/vm/mkinitramfs.sh --root its build tree: trixie's util-linux 2.41)
# and the helper built in its build tree, tests named differential.REL.CASE
# and differential.REL.fallback.CASE. EXTOWN_GUEST_RELEASE=REL makes only
# that release's boots (names differential.*; EXTOWN_DIFF_SRC ignored).
#
# stdout: "PASS differential.CASE" / "FAIL differential.CASE: why" per case,
# plus differential.guest_finished (differential.fallback.* likewise on the
# unpatched kernel); the tables (case | mount(8) alone | with helper |
# verdict) and everything else go to stderr. Exit 0 whatever the
# tests say, 1 when the harness broke.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$top/tests/differential
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"

# Devices the guest tags removable (guest.sh): ownership is expected only there.
tagged=" /dev/vdb /dev/vdd "
# How the helper gives an owner: "uid" (patched kernel: uid=,gid= in the
# superblock options) or "idmap" (unpatched kernel: the fallback's idmapped
# mount, type ext4); set by judge.
owner_by=uid

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

# The arguments sorted (C order), duplicates removed, into array VAR;
# with -k duplicates are kept (two stacked mounts alike are two mounts).
sort_into() { # [-k] VAR WORD...
	local _keep=""
	if [ "$1" = -k ]; then
		_keep=1
		shift
	fi
	local -n _so=$1
	shift
	local _w _i _n _pos _dup
	_so=()
	for _w in "$@"; do
		_n=${#_so[@]} _pos=${#_so[@]} _dup=0
		for ((_i = 0; _i < _n; _i++)); do
			if [ -z "$_keep" ] && [[ ${_so[_i]} == "$_w" ]]; then
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
# the helper is to add: nosuid,nodev per mount, and uid=,gid= in the
# superblock (patched kernel) or the per-mount idmapped and type ext4 for
# ext2/ext3 (the fallback on the unpatched kernel).
norm_mounts() { # VAR FILE [OWNER]
	local -n _nm=$1
	local owner=${3:--} mp root src type per sup o
	local -a lines=() sorted=()
	[ -f "$2" ] || {
		_nm=""
		return 0
	}
	while read -r mp root src type per sup; do
		[ -n "$mp" ] || continue
		if [ "$owner" != - ] && [[ $tagged == *" $src "* ]]; then
			per="$per,nosuid,nodev"
			if [ "$owner_by" = idmap ]; then
				per="$per,idmapped"
				if [ "$type" = ext2 ]; then
					# the ext2 driver shows these whenever they are set, the ext4
					# driver (which the fallback mounts ext2 with) only where
					# they are not its defaults: the same settings
					sup=",$sup,"
					for o in user_xattr acl errors=continue; do sup=${sup//,$o,/,}; done
					sup=${sup#,} sup=${sup%,}
				fi
				case $type in ext2 | ext3) type=ext4 ;; esac
			else
				sup="$sup,uid=${owner%%:*},gid=${owner##*:}"
			fi
		fi
		sort_opts per "$per"
		sort_opts sup "$sup"
		lines+=("$mp $root $src $type $per $sup")
	done <"$2"
	sort_into -k sorted "${lines[@]}"
	printf -v _nm '%s; ' "${sorted[@]}"
	_nm=${_nm%; }
}

# Lines of file A (from field SKIP+1 on) that are not in file B, "; "-joined;
# counted: a line A has twice and B once is one extra (a stacked mount's
# second utab entry).
extra_lines() { # VAR A B [SKIP]
	local -n _el=$1
	local -A seen=()
	local l skip=${4:-0}
	_el=""
	if [ -f "$3" ]; then
		while IFS= read -r l; do
			[ "$skip" = 0 ] || l=${l#* }
			[ -z "$l" ] || seen["$l"]=$((${seen["$l"]:-0} + 1))
		done <"$3"
	fi
	[ -f "$2" ] || return 0
	while IFS= read -r l; do
		[ "$skip" = 0 ] || l=${l#* }
		[ -n "$l" ] || continue
		if [ "${seen["$l"]:-0}" -gt 0 ]; then
			seen["$l"]=$((${seen["$l"]} - 1))
		else
			_el+="$l; "
		fi
	done <"$2"
	_el=${_el%; }
}

# The owners record (guest.sh: "MOUNTPOINT SOURCE UID:GID" per mount),
# normalised: "MOUNTPOINT UID:GID; ..." sorted; with OWNER the mounts of
# tagged devices are expected to show OWNER, or TOP where two mounts are
# stacked on one mount point (root's stat sees the top one). Empty when FILE
# is missing (records of a guest from before the owners record).
norm_owners() { # VAR FILE [OWNER [TOP]]
	local -n _no=$1
	local owner=${3:--} top=${4:-} mp src ids
	local -a lines=() sorted=()
	local -A on=()
	_no=""
	[ -f "$2" ] || return 0
	while read -r mp _; do on[$mp]=$((${on[$mp]:-0} + 1)); done <"$2"
	while read -r mp src ids; do
		[ -n "$mp" ] || continue
		if [ "$owner" != - ] && [[ $tagged == *" $src "* ]]; then
			ids=$owner
			# two mounts stacked on MP: root's stat sees the top one
			[ -z "$top" ] || [ "${on[$mp]}" -lt 2 ] || ids=$top
		fi
		lines+=("$mp $ids")
	done <"$2"
	sort_into -k sorted "${lines[@]}"
	printf -v _no '%s; ' "${sorted[@]}"
	_no=${_no%; }
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

# k13_basis N H DIR: for a case marked k13 on the patched kernel, where
# mount(8) alone made a second mount of a mounted device stacked on the
# first (exit 0; libmount's fd-based mount, util-linux 2.39+) and the
# helper's second mount, with another owner, was refused by the kernel (exit
# 32, EBUSY: K13, "already mounted"): DIR gets N's records without that
# second mount (the top one: the last mount and owner lines, the first
# umount), exit 32 - what mount(2) gives, and so mount(8) 2.38. Only when
# the records show that refusal: the helper's message is the kernel's
# EBUSY ("already mounted", "busy"), and its mounts are mount(8) alone's
# (mount point and source) without the top one; a helper that exited 32
# for another reason is judged against mount(8) alone as it is. Status 1
# (DIR untouched) when the records are not that.
k13_basis() {
	local n=$1 h=$2 d=$3 rcn rch lines
	read -r rcn <"$n/rc"
	read -r rch <"$h/rc"
	lines=$(grep -c . "$n/mounts" 2>/dev/null || true)
	[ "$rcn" = 0 ] && [ "$rch" = 32 ] && [ "${lines:-0}" -ge 2 ] || return 1
	grep -qiE 'already mounted|busy' "$h/msg" 2>/dev/null || return 1
	[ "$(head -n -1 "$n/mounts" | awk '{ print $1, $3 }')" = "$(awk '{ print $1, $3 }' "$h/mounts")" ] ||
		return 1
	rm -rf "$d"
	mkdir -p "$d"
	cp -r "$n"/. "$d"/
	echo 32 >"$d/rc"
	head -n -1 "$n/mounts" >"$d/mounts"
	[ ! -f "$n/owners" ] || head -n -1 "$n/owners" >"$d/owners"
	tail -n +2 "$n/umount" >"$d/umount"
}

# The guest's kernel from its info file: "patched" when ext4 has the
# uid_gid_override feature file, "unpatched" when it has not, "" unknown.
guest_kernel() { # VAR GUESTDIR
	local -n _gk=$1
	local l
	_gk=""
	[ -f "$2/info" ] || return 0
	while IFS= read -r l; do
		case $l in
		"ext4 features: "*uid_gid_override*) _gk=patched ;;
		"ext4 features: "*) _gk=unpatched ;;
		esac
	done <"$2/info"
}

judge() { # GUESTDIR patched|unpatched
	local g=$1 kernel=$2 t=differential name caller policy bef owner same cmd N H B basis pass=0 fail=0
	local nh nb x y rcn rcs an as sn sh verdict joined seen umounter
	local -a why
	owner_by=uid
	if [ "$kernel" = unpatched ]; then
		t=differential.fallback owner_by=idmap
	fi
	if [ ! -d "$g/nohelper" ] || [ ! -d "$g/helper" ]; then
		fail_always "$t.guest_passes" "no records of both passes in $g"
		return 0
	fi
	guest_kernel seen "$g"
	if [ -n "$seen" ] && [ "$seen" != "$kernel" ]; then
		fail_always "$t.guest_kernel" "judged as the $kernel kernel, but the guest ran the $seen one (ext4 features in $g/info)"
	fi
	log "table, $kernel kernel (case | mount(8) alone | with helper | verdict):"
	echo "| case | caller, policy, before: command | mount(8) alone | with helper | verdict |" >&2
	echo "|---|---|---|---|---|" >&2
	while IFS=$'\t' read -r name caller policy bef owner same cmd; do
		N=$g/nohelper/$name H=$g/helper/$name
		if [ ! -f "$N/rc" ] || [ ! -f "$H/rc" ]; then
			fail "$t.$name" "not run in both passes (guest stopped early?)"
			fail=$((fail + 1))
			continue
		fi
		umounter=${caller#*/}
		# PATCHED/UNPATCHED owners; unpatched:CASE same-as only there,
		# k13 only on the patched kernel
		if [ "$kernel" = unpatched ]; then
			owner=${owner#*/}
			[ "$same" != k13 ] || same=-
		else
			owner=${owner%%/*}
			[[ $same != unpatched:* ]] || same=-
		fi
		# OWNER+TOP: TOP is the owner seen where two mounts are stacked
		owner_top=""
		if [[ $owner == *+* ]]; then
			owner_top=${owner#*+} owner=${owner%%+*}
		fi
		why=()
		B=$N basis=""
		read -r rcn <"$N/rc"
		rcs=""
		if [[ $same == unpatched:* ]]; then
			# mount(8) alone fails on this kernel because root gave uid=/gid=,
			# which the kernel lacks; the helper gives them as an idmapped
			# mount: the basis is mount(8) alone's request without them
			same=${same#unpatched:}
			[ ! -f "$g/nohelper/$same/rc" ] || read -r rcs <"$g/nohelper/$same/rc"
			if [ "$rcn" != 0 ] && [ "$rcs" = 0 ]; then
				B=$g/nohelper/$same basis=" (mount(8) alone refuses uid=/gid= on this kernel; its result for $same)"
			fi
			same=-
		fi
		if [ "$same" = k13 ]; then
			k13_basis "$N" "$H" "$work/k13/$t.$name" && B=$work/k13/$t.$name basis=" (mount(8) alone stacks a second mount; the kernel gives one owner per superblock (K13), so the basis is its result without that mount)"
			same=-
		fi
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
				# mount(8) tells the helper the two apart (util-linux
				# 2.41 passes user=NAME on): mount(8) alone's own result
				# for this case is the basis
				log "$t.$name: same-as $same does not apply (helper argv [$an], [$as] for $same)"
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
		else
			# the same mounts: the owner they show (uid= or the idmapping)
			norm_owners nb "$B/owners" "$owner" "$owner_top"
			norm_owners nh "$H/owners"
			[ ! -f "$B/owners" ] || [ ! -f "$H/owners" ] || [ "$nb" = "$nh" ] ||
				why+=("owners seen at the mount points differ$basis: expected [$nb], got [$nh]")
		fi
		# the exit status: 0 exactly where mount(8) alone's is; where
		# mount(8) alone fails with 32 past its own user check (the kernel or
		# libmount refused: already mounted, a loop device), the same 32
		read -r x <"$B/rc"
		read -r y <"$H/rc"
		an=""
		[ ! -s "$B/msg" ] || IFS= read -r an <"$B/msg"
		if [ "$x" = 0 ] && [ "$y" != 0 ]; then
			why+=("exit status $y where mount(8) alone$basis gives 0")
		elif [ "$x" != 0 ] && [ "$y" = 0 ]; then
			why+=("exit status 0 where mount(8) alone$basis gives $x")
		elif [ "$x" = 32 ] && [ "$y" != 32 ] && [[ $an != *"must be superuser to use mount"* ]]; then
			why+=("exit status $y where mount(8) alone gives 32 (\"$an\")")
		fi
		# rule 3: the caller's umount, what stays mounted, loop devices
		umount_status sn "$B/umount"
		umount_status sh "$H/umount"
		[ "$sn" = "$sh" ] || why+=("umount by $umounter: mount(8) alone [$sn], helper [$sh]")
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
			pass "$t.$name"
			verdict=PASS
			pass=$((pass + 1))
		else
			printf -v joined '%s; ' "${why[@]}"
			fail "$t.$name" "${joined%; }"
			verdict="FAIL: ${why[0]}"
			fail=$((fail + 1))
		fi
		summary sn "$N"
		summary sh "$H"
		echo "| $name | $caller, $policy, $bef: \`$cmd\` | $sn | $sh | ${verdict//|//} |" >&2
	done < <(awk -F'|' -v OFS='\t' '/^[[:space:]]*(#|$)/ { next }
		{ for (i = 1; i <= NF; i++) { gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i) } print }' "$here/cases")
	log "$kernel kernel: $((pass + fail)) cases: $pass passed, $fail failed"
	if [ -f "$g/info" ]; then
		sed 's/^/    /' "$g/info" >&2
	fi
}

harness_init differential differential
if [ "${1:-}" = --judge ]; then
	if [ $# -lt 2 ] || [ $# -gt 3 ] || [ ! -d "$2" ] ||
		{ [ $# = 3 ] && [ "$3" != patched ] && [ "$3" != unpatched ]; }; then
		echo "usage: $0 [--judge GUESTDIR [patched|unpatched]]" >&2
		exit 2
	fi
	k=${3:-}
	[ -n "$k" ] || guest_kernel k "$2"
	judge "$2" "${k:-patched}"
	exit 0
fi
start=$SECONDS
src=${EXTOWN_DIFF_SRC:-$top}
read -ra kernels <<<"${EXTOWN_DIFF_KERNELS:-patched unpatched}"
declare -A bzimage=()
for v in "${kernels[@]}"; do
	case $v in
	patched) bzimage[$v]=${EXTOWN_DIFF_KERNEL:-} ;;
	unpatched) bzimage[$v]=${EXTOWN_DIFF_KERNEL_UNPATCHED:-} ;;
	*) harness_fail "EXTOWN_DIFF_KERNELS: unknown kernel $v (patched, unpatched)" ;;
	esac
	if [ -z "${bzimage[$v]}" ]; then
		bzimage[$v]=$("$top/tools/kernel/build-kernel.sh" "$v" | tail -n 1) ||
			harness_fail "tools/kernel/build-kernel.sh $v failed"
	fi
	[ -f "${bzimage[$v]}" ] || harness_fail "no bzImage at ${bzimage[$v]}"
done

# The helper as it is installed: /usr/sbin/mount.ext4, policy /etc/extown.conf;
# the guest's userspace: the host's, or with EXTOWN_GUEST_RELEASE that
# release's build tree and a helper built there
helper='' initrd_root=()
release_guest "$src" differential-helper helper initrd_root

"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
"$top/tools/vm/mkinitramfs.sh" "${initrd_root[@]}" --file "$helper" --file "$here/cases" \
	--file "$top/tests/lib/vmguest.sh" \
	"$work/initramfs.cpio.gz" "$here/guest.sh" >/dev/null ||
	harness_fail "tools/vm/mkinitramfs.sh failed"

for v in "${kernels[@]}"; do
	t0=$SECONDS
	t=differential vm=$work/vm
	if [ "$v" = unpatched ]; then
		t=differential.fallback vm=$work/vm-unpatched
	fi
	# fresh copies of the disks for each boot
	cp --sparse=always "$work/images/ext4.img" "$work/stick.img"
	cp --sparse=always "$work/images/ext3.img" "$work/internal.img"
	cp --sparse=always "$work/images/ext2.img" "$work/ext2.img"
	rc=0
	"$top/tools/vm/run-vm.sh" --out "$vm" "${bzimage[$v]}" "$work/initramfs.cpio.gz" \
		"$work/stick.img" "$work/internal.img" "$work/ext2.img" 500 >/dev/null || rc=$?
	g=$vm/guest/guest
	if [ "$rc" -eq 0 ] && [ -f "$vm/guest/DONE" ] && [ "$(cat "$g/rc" 2>/dev/null)" = 0 ] &&
		[ -f "$g/passes-done" ]; then
		pass "$t.guest_finished"
	else
		fail_always "$t.guest_finished" "run-vm status $rc, guest script status $(cat "$g/rc" 2>/dev/null); serial log ends: $(tail -n 3 "$vm/serial.log" 2>/dev/null | tr '\n' ' ')"
	fi
	# the guest's own set-up failures carry the patched kernel's names
	if [ -s "$g/results" ]; then
		sed "s/ differential\./ $t./" "$g/results" >"$g/results.named"
		t_relay "$g/results.named"
	fi
	judge "$g" "$v"
	log "$v kernel (${bzimage[$v]}): $((SECONDS - t0)) s (VM $(cat "$vm/boot-seconds" 2>/dev/null) s)"
done
log "wall time $((SECONDS - start)) s"
[ -n "${EXTOWN_GUEST_RELEASE:-}" ] || release_children differential "$0"
exit 0
