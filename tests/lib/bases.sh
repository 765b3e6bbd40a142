# shellcheck shell=bash
# The table of kernel bases, tools/kernel/bases (bash; sourced by tools
# and suites alike, after tests/lib/harness.sh), and the one reader of it:
#
#   bases_listed          every BASE of the table, in table order
#   bases_all             the bases whose SUITES has "all" (every suite
#                         runs them by default but those "-SUITE" leaves
#                         out), in table order
#   bases_for SUITE       the bases SUITE runs by default (SUITES has
#                         SUITE or SUITE=PARTS, or "all" without -SUITE)
#   base_parts BASE SUITE the parts of SUITE that BASE runs by default: the
#                         PARTS of SUITE=PARTS, one word each ("+" in the
#                         table), or "all" (e.g. base_parts 6.1 vm: the
#                         vm suite's kernel variants)
#   base_default          the first BASE
#   base_field BASE COL   COL of BASE's line: package, version, from
#                         or suites; status 1 when BASE is not in the table
#   base_tarball BASE     where BASE's kernel source tarball is (for a base
#                         not FROM apt, or FROM apt on a machine whose
#                         release lacks it: once tools/kernel/fetch-source.sh
#                         has fetched it)
#   base_from_host_apt BASE, base_apt_elsewhere BASE   (fetch-source.sh)
#   bases_selected [SUITE] $EXTOWN_KERNEL_BASES (default: bases_for SUITE,
#                         or bases_all without SUITE); dies on a base the
#                         table does not have

bases_table=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/kernel/bases

bases_listed() { awk '!/^#/ && NF { print $1 }' "$bases_table"; }

# The items of SUITES (comma-separated): "all", SUITE, -SUITE (not SUITE,
# after "all"), SUITE=PART+PART (SUITE, only those parts by default).
bases_for() {
	awk -v s="$1" '!/^#/ && NF {
		n = split($5, it, ","); all = 0; yes = 0; no = 0
		for (i = 1; i <= n; i++) {
			if (it[i] == "all") all = 1
			else if (it[i] == "-" s) no = 1
			else if (it[i] == s || index(it[i], s "=") == 1) yes = 1
		}
		if (yes || (all && !no)) print $1
	}' "$bases_table"
}

bases_all() { awk '!/^#/ && NF && ("," $5 ",") ~ /,all,/ { print $1 }' "$bases_table"; }

base_parts() {
	local suites
	suites=$(base_field "$1" suites) || return 1
	awk -v s="$2" -v l="$suites" 'BEGIN {
		n = split(l, it, ",")
		for (i = 1; i <= n; i++)
			if (index(it[i], s "=") == 1) {
				p = substr(it[i], length(s) + 2); gsub(/\+/, " ", p); print p; exit
			}
		print "all"
	}'
}

base_default() { bases_listed | head -n 1; }

base_field() {
	local col
	case $2 in
	package) col=2 ;;
	version) col=3 ;;
	from) col=4 ;;
	suites) col=5 ;;
	*) return 2 ;;
	esac
	awk -v b="$1" -v c="$col" '!/^#/ && $1 == b { print $c; found = 1 } END { exit !found }' "$bases_table"
}

# base_from_host_apt BASE: FROM is apt and the machine's apt sources have
# PACKAGE of the base's VERSION (a Debian 13 host has no linux-source-6.1)
base_from_host_apt() {
	local package v
	[ "$(base_field "$1" from)" = apt ] || return 1
	package=$(base_field "$1" package) || return 1
	v=$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] && [ "${v%%-*}" = "$(base_field "$1" version)" ]
}

# base_apt_elsewhere BASE: SUITE=DEBVERSION of the base's PACKAGE of its
# VERSION in the first release of tools/releases that has it (private apt
# lists: tests/lib/releases.sh release_apt, which the caller has sourced)
base_apt_elsewhere() {
	local package version r line
	package=$(base_field "$1" package) || return 1
	version=$(base_field "$1" version)
	for r in $(releases_all); do
		line=$(release_apt "$r" apt-cache madison "$package" 2>/dev/null |
			awk -F'|' -v v="$version" '{ gsub(/ /, "", $2) } index($2, v "-") == 1 {
				split($3, w, " "); sub(/\/.*/, "", w[2]); print w[2] "=" $2; exit }')
		[ -z "$line" ] || { echo "$line"; return 0; }
	done
	return 1
}

base_tarball() {
	local package from d
	package=$(base_field "$1" package) || return 1
	from=$(base_field "$1" from) || return 1
	if [ "$from" = apt ]; then
		# fetched from another release (fetch-source.sh) where the
		# machine's apt has no such package
		if [ ! -f "/usr/src/$package.tar.xz" ]; then
			for d in "${EXTOWN_CACHE:-/var/cache/extown}/sources/${package}_$(base_field "$1" version)"-*/; do
				[ ! -f "$d$package.tar.xz" ] || { echo "$d$package.tar.xz"; return 0; }
			done
		fi
		echo "/usr/src/$package.tar.xz"
	else
		echo "${EXTOWN_CACHE:-/var/cache/extown}/sources/${package}_${from#*=}/$package.tar.xz"
	fi
}

bases_selected() {
	local b list=${EXTOWN_KERNEL_BASES:-}
	if [ -z "$list" ]; then
		if [ $# -gt 0 ]; then list=$(bases_for "$1"); else list=$(bases_all); fi
	fi
	for b in $list; do
		base_field "$b" package >/dev/null ||
			die "EXTOWN_KERNEL_BASES: no base $b in tools/kernel/bases ($(bases_listed | tr '\n' ' '))"
	done
	# shellcheck disable=SC2086 # one word per base
	echo $list
}
