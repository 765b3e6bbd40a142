#!/usr/bin/env bash
# Build an extown test kernel (bzImage) from a Debian kernel source
# package (linux-source-6.1, linux-source-6.12, ...).
#
#   tools/kernel/build-kernel.sh [--base BASE] [--w1] VARIANT
#
# --base: which Debian kernel source and which series of kernel-patches/
# (kernel-patches/BASE/series): a BASE of the table tools/kernel/bases,
# which names its source package, its version and where it comes from
# (tools/kernel/fetch-source.sh fetches it); default its first line
# (EXTOWN_KERNEL_BASE overrides the default).
# EXTOWN_KERNEL_TARBALL: another tarball of that source for the base built.
# EXTOWN_KERNEL_JOBS: make -j (default nproc; more when the machine is
# shared with other builds).
#
# VARIANT:
#   unpatched             the base as Debian ships it, EXT2_FS=y
#   patched               + kernel-patches/BASE/series applied, EXT2_FS=y
#   patched-ext4-for-ext2 + kernel-patches/BASE/series, EXT2_FS off and
#                         EXT4_USE_FOR_EXT2=y (Debian's configuration)
#
# Everything lives in ${EXTOWN_CACHE:-/var/cache/extown}, outside the clone,
# one directory per base:
#   BASE/src/              our own git checkout of the tarball (tag "base",
#                          branch "extown-patched" = base + the series)
#   BASE/build/CONFIG/     the out-of-tree (O=) build directory, one per
#                          configuration: "default" is shared by unpatched
#                          and patched (the same .config; switching between
#                          them recompiles only what the series touches),
#                          "ext4-for-ext2" for patched-ext4-for-ext2
#   ccache/                ccache directory shared by all bases
#                          (CCACHE_MAXSIZE, default 5G; EXTOWN_CCACHE_DIR
#                          overrides the directory, e.g. for a cold build)
#   BASE/out/VARIANT/bzImage  the result; BASE/out/VARIANT/key is the hash
#                          of the inputs it was built from (series +
#                          patches + config fragments + this script); a
#                          matching key skips all work
#   BASE/out/VARIANT/build.log the last build's make output
# The path of bzImage is the last line printed on stdout.
#
# --w1: rebuild the fs/ext4 and fs/ext2 objects of VARIANT with W=1 and
# save the compiler warnings to BASE/out/VARIANT/w1-warnings.txt (full make
# output in w1.log; w1-warnings.nolines.txt has the line numbers
# stripped); that file's path is the last stdout line. Compare patched vs
# unpatched with diff of the .nolines files.
#
# Exit status: 0 ok, 1 patches do not apply / build failed / config lacks
# requested symbols, 2 usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${EXTOWN_CACHE:-/var/cache/extown}
jobs=${EXTOWN_KERNEL_JOBS:-$(nproc)}

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
T_LOG='build-kernel'
usage() {
	echo "usage: $0 [--base $(bases_listed | paste -sd '|')] [--w1] unpatched|patched|patched-ext4-for-ext2" >&2
	exit 2
}

w1=no
base=${EXTOWN_KERNEL_BASE:-$(base_default)}
while [ $# -gt 1 ]; do
	case $1 in
	--w1) w1=yes ;;
	--base)
		base=${2:-}
		shift
		;;
	--base=*) base=${1#--base=} ;;
	*) usage ;;
	esac
	shift
done
[ $# -eq 1 ] || usage
variant=$1
if ! package=$(base_field "$base" package); then
	log "unknown base '$base' (tools/kernel/bases: $(bases_listed | tr '\n' ' '))"
	usage
fi
tarball=${EXTOWN_KERNEL_TARBALL:-$(base_tarball "$base")}
kversion="Linux $(base_field "$base" version) (Debian $package)"
case $variant in
unpatched | patched)
	fragments=("$here/extown.config")
	config_name=default
	;;
patched-ext4-for-ext2)
	fragments=("$here/extown.config" "$here/ext4-for-ext2.config")
	config_name=ext4-for-ext2
	;;
*) usage ;;
esac
# Symbols that differ between the bases (applied after the others).
if [ -f "$here/extown-$base.config" ]; then
	fragments+=("$here/extown-$base.config")
fi
patchdir=$top/kernel-patches/$base
src=$cache/$base/src

