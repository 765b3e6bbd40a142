#!/usr/bin/env bash
# Make the busybox initramfs the extown test VMs boot.
#
#   tools/vm/mkinitramfs.sh [--root TREE] [--file PATH]... OUT.cpio.gz GUEST_SCRIPT...
#
# GUEST_SCRIPTs are copied to /tests/ and run by /init in the order given;
# --file PATH copies PATH to /tests/ without running it (helpers such as a
# compiled tests/vm/vmtool; an ELF file gets its shared libraries too).
# --root TREE takes the real tools below (and every shared library) from the
# Debian tree TREE instead of the host (a release's build tree,
# tools/build-root.sh: trixie's mount(8) and libmount 2.41 on a bookworm
# host); the libraries are resolved by TREE's own dynamic loader.
#
# Guest layout (merged /usr, like Debian 12):
#   /bin /sbin /lib /lib64 -> usr/...
#   busybox-static at /usr/bin/busybox, one symlink per applet
#   /bin/sh is the host's dash (busybox ash would run its own applets
#   ahead of PATH); /usr/bin/bash is there too, `ash` is busybox's
#   host binaries (or TREE's; real util-linux / coreutils / e2fsprogs)
#   replace the busybox applets of the same name:
#     /usr/bin/setpriv  util-linux (busybox's lacks --reuid/--regid/--clear-groups)
#     /usr/bin/stat     coreutils
#     /usr/bin/mount, /usr/bin/umount   util-linux (libmount; runs
#                       /sbin/mount.TYPE helpers); busybox's are still there
#                       as `busybox mount`
#     /usr/sbin/mke2fs (+ mkfs.ext2/3/4), /usr/sbin/e2fsck (+ fsck.ext*),
#     /usr/sbin/debugfs
#   /etc/passwd, /etc/group: root (0), alice (1000:1000), bob (1001:1001)
#   /init: see the guest protocol below.
#
# Guest protocol (/init):
#   - mounts proc, sysfs, devtmpfs, tmpfs on /tmp and /run
#   - for each script S in order: mkdir /results/NAME (NAME = S without
#     .sh) and runs `sh /tests/S /results/NAME ARGS...` with stdout+stderr
#     in /results/NAME/log and the exit status in /results/NAME/rc.
#     ARGS come from the kernel command line `extown.args=A,B,C` (commas
#     become separate arguments; tools/vm/run-vm.sh --args sets it).
#     A script writes its test lines ("PASS name" / "FAIL name: why" /
#     "SKIP name: why") to /results/NAME/results, and any other files it
#     wants the host to see into /results/NAME/.
#   - then saves the whole kernel log since boot to /results/dmesg (read
#     from /dev/kmsg, so complete even when a script ran `dmesg -c`; what
#     `dmesg` still shows at the end is in /results/dmesg.tail),
#     /proc/cmdline and uname -a to /results/guest-info, and writes
#     /results to /dev/vda with tools/vm/guest-write-results.sh (in the
#     guest: /usr/bin/extown-write-results): a 512-byte header
#     "EXTOWN-RESULTS 1 <tar bytes>", then the tar. tools/vm/run-vm.sh
#     unpacks it on the host.
#   - if the kernel command line has extown.deadline=SECONDS, a watchdog
#     writes whatever results exist (plus /results/TIMEOUT) after that
#     many seconds, so a hung test still leaves partial results.
#   - poweroff -f.
set -euo pipefail

usage() {
	echo "usage: $0 [--root TREE] [--file PATH]... OUT.cpio.gz GUEST_SCRIPT..." >&2
	exit 2
}

