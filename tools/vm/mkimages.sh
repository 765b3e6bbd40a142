#!/usr/bin/env bash
# Make the extown test disk images, on the host, without loop devices or
# mounts (mke2fs -d copies a staging tree with its owners). Needs root for
# chown and mknod in the staging tree.
#
#   tools/vm/mkimages.sh DIR
#
# Writes to DIR (sparse 64 MiB raw images; fixed UUIDs):
#   ext4.img ext3.img ext2.img   -t TYPE
#   ext4-quota.img               -t ext4, then tune2fs -O quota (usr+grp)
#   NAME.img.manifest            one line per path: "PATH INO UID GID MODE"
#                                as debugfs reads them back from the image
# Every image holds (root directory owned 1234:1234 via -E root_owner):
#   /file       0644 1234:1234  "extown file\n"
#   /secret     0600 1234:1234  "extown secret\n"
#   /dir        0755 1234:1234  directory
#   /dir/inner  0644 1234:1234  "extown inner\n"
#   /link       1234:1234       symlink -> file
#   /chardev    0644 1234:1234  character device 1,3
#   /fifo       0644 1234:1234  fifo
#   /socket     0755 1234:1234  unix socket
#   /high       0644 70000:70000 "extown high\n" (ids above 16 bits)
#   /lost+found as mke2fs makes it
# The images are the pristine copies: tests should copy them
# (cp --sparse=always) before writing to them.
set -euo pipefail

[ $# -eq 1 ] || {
	echo "usage: $0 DIR" >&2
	exit 2
}
dir=$1
mkdir -p "$dir"
[ "$(id -u)" -eq 0 ] || {
	echo "mkimages: must run as root (chown/mknod in the staging tree)" >&2
	exit 1
}

stage=$(mktemp -d "${TMPDIR:-/tmp}/extown-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
umask 022
printf 'extown file\n' >"$stage/file"
printf 'extown secret\n' >"$stage/secret"
chmod 0600 "$stage/secret"
mkdir "$stage/dir"
printf 'extown inner\n' >"$stage/dir/inner"
ln -s file "$stage/link"
mknod "$stage/chardev" c 1 3
chmod 0644 "$stage/chardev"
mkfifo -m 0644 "$stage/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$stage/socket"
chmod 0755 "$stage/socket"
printf 'extown high\n' >"$stage/high"
chown -h 1234:1234 "$stage/file" "$stage/secret" "$stage/dir" "$stage/dir/inner" \
	"$stage/link" "$stage/chardev" "$stage/fifo" "$stage/socket"
chown 70000:70000 "$stage/high"
touch -h -d '2020-01-01 00:00:00 UTC' "$stage"/* "$stage/dir/inner"

paths=(/ /file /secret /dir /dir/inner /link /chardev /fifo /socket /high /lost+found)

manifest() { # IMG
	local img=$1 p
	for p in "${paths[@]}"; do
		debugfs -R "stat $p" "$img" 2>/dev/null | awk -v p="$p" '
			/^Inode:/ { ino = $2; for (i = 1; i < NF; i++) if ($i == "Mode:") mode = $(i + 1) }
			/^User:/ { uid = $2; gid = $4 }
			END {
				if (ino == "") exit 1
				print p, ino, uid, gid, mode
			}' || {
			echo "mkimages: $img: debugfs cannot stat $p" >&2
			return 1
		}
	done
}

make_image() { # NAME TYPE UUID LABEL [TUNE2FS_ARGS...]
	local type=$2 uuid=$3 label=$4 img=$dir/$1.img
	shift 4
	rm -f "$img" "$img.manifest"
	E2FSPROGS_FAKE_TIME=1577836800 mke2fs -q -F -t "$type" -U "$uuid" -L "$label" \
		-E root_owner=1234:1234,nodiscard -d "$stage" "$img" 64M >&2
	# Features added afterwards see the copied files: mke2fs -O quota -d
	# leaves quota usage that e2fsck calls inconsistent; tune2fs counts it.
	if [ $# -gt 0 ]; then
		tune2fs "$@" "$img" >/dev/null
	fi
	manifest "$img" >"$img.manifest.tmp"
	mv "$img.manifest.tmp" "$img.manifest"
	e2fsck -fn "$img" >/dev/null 2>&1 || {
		echo "mkimages: fresh $img is not clean" >&2
		return 1
	}
	echo "mkimages: $img" >&2
}

make_image ext4 ext4 6a6b0e00-0000-4000-8000-000000000004 extown-ext4
make_image ext3 ext3 6a6b0e00-0000-4000-8000-000000000003 extown-ext3
make_image ext2 ext2 6a6b0e00-0000-4000-8000-000000000002 extown-ext2
make_image ext4-quota ext4 6a6b0e00-0000-4000-8000-0000000000a4 extown-quota -O quota