# The Debian packages it needs (a no-op when they are installed), and the
# source of this base (a no-op when it is there).
"$top/tools/install-deps.sh" >&2
if [ -z "${EXTOWN_KERNEL_TARBALL:-}" ]; then
	"$here/fetch-source.sh" "$base" >/dev/null
fi
[ -f "$tarball" ] || die "$tarball is missing"

build=$cache/$base/build/$config_name
out=$cache/$base/out/$variant
mkdir -p "$cache" "$build" "$out"

export CCACHE_DIR=${EXTOWN_CCACHE_DIR:-$cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Do not let the absolute source path defeat ccache hits between variants.
export CCACHE_BASEDIR=$cache
export ARCH=x86_64
export KBUILD_BUILD_USER=extown KBUILD_BUILD_HOST=extown
git_id=(-c user.name=extown-build -c user.email=extown-build@localhost
	-c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false)
g() { git -C "$src" "${git_id[@]}" "$@"; }

# The patch files named by kernel-patches/series, in order (may be empty).
series_patches() {
	local f=$patchdir/series line
	[ -f "$f" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=$(echo "$line" | tr -d '[:space:]')
		[ -n "$line" ] && echo "$line"
	done <"$f"
}

mapfile -t patches < <(series_patches)
if [ "$variant" != unpatched ] && [ ${#patches[@]} -eq 0 ]; then
	log "WARNING: ****************************************************"
	log "WARNING: kernel-patches/$base/series is missing or empty:"
	log "WARNING: variant '$variant' is built WITHOUT any extown patch"
	log "WARNING: ****************************************************"
fi
for p in "${patches[@]}"; do
	[ -f "$patchdir/$p" ] || die "kernel-patches/$base/series names $p, which does not exist"
done

# Hash of everything the result depends on.
series_hash() {
	local p
	{
		for p in "${patches[@]}"; do
			echo "== $p"
			cat "$patchdir/$p"
		done
	} | sha256sum | cut -d' ' -f1
}
input_key() {
	{
		echo "base $base variant $variant"
		echo "tarball $(basename "$tarball") $(stat -c %s "$tarball")"
		if [ "$variant" != unpatched ]; then
			echo "series $(series_hash)"
		fi
		cat "${fragments[@]}" "${BASH_SOURCE[0]}"
	} | sha256sum | cut -d' ' -f1
}

# Our own git checkout of the tarball, made once.
ensure_src() {
	if [ -d "$src/.git" ] && g rev-parse -q --verify refs/tags/base >/dev/null; then
		return
	fi
	log "creating source checkout $src from $tarball (once, ~2 min)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	git -C "$src.tmp" init -q -b extown-base-import
	git -C "$src.tmp" config core.untrackedCache true
	git -C "$src.tmp" config gc.auto 0
	git -C "$src.tmp" add -f -A .
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
		git -C "$src.tmp" "${git_id[@]}" commit -q -m "$kversion"
	git -C "$src.tmp" tag base
	mv "$src.tmp" "$src"
}

# Put the source tree in the state VARIANT needs. git only rewrites files
# whose content differs, and gives them a new mtime, so make rebuilds
# exactly what the patches changed.
prepare_tree() {
	# A git am interrupted (killed) in an earlier run.
	if [ -d "$src/.git/rebase-apply" ]; then
		g am --abort || true
	fi
	if [ "$variant" = unpatched ]; then
		g checkout -q -f --detach base
		return
	fi
	local want have
	want=$(series_hash)
	have=$(g config --get extown.appliedSeries || true)
	if [ "$want" = "$have" ] && g rev-parse -q --verify refs/heads/extown-patched >/dev/null; then
		g checkout -q -f extown-patched
		return
	fi
	g config --unset extown.appliedSeries || true
	g checkout -q -f -B extown-patched base
	local p
	for p in "${patches[@]}"; do
		log "applying $p"
		if ! g am -q --keep-cr "$patchdir/$p" >&2; then
			g am --abort || true
			g checkout -q -f --detach base
			g branch -q -D extown-patched || true
			echo "build-kernel: kernel-patches do not apply to $kversion: $p" >&2
			exit 1
		fi
	done
	g config extown.appliedSeries "$want"
}

# The .config lines the fragments ask for (later fragments win) that the
# generated .config does not have.
missing_symbols() {
	local cfg=$1
	shift
	cat "$@" | sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1 n/p' |
		awk -v cfg="$cfg" '
			BEGIN {
				while ((getline l < cfg) > 0) {
					if (l ~ /^CONFIG_/) {
						i = index(l, "=")
						have[substr(l, 1, i - 1)] = substr(l, i + 1)
					}
				}
			}
			{ want[$1] = $2; order[n++] = $1 }
			END {
				for (i = 0; i < n; i++) {
					s = order[i]
					if (seen[s]++) continue
					w = want[s]; h = (s in have) ? have[s] : "n"
					if (w != h) printf "%s (asked %s, got %s)\n", s, w, h
				}
			}'
}

configure() {
	log "configuring $build: tinyconfig + ${fragments[*]##*/}"
	{
		make -s -C "$src" O="$build" CC="ccache gcc" tinyconfig &&
			"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" &&
			make -s -C "$src" O="$build" CC="ccache gcc" olddefconfig
	} >"$build/config.log" 2>&1 || die "configuration failed: see $build/config.log"
	local missing line
	missing=$(missing_symbols "$build/.config" "${fragments[@]}")
	if [ -n "$missing" ]; then
		log "the generated .config lacks symbols the fragments ask for:"
		while IFS= read -r line; do log "  $line"; done <<<"$missing"
		die "fix tools/kernel/*.config (a missing dependency?)"
	fi
}

main() {
	ensure_src
	prepare_tree
	local key
	key=$(input_key)
	if [ "$w1" = no ] && [ -f "$out/bzImage" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] &&
		[ "$(g rev-parse HEAD)" = "$(cat "$out/head" 2>/dev/null)" ]; then
		log "$variant is up to date (key ${key:0:12})"
		echo "$out/bzImage"
		return
	fi
	# The configuration depends on the fragments and this script only.
	local config_key
	config_key=$(cat "${fragments[@]}" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$build/.extown-config-key" 2>/dev/null)" != "$config_key" ] || [ ! -f "$build/.config" ]; then
		configure
		echo "$config_key" >"$build/.extown-config-key"
	fi
	if [ "$w1" = yes ]; then
		# Objects already built without W=1 would not be recompiled.
		find "$build/fs/ext4" "$build/fs/ext2" -name '*.o' -delete 2>/dev/null || true
		log "W=1 build of fs/ext4/ fs/ext2/ ($variant)"
		local rc=0
		make -C "$src" O="$build" CC="ccache gcc" -j"$jobs" W=1 fs/ext4/ fs/ext2/ >"$out/w1.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || die "W=1 build failed (status $rc): see $out/w1.log"
		grep -E '(warning|error):' "$out/w1.log" | sed "s|^$src/||; s|^\.\./\.\./src/||" |
			sort -u >"$out/w1-warnings.txt" || true
		# Without line numbers, so that a diff shows new warnings only.
		sed -E 's/^([^:]*):[0-9]+(:[0-9]+)?:/\1:/' "$out/w1-warnings.txt" | sort -u >"$out/w1-warnings.nolines.txt"
		log "$(wc -l <"$out/w1-warnings.txt") W=1 warning lines"
		# The next normal build recompiles these objects without W=1.
		rm -f "$out/key"
		echo "$out/w1-warnings.txt"
		return
	fi
	log "building $variant bzImage (make -j$jobs, log $out/build.log)"
	local start rc=0
	start=$(date +%s)
	make -C "$src" O="$build" CC="ccache gcc" -j"$jobs" bzImage >"$out/build.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		grep -E 'error|Error' "$out/build.log" | head -n 20 >&2 || true
		die "make failed (status $rc): see $out/build.log"
	fi
	cp "$build/arch/x86/boot/bzImage" "$out/bzImage.tmp"
	mv "$out/bzImage.tmp" "$out/bzImage"
	cp "$build/.config" "$out/config"
	g rev-parse HEAD >"$out/head"
	echo "$key" >"$out/key"
	log "built $variant in $(($(date +%s) - start)) s"
	echo "$out/bzImage"
}

# One build of a base at a time: its variants share the source tree (other
# bases build beside it; ccache takes care of itself).
mkdir -p "$cache/$base"
exec 9>"$cache/$base/build.lock"
if ! flock -n 9; then
	log "waiting for another build-kernel.sh of $base (lock $cache/$base/build.lock)"
	flock 9
fi
main
