# shellcheck shell=bash
# The table of Debian releases, tools/releases (bash; sourced after
# tests/lib/harness.sh):
#
#   releases_all            every RELEASE (codename), in table order
#   release_default         the first RELEASE (the one a user installs today)
#   release_field REL COL   COL of REL's line: version, suites, stock or
#                           patched (comma lists printed one per line);
#                           status 1 when REL is not in the table
#   releases_selected       $EXTOWN_RELEASES (default: releases_all); dies
#                           on a release the table does not have
#   release_sources REL MIRROR
#                           a one-line-style sources.list for REL (the
#                           security suites from MIRROR's -security archive)
#   release_mirror          the Debian mirror: $EXTOWN_E2E_MIRROR, else the
#                           first non-security URI of the host's apt sources
#   release_host            the host's own release (VERSION_CODENAME of
#                           /etc/os-release)
#   release_boot_bases REL SUITE
#                           the bases (on one line) whose kernels SUITE
#                           (e2e, dkms) boots on REL's tree: with
#                           EXTOWN_KERNEL_BASES those, on every release;
#                           else, of bases_selected SUITE, REL's own base
#                           only: the first of its STOCK column, the kernel
#                           linux-image-amd64 installs. Another release's
#                           own base (6.12 on bookworm, from
#                           bookworm-security) boots on its own release's
#                           tree, and on REL's when asked. Needs
#                           tests/lib/bases.sh.
#   release_tree_bases REL  the bases (on one line) of the Debian kernels
#                           REL's stock tree installs (tools/e2e/mkroot-stock.sh):
#                           on the first release of the table every base of
#                           its STOCK column (a second kernel, not running,
#                           whose initramfs the guest's purge of extown-dkms
#                           must rebuild: tests/dkms), on the others REL's
#                           own base and the STOCK bases release_boot_bases
#                           names for the e2e or dkms suite (so bookworm's
#                           tree has 6.12 only in a run that boots it).
#                           Needs tests/lib/bases.sh.
#   releases_in_build_roots the releases_selected other than the host's:
#                           the ones a suite runs in tools/in-build-root.sh
#   release_relay REL SUITE FILE [host]
#                           the PASS/FAIL/SKIP lines of FILE (a run of the
#                           suite in REL's build tree) with "SUITE." made
#                           "SUITE.REL." (helper.H3.x -> helper.trixie.H3.x),
#                           those the filter selects (and a harness's
#                           FAIL or SKIP, t_always, whatever it selects),
#                           paths under $top/build/ made $top/build/REL/
#                           (where tools/in-build-root.sh keeps them; not
#                           with "host": a run on the host for REL);
#                           status 1 when FILE holds no result line at all
#   release_child_result REL SUITE FILE STATUS LOG [host]
#                           a child run's end: release_relay of FILE, then
#                           "FAIL SUITE.REL.harness" (never filtered) when
#                           FILE held no result line, or when the child
#                           exited with STATUS other than 0 (a crash or an
#                           abort after some results: every suite's script
#                           exits 0 whatever its tests said), LOG named
#   release_children SUITE SCRIPT
#                           for each of releases_in_build_roots: SCRIPT
#                           again with EXTOWN_GUEST_RELEASE=REL (its guests
#                           boot that release's userspace: see the next
#                           two), its output in $top/build/REL/SUITE.out
#                           and .log, relayed by release_relay; the filter
#                           is passed down with "REL." taken out of each
#                           pattern, so that "privilege.trixie.fallback"
#                           runs the child's privilege.fallback.* tests
#   release_guest SRC BUILDNAME HELPERVAR ROOTVAR
#                           the helper and userspace of a suite's busybox
#                           guests: without EXTOWN_GUEST_RELEASE, mount.ext4
#                           built on the host from the checkout SRC in
#                           $work/BUILDNAME (harness_build_helper) and ROOTVAR
#                           (an array) empty: the host's tools; with
#                           EXTOWN_GUEST_RELEASE=REL, mount.ext4 built in
#                           REL's build tree (tools/in-build-root.sh,
#                           tools/build-helper.sh: that release's compiler
#                           and libmount) in $top/build/REL/BUILDNAME and
#                           ROOTVAR "--root TREE" (REL's build tree,
#                           tools/build-root.sh) for tools/vm/mkinitramfs.sh:
#                           the guest's mount(8) and libraries; the helper's
#                           path into HELPERVAR; harness_fail on failure

