# shellcheck shell=bash
# The table of kernel bases, tools/kernel/bases (bash; sourced by tools
# and suites alike, after tests/lib/harness.sh):
#
#   bases_all             every BASE, in table order
#   base_default          the first BASE
#   base_field BASE COL   COL of BASE's line: package, version or stock;
#                         status 1 when BASE is not in the table
#   bases_selected        $EXTOWN_KERNEL_BASES (default: bases_all); dies
#                         on a base the table does not have

bases_table=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/kernel/bases

bases_all() { awk '!/^#/ && NF { print $1 }' "$bases_table"; }

base_default() { bases_all | head -n 1; }

base_field() {
	local col
	case $2 in
	package) col=2 ;;
	version) col=3 ;;
	stock) col=4 ;;
	*) return 2 ;;
	esac
	awk -v b="$1" -v c="$col" '!/^#/ && $1 == b { print $c; found = 1 } END { exit !found }' "$bases_table"
}

bases_selected() {
	local b list=${EXTOWN_KERNEL_BASES:-$(bases_all)}
	for b in $list; do
		base_field "$b" package >/dev/null ||
			die "EXTOWN_KERNEL_BASES: no base $b in tools/kernel/bases ($(bases_all | tr '\n' ' '))"
	done
	# shellcheck disable=SC2086 # one word per base
	echo $list
}
