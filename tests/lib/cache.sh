# shellcheck shell=bash
# The keyed cache: build a thing (a Debian tree, an image) once, keep it
# under ${EXTOWN_CACHE:-/var/cache/extown}, find it again by a key made of
# its inputs, let one builder at a time work on it, and drop the versions
# whose inputs are gone. Bash; sourced after tests/lib/harness.sh.
#
#   cache_key WORD...      16 hex digits: sha256 of every WORD that names a
#                          file (its content) or is a plain string (itself)
#   cache_tree AREA NAME KEY BUILDER [ARG...]
#                          prints the path of $EXTOWN_CACHE/AREA/NAME-KEY
#                          and sets cache_path to it (call it outside $(...):
#                          set -e does not reach into a command substitution).
#                          When it is not complete yet: takes the lock
#                          AREA/NAME.lock, runs BUILDER TMP ARG... with TMP a
#                          new directory in AREA (the builder fills it; its
#                          stdout goes to stderr), marks TMP complete, moves
#                          it into place and removes the other NAME-* of
#                          AREA. A builder that fails ends the script (set
#                          -e); TMP is removed then, after everything
#                          mounted on it through cache_mount.
#   cache_mount ARGS...    mount ARGS... (the last is the mount point);
#                          unmounted in reverse order when the builder ends
#                          (or by cache_umount_all: scripts that mount into
#                          a chroot outside cache_tree use the pair too)
#   cache_umount_all       unmounts what cache_mount mounted

cache_key() {
	local w
	for w in "$@"; do
		if [ -f "$w" ]; then sha256sum <"$w"; else echo "$w"; fi
	done | sha256sum | cut -c1-16
}

cache_mounts=()

cache_mount() {
	mount "$@" || return 1
	cache_mounts+=("${!#}")
}

cache_umount_all() {
	local i
	for ((i = ${#cache_mounts[@]} - 1; i >= 0; i--)); do
		umount "${cache_mounts[i]}" 2>/dev/null || umount -l "${cache_mounts[i]}" || true
	done
	cache_mounts=()
}

# shellcheck disable=SC2317 # run by the EXIT trap
cache_abandon() {
	cache_umount_all
	# never remove through a mount that is still there
	if [ -n "${cache_tmp:-}" ] && ! grep -q " $cache_tmp/" /proc/mounts; then
		rm -rf "$cache_tmp"
	fi
}

cache_tree() {
	local area=${EXTOWN_CACHE:-/var/cache/extown}/$1 name=$2 key=$3 builder=$4 path old
	shift 4
	path=$area/$name-$key
	# shellcheck disable=SC2034 # read by the caller
	cache_path=$path
	if [ -f "$path/.extown-complete" ]; then
		log "cached $path"
		echo "$path"
		return 0
	fi
	mkdir -p "$area"
	exec {cache_lock}>"$area/$name.lock"
	flock "$cache_lock"
	if [ ! -f "$path/.extown-complete" ]; then
		cache_tmp=$(mktemp -d "$area/tmp-$name.XXXXXX")
		trap cache_abandon EXIT
		log "building $path"
		"$builder" "$cache_tmp" "$@" >&2
		cache_umount_all
		touch "$cache_tmp/.extown-complete"
		rm -rf "$path"
		mv "$cache_tmp" "$path"
		cache_tmp=''
		trap - EXIT
		for old in "$area/$name"-*; do
			[ "$old" = "$path" ] || rm -rf "$old"
		done
		log "ready: $path ($(du -sh "$path" | cut -f1))"
	fi
	exec {cache_lock}>&-
	echo "$path"
}