releases_table=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/releases

releases_all() { awk '!/^#/ && NF { print $1 }' "$releases_table"; }

release_default() { releases_all | head -n 1; }

release_field() {
	local col
	case $2 in
	version) col=2 ;;
	suites) col=3 ;;
	stock) col=4 ;;
	patched) col=5 ;;
	*) return 2 ;;
	esac
	awk -v r="$1" -v c="$col" '!/^#/ && $1 == r { found = 1; if ($c != "-") print $c } END { exit !found }' \
		"$releases_table" | tr ',' '\n'
}

releases_selected() {
	local r list=${EXTOWN_RELEASES:-$(releases_all)}
	for r in $list; do
		release_field "$r" version >/dev/null ||
			die "EXTOWN_RELEASES: no release $r in tools/releases ($(releases_all | tr '\n' ' '))"
	done
	# shellcheck disable=SC2086 # one word per release
	echo $list
}

release_mirror() {
	local m=${EXTOWN_E2E_MIRROR:-}
	if [ -z "$m" ]; then
		# deb822 (URIs: ...) or one-line (deb URI suite ...) sources
		m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ && $2 ~ /debian$/ && $2 !~ /security/ { print $2; exit }')
		[ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" && $2 !~ /security/ && $3 ~ /^(bookworm|trixie)/ { print $2; exit }')
	fi
	[ -n "$m" ] || die "no Debian mirror found in the apt sources; set EXTOWN_E2E_MIRROR"
	echo "$m"
}

release_sources() {
	local s security=${EXTOWN_SECURITY_MIRROR:-${2%/debian}/debian-security}
	for s in $(release_field "$1" suites); do
		case $s in
		*-security) echo "deb $security $s main" ;;
		*) echo "deb $2 $s main" ;;
		esac
	done
}

# release_apt REL apt-get|apt-cache ARG...: that apt command on the host
# with REL's own sources and lists, kept under $EXTOWN_CACHE/apt/REL (the
# machine's apt sources and lists are never touched); the lists are fetched
# on first use, again when older than a day or when tools/releases changed
# the release's suites. One command at a time per release (apt/REL.lock):
# the trees built in the background (tools/build-trees.sh) and a suite may
# ask at once, and apt's own locks are off for these private directories.
release_apt() {
	local rel=$1 cmd=$2 dir want
	shift 2
	dir=${EXTOWN_CACHE:-/var/cache/extown}/apt/$rel
	local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State=$dir/state" -o "Dir::Cache=$dir/cache" -o Debug::NoLocking=1)
	want=$(release_sources "$rel" "$(release_mirror)") || return 1
	mkdir -p "$dir"
	(
		flock 9
		if [ ! -f "$dir/updated" ] || [ -n "$(find "$dir/updated" -mmin +1440)" ] ||
			[ "$want" != "$(cat "$dir/sources.list" 2>/dev/null)" ]; then
			mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial"
			echo "$want" >"$dir/sources.list"
			apt-get "${opts[@]}" update -q >&2 || exit 1
			touch "$dir/updated"
		fi
		"$cmd" "${opts[@]}" "$@"
	) 9>"$dir.lock"
}

release_host() {
	(
		# shellcheck disable=SC1091 # the host's file
		. /etc/os-release
		echo "${VERSION_CODENAME:-}"
	)
}

release_boot_bases() {
	local b own
	if [ -n "${EXTOWN_KERNEL_BASES:-}" ]; then
		bases_selected "$2"
		return
	fi
	own=$(release_field "$1" stock | head -n 1)
	for b in $(bases_selected "$2"); do
		[ "$b" != "$own" ] || echo "$b"
	done | tr '\n' ' '
	echo
}

