# shellcheck shell=bash
# Host-side checks of a test image after a reliability run, read with
# debugfs and e2fsck once the VM has stopped (sourced by
# tests/reliability/run.sh). Each check prints one PASS/FAIL line.

# "INO UID GID" of every inode the inode bitmap marks in use: the root
# directory (2) and every inode from the superblock's first non-reserved one
# on (the reserved ones, journal and resize inodes, belong to the file system).
rel_inodes_in_use() { # IMG
	local img=$1 count first
	count=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^Inode count/ { print $2 + 0 }')
	first=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^First inode/ { print $2 + 0 }')
	[ -n "$count" ] && [ -n "$first" ] || return 1
	{ echo 'testi <2>'; seq "$first" "$count" | sed 's/.*/testi <&>/'; } |
		DEBUGFS_PAGER=__none__ debugfs -f - "$img" 2>/dev/null |
		awk '/ is marked in use/ { print "stat <" $2 ">" }' |
		DEBUGFS_PAGER=__none__ debugfs -f - "$img" 2>/dev/null | awk '
			/^Inode: / { ino = $2 }
			/^User: / { if (ino != "") print ino, $2, $4; ino = "" }'
}

# rel_check_image NAME IMG MANIFEST NEW_UID NEW_GID MIN_NEW
# NAME.e2fsck_clean            e2fsck -fn finds nothing
# NAME.preexisting_owner_kept  every inode of MANIFEST (PATH INO UID GID MODE)
#                              is still in use with its on-disk uid and gid
# NAME.new_inodes_carry_M      every other inode in use has NEW_UID:NEW_GID
#                              on disk, and there are at least MIN_NEW of them
rel_check_image() {
	local name=$1 img=$2 manifest=$3 nuid=$4 ngid=$5 min_new=$6 out
	local inodes bad_old="" bad_new="" n_new=0 n_old=0 p ino uid gid duid dgid
	if out=$(e2fsck -fn "$img" 2>&1); then
		echo "PASS $name.e2fsck_clean"
	else
		echo "FAIL $name.e2fsck_clean: $(grep -v '^Pass \|^e2fsck \|^Checking' <<<"$out" | head -n 4 | tr '\n' ' ')"
	fi
	if ! inodes=$(rel_inodes_in_use "$img") || [ -z "$inodes" ]; then
		echo "FAIL $name.preexisting_owner_kept: debugfs could not list the inodes of $img"
		echo "FAIL $name.new_inodes_carry_M: debugfs could not list the inodes of $img"
		return 0
	fi
	declare -A owner=() old=()
	while read -r ino duid dgid; do
		owner[$ino]="$duid:$dgid"
	done <<<"$inodes"
	while read -r p ino uid gid _; do
		old[$ino]=1
		n_old=$((n_old + 1))
		if [ "${owner[$ino]:-not in use}" != "$uid:$gid" ]; then
			bad_old+="inode $ino ($p) is ${owner[$ino]:-not in use}, was $uid:$gid; "
		fi
	done <"$manifest"
	if [ -z "$bad_old" ]; then
		echo "PASS $name.preexisting_owner_kept"
	else
		echo "FAIL $name.preexisting_owner_kept: $(head -c 400 <<<"$bad_old")"
	fi
	for ino in "${!owner[@]}"; do
		[ -z "${old[$ino]:-}" ] || continue
		n_new=$((n_new + 1))
		if [ "${owner[$ino]}" != "$nuid:$ngid" ]; then
			bad_new+="inode $ino is ${owner[$ino]}; "
		fi
	done
	echo "rel: $name: $n_old pre-existing and $n_new new inodes in use" >&2
	if [ -n "$bad_new" ]; then
		echo "FAIL $name.new_inodes_carry_M: expected $nuid:$ngid on disk: $(head -c 400 <<<"$bad_new")"
	elif [ "$n_new" -lt "$min_new" ]; then
		echo "FAIL $name.new_inodes_carry_M: only $n_new new inodes in use, expected at least $min_new"
	else
		echo "PASS $name.new_inodes_carry_M"
	fi
}
