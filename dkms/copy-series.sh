#!/usr/bin/env bash
# Build time of extown-dkms (debian/rules): copy the kernel patch series of
# every base the tree has into the DKMS source directory, and print the
# bases as an extended regular expression for dkms.conf's
# BUILD_EXCLUSIVE_KERNEL ("6\.1|6\.12").
#
#   dkms/copy-series.sh KERNEL-PATCHES-DIR DEST
#
# A series per base: KERNEL-PATCHES-DIR/BASE/series (BASE like 6.1, 6.12),
# each with the patches it lists. Without any, the single series
# KERNEL-PATCHES-DIR/series, whose base is the first word of
# KERNEL-PATCHES-DIR/BASE (6.1.192 -> 6.1). DEST/patches/BASE/ gets the
# series file and exactly the patches it lists (not the cover letter).
set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 KERNEL-PATCHES-DIR DEST" >&2
	exit 2
}
kp=$1 dest=$2
die() {
	echo "copy-series: $*" >&2
	exit 1
}

declare -A dirs=()
for s in "$kp"/*/series; do
	[ -f "$s" ] || continue
	d=${s%/series}
	dirs[${d##*/}]=$d
done
if [ ${#dirs[@]} -eq 0 ]; then
	[ -f "$kp/series" ] || die "no $kp/*/series and no $kp/series"
	base=$(awk 'NR == 1 { print $1 }' "$kp/BASE" 2>/dev/null) || true
	base=$(sed -n 's/^\([0-9]\+\.[0-9]\+\).*/\1/p' <<<"$base")
	[ -n "$base" ] || die "cannot read the base version from $kp/BASE"
	dirs[$base]=$kp
fi

re=''
for base in $(printf '%s\n' "${!dirs[@]}" | sort -V); do
	case $base in *[!0-9.]* | .* | *.) die "series directory $base is not a kernel base like 6.1" ;; esac
	d=${dirs[$base]}
	mkdir -p "$dest/patches/$base"
	install -m 0644 "$d/series" "$dest/patches/$base/series"
	n=0
	while read -r p; do
		[ -f "$d/$p" ] || die "$d/series lists $p, which is not there"
		install -m 0644 "$d/$p" "$dest/patches/$base/$p"
		n=$((n + 1))
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$d/series")
	[ "$n" -gt 0 ] || die "$d/series lists no patch"
	re="${re:+$re|}${base//./\\.}"
done
echo "$re"