release_tree_bases() {
	local b own boot
	if [ "$1" = "$(release_default)" ]; then
		release_field "$1" stock | tr '\n' ' '
		echo
		return
	fi
	own=$(release_field "$1" stock | head -n 1)
	boot=" $(release_boot_bases "$1" e2e) $(release_boot_bases "$1" dkms) "
	for b in $(release_field "$1" stock); do
		if [ "$b" = "$own" ] || [[ $boot == *" $b "* ]]; then
			echo "$b"
		fi
	done | tr '\n' ' '
	echo
}

releases_in_build_roots() {
	local r host
	host=$(release_host)
	for r in $(releases_selected); do
		[ "$r" = "$host" ] || echo "$r"
	done
}

release_relay() {
	local rel=$1 suite=$2 line name any=1
	[ -f "$3" ] || return 1
	while IFS= read -r line; do
		case $line in PASS\ "$suite".* | FAIL\ "$suite".* | SKIP\ "$suite".*) ;; *) continue ;; esac
		any=0
		line="${line%% *} $suite.$rel.${line#* "$suite".}"
		# the tree's $top/build is the host's $top/build/REL
		[ -z "${top:-}" ] || [ "${4:-}" = host ] || line=${line//"$top/build/"/"$top/build/$rel/"}
		name=${line#* }
		case $line in
		PASS\ *) t_match "${name%%: *}" || continue ;;
		*) t_match "${name%%: *}" || t_always "${name%%: *}" || continue ;;
		esac
		t_line "$line"
	done <"$3"
	return "$any"
}

release_child_result() {
	local rel=$1 suite=$2 out=$3 rc=$4 log=$5
	if ! release_relay "$rel" "$suite" "$out" "${6:-}"; then
		fail_always "$suite.$rel.harness" "no results from $rel (status $rc; see $log)"
	elif [ "$rc" -ne 0 ]; then
		fail_always "$suite.$rel.harness" "exited with status $rc after its results (see $log)"
	fi
}

release_children() {
	local suite=$1 script=$2 rel rc pat filter
	for rel in $(releases_in_build_roots); do
		filter=''
		for pat in ${EXTOWN_TEST_FILTER:-}; do
			pat=${pat//"$rel."/}
			[ "$pat" != "$rel" ] || pat='*'
			filter+="${filter:+ }$pat"
		done
		mkdir -p "$top/build/$rel"
		rc=0
		EXTOWN_GUEST_RELEASE=$rel EXTOWN_TEST_FILTER=$filter "$script" \
			>"$top/build/$rel/$suite.out" 2>"$top/build/$rel/$suite.log" || rc=$?
		release_child_result "$rel" "$suite" "$top/build/$rel/$suite.out" "$rc" \
			"$top/build/$rel/$suite.log" host
	done
}

release_guest() {
	local -n _helper=$3 _root=$4
	local tree rel=${EXTOWN_GUEST_RELEASE:-}
	_root=()
	if [ -z "$rel" ]; then
		# shellcheck disable=SC2154 # $work: set by harness_init
		harness_build_helper "$1" "$work/$2"
		_helper=$work/$2/mount.ext4
		log "helper built from $1 ($(git -C "$1" describe --always --dirty 2>/dev/null || echo '?'))"
		return 0
	fi
	mkdir -p "$top/build/$rel"
	"$top/tools/in-build-root.sh" "$rel" "$top/tools/build-helper.sh" "$top/build/$2" >&2 ||
		harness_fail "cannot build mount.ext4 in $rel's build tree"
	_helper=$top/build/$rel/$2/mount.ext4
	tree=$("$top/tools/build-root.sh" "$rel" | tail -n 1) || harness_fail "no build tree for $rel"
	[ -x "$tree/usr/bin/mount" ] || harness_fail "no mount(8) in $rel's build tree $tree"
	_root=(--root "$tree")
	log "guests with $rel's userspace ($tree), the helper built there"
}