extra=()
tree=''
while [ $# -gt 0 ]; do
	case $1 in
	--root)
		[ $# -ge 2 ] || usage
		[ -x "$2/usr/bin/mount" ] || {
			echo "mkinitramfs: $2 is not a Debian tree with util-linux" >&2
			exit 1
		}
		tree=$(cd "$2" && pwd)
		shift 2
		;;
	--file)
		[ $# -ge 2 ] || usage
		extra+=("$2")
		shift 2
		;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
out=$1
shift
scripts=("$@")

busybox=/usr/bin/busybox
[ -x /bin/busybox ] && busybox=/bin/busybox
"$busybox" --list-full >/dev/null 2>&1 || {
	echo "mkinitramfs: busybox-static missing (tools/install-deps.sh)" >&2
	exit 1
}

root=$(mktemp -d "${TMPDIR:-/tmp}/extown-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
umask 022
chmod 0755 "$root"

mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,tmp,run,mnt,results,tests,etc,root,home/alice,home/bob,var}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
chmod 1777 "$root/tmp"
chown 1000:1000 "$root/home/alice"
chown 1001:1001 "$root/home/bob"

cp "$busybox" "$root/usr/bin/busybox"
"$busybox" --list-full | while read -r applet; do
	name=${applet##*/}
	dir=${applet%/*}
	case $dir in
	bin | usr/bin) dest=usr/bin ;;
	sbin | usr/sbin) dest=usr/sbin ;;
	*) dest=usr/bin ;;
	esac
	[ "$name" = busybox ] && continue
	[ -e "$root/$dest/$name" ] || [ -L "$root/$dest/$name" ] || ln -s /usr/bin/busybox "$root/$dest/$name"
done

# The shared libraries FILE needs, one "SOURCE DEST" pair a line: the
# host's (ldd), or with --root TREE's, found by TREE's own loader with
# TREE's library directories first (SOURCE under TREE, DEST without it).
libs_of() { # FILE
	if [ -z "$tree" ]; then
		ldd "$1" | awk '/=> \// { print $3, $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1, $1 }'
		return
	fi
	local ld=$tree/lib64/ld-linux-x86-64.so.2 dirs=$tree/usr/lib/x86_64-linux-gnu:$tree/lib/x86_64-linux-gnu
	"$ld" --library-path "$dirs" --list "$1" |
		awk -v t="$tree" '
			/=> \// { src = $3 }
			/^[[:space:]]*\/[^ ]*ld-linux[^ ]* \(/ { src = index($1, t "/") == 1 ? $1 : t $1 }
			src != "" {
				dest = src
				if (index(dest, t "/") == 1) dest = substr(dest, length(t) + 1)
				print src, dest
				src = ""
			}'
}

# Copy a file and the shared libraries it needs, keeping their paths.
copy_with_libs() { # SRC DEST
	local src=$1 dest=$2 lib libdest
	cp -L "$src" "$root$dest"
	if file -L "$src" | grep -q 'dynamically linked'; then
		libs_of "$src" | while read -r lib libdest; do
			[ -e "$root$libdest" ] && continue
			mkdir -p "$root$(dirname "$libdest")"
			cp -L "$lib" "$root$libdest"
		done
	fi
}

install_host() { # NAME DESTDIR [LINK...]
	local name=$1 destdir=$2 path='' d
	shift 2
	if [ -z "$tree" ]; then
		path=$(command -v "$name") || path=''
	else
		for d in usr/sbin usr/bin; do
			[ -x "$tree/$d/$name" ] || continue
			path=$tree/$d/$name
			break
		done
	fi
	[ -n "$path" ] || {
		echo "mkinitramfs: binary $name not found in ${tree:-the host} (tools/install-deps.sh)" >&2
		exit 1
	}
	rm -f "$root/usr/bin/$name" "$root/usr/sbin/$name"
	copy_with_libs "$path" "$destdir/$name"
	local l
	for l in "$@"; do
		rm -f "$root/usr/bin/$l" "$root/usr/sbin/$l"
		ln -s "$name" "$root$destdir/$l"
	done
}

# Keep the PATH lookup of the host tools simple (Debian 12 puts sbin tools
# in /usr/sbin); dash-style `command -v` must work as root.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# busybox-static is built with FEATURE_SH_STANDALONE: its ash runs its own
# applets before searching PATH, which would hide the real tools below.
# So /bin/sh is dash (as on Debian); busybox ash stays available as `ash`.
install_host dash /usr/bin sh
install_host bash /usr/bin
install_host setpriv /usr/bin
install_host stat /usr/bin
install_host mount /usr/bin
install_host umount /usr/bin
install_host mke2fs /usr/sbin mkfs.ext2 mkfs.ext3 mkfs.ext4
install_host e2fsck /usr/sbin fsck.ext2 fsck.ext3 fsck.ext4
install_host debugfs /usr/sbin

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
alice:x:1000:1000:Alice:/home/alice:/bin/sh
bob:x:1001:1001:Bob:/home/bob:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
alice:x:1000:
bob:x:1001:
nogroup:x:65534:
EOF
cat >"$root/etc/shadow" <<'EOF'
root:*:19000:0:99999:7:::
alice:*:19000:0:99999:7:::
bob:*:19000:0:99999:7:::
EOF
chmod 0640 "$root/etc/shadow"
: >"$root/etc/fstab"
ln -s ../proc/self/mounts "$root/etc/mtab"
echo extown-vm >"$root/etc/hostname"

cp "$(dirname "${BASH_SOURCE[0]}")/guest-write-results.sh" "$root/usr/bin/extown-write-results"
chmod 0755 "$root/usr/bin/extown-write-results"
for f in "${extra[@]}"; do
	copy_with_libs "$f" "/tests/$(basename "$f")"
done
: >"$root/tests/.order"
for s in "${scripts[@]}"; do
	[ -f "$s" ] || {
		echo "mkinitramfs: no such guest script: $s" >&2
		exit 1
	}
	cp "$s" "$root/tests/$(basename "$s")"
	chmod 0755 "$root/tests/$(basename "$s")"
	basename "$s" >>"$root/tests/.order"
done

cat >"$root/init" <<'EOF'
#!/bin/sh
# extown test VM init (tools/vm/mkinitramfs.sh documents the protocol).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
bb=/usr/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev 2>/dev/null
$bb mount -t tmpfs -o mode=1777 tmpfs /tmp
$bb mount -t tmpfs -o mode=0755 tmpfs /run
$bb mount -t tmpfs -o mode=0755 tmpfs /results
$bb mkdir -p /run/mount
$bb hostname extown-vm
# Record every kernel message from boot on.
$bb cat /dev/kmsg >/tmp/kmsg 2>/dev/null &

cmdline_value() { # NAME
	for w in $(cat /proc/cmdline); do
		case $w in "$1="*) echo "${w#*=}" ;; esac
	done
}

write_results() {
	{ cat /proc/cmdline; uname -a; } >/results/guest-info
	# The whole kernel log from /dev/kmsg (unaffected by `dmesg -c` in
	# the scripts), without the record prefixes and the dictionary lines.
	$bb sed -n 's/^[0-9]*,[0-9]*,[0-9]*,[^;]*;//p' /tmp/kmsg >/results/dmesg
	dmesg >/results/dmesg.tail 2>&1
	/usr/bin/extown-write-results /results /dev/vda >/dev/console 2>&1
}

deadline=$(cmdline_value extown.deadline)
if [ -n "$deadline" ]; then
	(
		$bb sleep "$deadline"
		echo "extown-init: guest deadline of $deadline s reached, writing partial results" >/dev/console
		echo "deadline $deadline s reached" >/results/TIMEOUT
		write_results
		$bb poweroff -f
	) &
fi

args=$(cmdline_value extown.args | $bb tr ',' ' ')
for s in $(cat /tests/.order); do
	name=${s%.sh}
	mkdir -p "/results/$name"
	echo "extown-init: running $s $args" >/dev/console
	(cd /tmp && sh "/tests/$s" "/results/$name" $args) >"/results/$name/log" 2>&1 </dev/null
	echo $? >"/results/$name/rc"
	echo "extown-init: $s exited $(cat "/results/$name/rc")" >/dev/console
done
echo done >/results/DONE
write_results
echo "extown-init: results written, powering off" >/dev/console
$bb poweroff -f
EOF
chmod 0755 "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
