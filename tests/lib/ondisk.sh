# shellcheck shell=bash
# Host-side truth about test images, read with debugfs and e2fsck after
# the VM has stopped (sourced after tests/lib/harness.sh by the suites that
# boot VMs and tools/demo.sh). Every check reports through pass/fail.

# The tree tools/vm/mkimages.sh puts on every image.
ONDISK_OLD_PATHS=(/ /file /secret /dir /dir/inner /link /chardev /fifo /socket /high /lost+found)

# "TYPE MODE UID GID SIZE LINKS FLAGS BLOCKCOUNT" of an inode given as
# /path or <ino>.
ondisk_info() {
	local img=$1 spec=$2
	debugfs -R "stat $spec" "$img" 2>/dev/null | awk '
		/^Inode:/ {
			for (i = 1; i < NF; i++) {
				if ($i == "Mode:") mode = $(i + 1)
				if ($i == "Flags:") flags = $(i + 1)
			}
			type = $4 ($5 == "Mode:" ? "" : "_" $5)
		}
		/^User:/ { uid = $2; gid = $4; size = $NF }
		/^Links:/ { links = $2; blocks = $4 }
		END { if (uid != "") print type, mode, uid, gid, size, links, flags, blocks }'
}

# "PATH INO UID GID" for every path of the initial tree.
ondisk_snapshot() {
	local img=$1 p ino info
	for p in "${ONDISK_OLD_PATHS[@]}"; do
		ino=$(debugfs -R "stat $p" "$img" 2>/dev/null | awk '/^Inode:/ { print $2; exit }')
		info=$(ondisk_info "$img" "$p")
		if [ -z "$ino" ] || [ -z "$info" ]; then
			echo "ondisk: $img has no $p" >&2
			return 1
		fi
		read -r _ _ uid gid _ _ <<<"$info"
		echo "$p $ino $uid $gid"
	done
}

# "UID GID" of PATH on IMG
ondisk_owner() {
	debugfs -R "stat $2" "$1" 2>/dev/null | awk '/^User:/ { print $2, $4; exit }'
}

# NAME: e2fsck -fn finds nothing on IMG
ondisk_fsck() {
	local name=$1 img=$2 out
	if out=$(e2fsck -fn "$img" 2>&1); then
		pass "$name"
	else
		fail "$name" "$(grep -v '^Pass \|^e2fsck \|^Checking' <<<"$out" | head -n 4 | tr '\n' ' ')"
	fi
}

# K3: every inode that existed before the mount still has its on-disk owner
# (inodes are found by number, so renames and new links do not hide them).
ondisk_check_preserved() {
	local label=$1 img=$2 snapshot=$3 p ino uid gid info name
	while read -r p ino uid gid; do
		info=$(ondisk_info "$img" "<$ino>")
		read -r _ _ duid dgid _ _ <<<"$info"
		name=$(tr '/+' '__' <<<"${p#/}")
		check_eq "$label.K3.disk_owner_kept.${name:-root}" \
			"on-disk owner of inode $ino ($p)" "$uid:$gid" "${duid:-}:${dgid:-}"
	done <"$snapshot"
}

# K2: inodes created in the VM carry the owners the guest expects on disk.
ondisk_check_expected() {
	local label=$1 img=$2 expect=$3 l p uid gid info n=0
	while read -r l p uid gid; do
		[ "$l" = "$label" ] || continue
		n=$((n + 1))
		info=$(ondisk_info "$img" "/$p")
		read -r _ _ duid dgid _ _ <<<"$info"
		check_eq "$label.K2.disk_owner.$(tr '/+' '__' <<<"$p")" \
			"on-disk owner of /$p" "$uid:$gid" "${duid:-}:${dgid:-}"
	done <"$expect"
	[ "$n" -gt 0 ] || fail "$label.K2.disk_owner" "the guest recorded no new inodes"
}

# K12: the image is clean after all that.
ondisk_check_fsck() { ondisk_fsck "$1.K12.e2fsck_clean" "$2"; }

# K11: the same workload without options leaves the same inodes, owners,
# modes, sizes, link counts, flags and block counts on the patched and the unpatched kernel.
ondisk_compare() {
	local label=$1 a=$2 b=$3 p ia ib diffs=""
	shift 3
	for p in "$@"; do
		ia=$(ondisk_info "$a" "$p")
		ib=$(ondisk_info "$b" "$p")
		[ -n "$ia" ] || diffs+="$p missing; "
		[ "$ia" = "$ib" ] || diffs+="$p: '$ia' vs '$ib'; "
	done
	check_none "$label.K11.same_on_disk_result" "$diffs"
}

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
	local name=$1 img=$2 manifest=$3 nuid=$4 ngid=$5 min_new=$6
	local inodes bad_old="" bad_new="" n_new=0 n_old=0 p ino uid gid duid dgid
	ondisk_fsck "$name.e2fsck_clean" "$img"
	if ! inodes=$(rel_inodes_in_use "$img") || [ -z "$inodes" ]; then
		fail "$name.preexisting_owner_kept" "debugfs could not list the inodes of $img"
		fail "$name.new_inodes_carry_M" "debugfs could not list the inodes of $img"
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
	check_none "$name.preexisting_owner_kept" "$(head -c 400 <<<"$bad_old")"
	for ino in "${!owner[@]}"; do
		[ -z "${old[$ino]:-}" ] || continue
		n_new=$((n_new + 1))
		if [ "${owner[$ino]}" != "$nuid:$ngid" ]; then
			bad_new+="inode $ino is ${owner[$ino]}; "
		fi
	done
	echo "rel: $name: $n_old pre-existing and $n_new new inodes in use" >&2
	if [ -n "$bad_new" ]; then
		fail "$name.new_inodes_carry_M" "expected $nuid:$ngid on disk: $(head -c 400 <<<"$bad_new")"
	elif [ "$n_new" -lt "$min_new" ]; then
		fail "$name.new_inodes_carry_M" "only $n_new new inodes in use, expected at least $min_new"
	else
		pass "$name.new_inodes_carry_M"
	fi
}
