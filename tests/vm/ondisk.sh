# shellcheck shell=bash
# Host-side truth about test images, read with debugfs after the VM has
# stopped (sourced by tests/vm/run-ktests.sh). Every check prints one
# "PASS name" or "FAIL name: why" line.

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

_ondisk_check() { # NAME WHAT EXPECTED ACTUAL
	if [ "$3" = "$4" ]; then echo "PASS $1"; else echo "FAIL $1: $2: expected '$3', got '$4'"; fi
}

# K3: every inode that existed before the mount still has its on-disk owner
# (inodes are found by number, so renames and new links do not hide them).
ondisk_check_preserved() {
	local label=$1 img=$2 snapshot=$3 p ino uid gid info name
	while read -r p ino uid gid; do
		info=$(ondisk_info "$img" "<$ino>")
		read -r _ _ duid dgid _ _ <<<"$info"
		name=$(tr '/+' '__' <<<"${p#/}")
		_ondisk_check "$label.K3.disk_owner_kept.${name:-root}" \
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
		_ondisk_check "$label.K2.disk_owner.$(tr '/+' '__' <<<"$p")" \
			"on-disk owner of /$p" "$uid:$gid" "${duid:-}:${dgid:-}"
	done <"$expect"
	[ "$n" -gt 0 ] || echo "FAIL $label.K2.disk_owner: the guest recorded no new inodes"
}

# K12: the image is clean after all that.
ondisk_check_fsck() {
	local label=$1 img=$2 out
	if out=$(e2fsck -fn "$img" 2>&1); then
		echo "PASS $label.K12.e2fsck_clean"
	else
		echo "FAIL $label.K12.e2fsck_clean: $(grep -v '^Pass\|^e2fsck' <<<"$out" | head -n 3 | tr '\n' ' ')"
	fi
}

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
	if [ -z "$diffs" ]; then
		echo "PASS $label.K11.same_on_disk_result"
	else
		echo "FAIL $label.K11.same_on_disk_result: $diffs"
	fi
}
