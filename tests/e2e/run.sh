#!/usr/bin/env bash
# End-to-end tests of the desktop path (U1-U3 and the acceptance story of
# docs/semantics.md) on each Debian release of tools/releases: a guest with
# systemd, udev, dbus, polkitd and the release's stock udisks2 (2.10.1 on
# Debian 13, 2.9.4 on Debian 12), the project installed by `make install
# DESTDIR=`, booted under qemu (TCG) on our kernels and on the release's
# own; USB sticks hot-plugged through QMP. alice (uid 1000) is logged in on
# tty1 (an autologin getty: an active local session on seat0) and uses the
# desktop's own clients, udiskie, GVfs (`gio mount`) and udisksctl, from
# her session with the release's polkit policy and no rule of ours
# (guest-desktop.sh); bob and seat-less callers are refused.
#
#   tests/e2e/run.sh
#
# stdout: one "PASS name" / "FAIL name: why" / "SKIP name: why" line per
# test, nothing else; progress on stderr. Exit status 0 whatever the tests
# say, 1 only when the harness itself broke (also printed as
# "FAIL e2e.harness: why"). Test names carry the release:
# e2e.RELEASE.<the guest's name>, e.g. e2e.trixie.6.12.U2.ext4.…,
# e2e.bookworm.stock-6.1.ext4.….
#
# Steps: install Debian packages (tools/install-deps.sh,
# tools/install-deps-userspace.sh, tools/e2e/install-deps.sh); kernels
# (tools/kernel/build-kernel.sh); per release the cached tree
# (tools/e2e/mkroot.sh RELEASE, and tools/e2e/mkroot-stock.sh RELEASE for
# its stock kernels); build the project in build/e2e and install it into a
# copy of each tree with guest.sh, extown-e2e.service and alice's autologin;
# mkfs.ext4 -d that into a root image; stick images from
# tools/vm/mkimages.sh; then one VM per boot (tools/vm/run-vm.sh), and on
# the host afterwards debugfs and e2fsck on the sticks. Needs root.
#
# The "rootusb" boot (Debian 12 tree, patched kernel of the default base;
# tests e2e.rootusb.*, guest side in guest-rootusb.sh): the same tree with
# /etc/extown.conf "default-owner = alice" and fstab entries for / and
# /srv/data, on partitions 1 and 2 of a disk attached as a USB disk
# (/dev/sda, tagged removable by udev), booted `ro` so that
# systemd-remount-fs runs `mount -o remount /` through mount.ext4 and
# systemd mounts /srv/data through it; then a stick hot-plugged beside it.
#
# Environment:
#   EXTOWN_E2E_KERNELS   boots, RELEASE/LABEL each (default, from
#                        tools/releases and tools/kernel/bases: for each
#                        release, of the bases it boots (its own, or
#                        EXTOWN_KERNEL_BASES) patched and unpatched of its
#                        PATCHED bases and stock-BASE of its STOCK bases:
#                        "trixie/patched-6.12 trixie/stock-6.12
#                        bookworm/patched bookworm/stock-6.1");
#                        patched, unpatched: build-kernel.sh on the default
#                        (first) base; VARIANT-BASE: --base BASE, the guest
#                        runs the same story and the test names carry BASE;
#                        stock-BASE: the release's own linux-image package
#                        with its own initramfs (tools/e2e/mkroot-stock.sh)
#   EXTOWN_RELEASES      the releases of the default boots (default: all)
#   EXTOWN_KERNEL_BASES  the bases of the default boots, on every release
#                        that has them (default: of those whose SUITES in
#                        tools/kernel/bases has e2e, each release's own
#                        base; so 7.3, patched and Debian 13's backports
#                        kernel, and 6.12 on bookworm boot only when named
#                        here); the rootusb boot needs the default base
#                        among them
#   EXTOWN_E2E_BREAK     udev | udisks: leave 61-extown.rules or
#                        69-extown-udisks.rules out of the guest image;
#                        session: alice's autologin on tty2, a session that
#                        is not the active one of seat0; abort: the guest
#                        script dies half-way (an unset variable under
#                        set -u, after the session tests, before the sticks
#                        are plugged); poweroff: the guest powers off
#                        there, its results unwritten;
#                        panic: the kernel finds no init and panics, twice
#                        (to show that the tests catch it)
#   EXTOWN_E2E_SCREENSHOT  yes: the guest images also get Xvfb, PCManFM
#                        and netpbm (apt in the copy of the tree: needs the
#                        mirror); in every boot alice's session opens the
#                        stick udiskie mounted in PCManFM (list view, owner
#                        column) and, once its window appeared, the picture
#                        is kept as build/e2e/screenshot-RELEASE-LABEL.png
#                        (no test: nothing checks what it shows)
#   EXTOWN_E2E_ROOTUSB   yes (default): also the rootusb boot (when bookworm
#                        is among the releases); no: not it; only: the
#                        rootusb boot alone (no per-kernel VMs)
#   EXTOWN_E2E_WORK      work directory, kept afterwards (default: a
#                        temporary one, removed unless EXTOWN_KEEP=1)
#   EXTOWN_TEST_FILTER   (tests/run e2e:PATTERN) a pattern that names a
#                        release boots only that release's VMs
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
# shellcheck source=tests/lib/qemu.sh
. "$top/tests/lib/qemu.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=e2e harness_test=e2e
# step WHAT: a line "e2e: == WHAT" on stderr as a step starts (tools/demo.sh
# shows these with the time each took)
step() { log "== $*"; }

# The boots of the tables: per release, of the bases it boots
# (release_boot_bases: its own base, or EXTOWN_KERNEL_BASES), the patched
# build of its PATCHED bases (the default base without a suffix), its stock
# kernels, and the unpatched build of a PATCHED base it has no stock kernel
# of.
default_boots() {
	local r b d pb sel
	d=$(base_default)
	for r in $(releases_selected); do
		sel=" $(release_boot_bases "$r" e2e) "
		pb=$(release_field "$r" patched)
		[ "$pb" != all ] || pb=$(bases_all)
		# our unpatched build only where the release has no stock kernel of
		# the base: the fallback is proven on the kernel users run
		for b in $pb; do
			[[ $sel == *" $b "* ]] || continue
			if [ "$b" = "$d" ]; then echo "$r/patched"; else echo "$r/patched-$b"; fi
			release_field "$r" stock | grep -qx -- "$b" && continue
			if [ "$b" = "$d" ]; then echo "$r/unpatched"; else echo "$r/unpatched-$b"; fi
		done
		for b in $(release_field "$r" stock); do
			[[ $sel != *" $b "* ]] || echo "$r/stock-$b"
		done
	done
}

# kernel_of RELEASE/LABEL: "VARIANT BASE RELEASE" of a boot (VARIANT
# patched, unpatched or stock); status 1 for one that names no such kernel
kernel_of() {
	local r=${1%%/*} l=${1#*/} v b
	[ "$r" != "$1" ] && release_field "$r" version >/dev/null || return 1
	v=${l%%-*} b=${l#*-}
	[ "$b" != "$l" ] || b=$(base_default)
	case $v in patched | unpatched | stock) ;; *) return 1 ;; esac
	base_field "$b" package >/dev/null || return 1
	[ "$v" != stock ] || release_field "$r" stock | grep -qx -- "$b" || return 1
	[ "$v" = stock ] || [ "$l" != "$v-$(base_default)" ] || return 1 # no suffix for the default
	echo "$v $b $r"
}

# boot_wanted RELEASE: some pattern of the selection may hold a test of a
# boot of RELEASE (a pattern that names another release does not)
boot_wanted() {
	local p r
	[ -n "${EXTOWN_TEST_FILTER:-}" ] || return 0
	for p in $EXTOWN_TEST_FILTER; do
		for r in $(releases_all); do
			case $p in *"$r"*) [ "$r" != "$1" ] || return 0 && continue 2 ;; esac
		done
		return 0
	done
	return 1
}

kernels=${EXTOWN_E2E_KERNELS:-$(default_boots | tr '\n' ' ')}
break_what=${EXTOWN_E2E_BREAK:-}
case $break_what in
'' | udev | udisks | session) ;;
abort | poweroff) log "BROKEN ON PURPOSE: extown.break=$break_what on the guests' command line" ;;
panic) log "BROKEN ON PURPOSE: init=/extown-no-such-init on the guests' command line" ;;
*) harness_fail "EXTOWN_E2E_BREAK must be udev, udisks, session, abort, poweroff or panic" ;;
esac
guest_append=''
case $break_what in
abort | poweroff) guest_append=" extown.break=$break_what" ;;
panic) guest_append=" init=/extown-no-such-init" ;;
esac
rootusb=${EXTOWN_E2E_ROOTUSB:-yes}
screenshot=${EXTOWN_E2E_SCREENSHOT:-no}
case $screenshot in yes | no) ;; *) harness_fail "EXTOWN_E2E_SCREENSHOT must be yes or no" ;; esac
case $rootusb in
yes | no) ;;
only) kernels='' ;;
*) harness_fail "EXTOWN_E2E_ROOTUSB must be yes, no or only" ;;
esac
build_kernels='' stock_kernels='' releases=''
for k in $kernels; do
	kernel_of "$k" >/dev/null ||
		harness_fail "unknown boot '$k' in EXTOWN_E2E_KERNELS ($(default_boots | tr '\n' ' '))"
	boot_wanted "${k%%/*}" || continue
	case $k in
	*/stock-*) stock_kernels+=" $k" ;;
	*) build_kernels+=" ${k#*/}" ;;
	esac
	case " $releases " in *" ${k%%/*} "*) ;; *) releases+=" ${k%%/*}" ;; esac
done
if [ "$rootusb" != no ] && ! release_field bookworm version >/dev/null; then rootusb=no; fi
# the rootusb boot runs the default base
[ "$rootusb" = no ] || [ -z "${EXTOWN_KERNEL_BASES:-}" ] ||
	[[ " $EXTOWN_KERNEL_BASES " == *" $(base_default) "* ]] || rootusb=no
[ "$rootusb" = no ] || boot_wanted bookworm || rootusb=no
if [ "$rootusb" != no ]; then
	build_kernels+=" patched"
	case " $releases " in *" bookworm "*) ;; *) releases+=" bookworm" ;; esac
fi
need_root "debootstrap, make install of a setuid helper, images"

if [ -n "${EXTOWN_E2E_WORK:-}" ]; then
	work=$EXTOWN_E2E_WORK
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/extown-e2e.XXXXXX")
	cleanup() { if [ -z "${EXTOWN_KEEP:-}" ]; then rm -rf "$work"; fi; }
	trap cleanup EXIT
fi
work=$(cd "$work" && pwd)
log "work directory $work"
t0=$SECONDS

# --- dependencies, kernels, root tree -----------------------------------
for s in tools/install-deps.sh tools/install-deps-userspace.sh tools/e2e/install-deps.sh; do
	"$top/$s" >&2 || harness_fail "$s failed"
done
declare -A kernel initrd_of
for k in $(tr ' ' '\n' <<<"$build_kernels" | sort -u); do
	# label -> build: patched-6.12 is build-kernel.sh --base 6.12 patched
	read -r v b _ <<<"$(kernel_of "$(release_default)/$k")"
	kargs=(--base "$b" "$v")
	step "kernel $k: tools/kernel/build-kernel.sh ${kargs[*]} (from the cache once built)"
	kernel[$k]=$("$top/tools/kernel/build-kernel.sh" "${kargs[@]}" | tail -n 1) ||
		harness_fail "tools/kernel/build-kernel.sh ${kargs[*]} failed"
	[ -f "${kernel[$k]}" ] || harness_fail "build-kernel.sh $k gave no bzImage"
	log "kernel $k: ${kernel[$k]}"
done

# --- the project, installed into a copy of a tree ------------------------
build=$top/build/e2e
step "project: tools/build-helper.sh $build"
"$top/tools/build-helper.sh" "$build" >/dev/null || harness_fail "building the project failed (see $build/build.log)"

# screenshot_tools ROOT: Xvfb, PCManFM (GTK 3, the file manager of LXDE)
# and netpbm in ROOT, and alice's PCManFM in list view with an owner column
screenshot_tools() {
	local root=$1 conf=$1/home/alice/.config/pcmanfm/default
	local ok=yes
	mount --bind /proc "$root/proc" || harness_fail "cannot mount /proc in $root"
	mount --bind /dev "$root/dev" || harness_fail "cannot mount /dev in $root"
	mv "$root/etc/resolv.conf" "$root/etc/resolv.conf.e2e" 2>/dev/null || true
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	{ in_root "$root" apt-get update -q &&
		in_root "$root" apt-get install -y -q --no-install-recommends xvfb x11-apps x11-utils \
			pcmanfm netpbm fonts-dejavu-core && in_root "$root" apt-get clean; } \
		>>"$work/screenshot-apt.log" 2>&1 || ok=no
	rm -f "$root/etc/resolv.conf"
	mv "$root/etc/resolv.conf.e2e" "$root/etc/resolv.conf" 2>/dev/null || true
	umount "$root/proc" "$root/dev"
	[ "$ok" = yes ] || harness_fail "apt-get install of Xvfb and PCManFM in $root failed (see $work/screenshot-apt.log)"
	mkdir -p "$conf"
	printf '[ui]\nview_mode=list\ncolumns=name:200;size:80;mtime:150;owner:90\nwin_width=780\nwin_height=400\nmaximized=1\n' \
		>"$conf/pcmanfm.conf"
	chown -R 1000:1000 "$root/home/alice/.config"
}

# install_project TREE ROOT: a copy of TREE at ROOT with the project
# (make install DESTDIR=), the guest side of the tests and alice's
# autologin on tty1
install_project() {
	local tree=$1 root=$2 rules tty=tty1
	cp -a "$tree" "$root"
	"$top/tools/build-helper.sh" --install "$root" "$build" >/dev/null ||
		harness_fail "make install DESTDIR= failed (see $build/build.log)"
	install -D -m 0755 "$top/tests/e2e/guest.sh" "$root/usr/local/lib/extown-e2e/guest.sh"
	# a kernel that cannot idmap, or has no fsopen(), for fallback_edges
	cc -Wall -Wextra -Werror -shared -fPIC -o "$root/usr/local/lib/extown-e2e/noidmap.so" \
		"$top/tests/e2e/noidmap.c" -ldl >>"$work/build.log" 2>&1 ||
		harness_fail "building tests/e2e/noidmap.c failed (see $work/build.log)"
	install -D -m 0644 "$top/tests/e2e/guest-lib.sh" "$root/usr/local/lib/extown-e2e/guest-lib.sh"
	install -D -m 0644 "$top/tests/e2e/guest-desktop.sh" "$root/usr/local/lib/extown-e2e/guest-desktop.sh"
	install -D -m 0644 "$top/tests/lib/results.sh" "$root/usr/local/lib/extown-e2e/results.sh"
	install -D -m 0755 "$top/tools/vm/guest-write-results.sh" "$root/usr/local/bin/extown-write-results"
	install -D -m 0644 "$top/tests/e2e/extown-e2e.service" "$root/etc/systemd/system/extown-e2e.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/extown-e2e.service "$root/etc/systemd/system/multi-user.target.wants/extown-e2e.service"
	# alice logs in on tty1 at boot, as a user at the console would
	if [ "$break_what" = session ]; then
		tty=tty2
		log "BROKEN ON PURPOSE: alice logs in on tty2, not the active console of seat0"
		ln -sf /lib/systemd/system/getty@.service "$root/etc/systemd/system/getty.target.wants/getty@tty2.service"
	fi
	mkdir -p "$root/etc/systemd/system/getty@$tty.service.d"
	# shellcheck disable=SC2016 # $TERM is systemd's to expand
	printf '[Service]\nExecStart=\nExecStart=-/sbin/agetty --autologin alice --noclear %%I $TERM\n' \
		>"$root/etc/systemd/system/getty@$tty.service.d/autologin.conf"
	rules=$root/usr/lib/udev/rules.d
	for f in 61-extown.rules 69-extown-udisks.rules; do
		[ -f "$rules/$f" ] || harness_fail "make install did not install $f into /usr/lib/udev/rules.d"
	done
	[ "$(stat -c %a:%u "$root/usr/sbin/mount.ext4")" = 4755:0 ] ||
		harness_fail "make install did not install mount.ext4 setuid root ($(stat -c %a:%u "$root/usr/sbin/mount.ext4"))"
	[ "$screenshot" = no ] || screenshot_tools "$root"
	case $break_what in
	udev) rm "$rules/61-extown.rules" && log "BROKEN ON PURPOSE: no 61-extown.rules in the guest" ;;
	udisks) rm "$rules/69-extown-udisks.rules" && log "BROKEN ON PURPOSE: no 69-extown-udisks.rules in the guest" ;;
	esac
}

# Per release: the guest image of its tree (root-RELEASE.img), and for its
# stock kernels (boots RELEASE/stock-BASE) the image of its stock tree
# (tools/e2e/mkroot-stock.sh: the same tree plus linux-image-* and their
# initramfs), booted with the kernel's own initrd. kernel[RELEASE/stock-BASE],
# initrd_of[...]: copied out of that tree.
declare -A tree_of
for r in $releases; do
	step "tree $r: tools/e2e/mkroot.sh $r (from the cache once built)"
	tree_of[$r]=$("$top/tools/e2e/mkroot.sh" "$r" | tail -n 1) || harness_fail "tools/e2e/mkroot.sh $r failed"
	log "$r root tree ${tree_of[$r]} ($((SECONDS - t0)) s so far)"
	[[ " $stock_kernels " == *" $r/"* ]] || continue
	step "stock tree $r: tools/e2e/mkroot-stock.sh $r (from the cache once built)"
	stree=$("$top/tools/e2e/mkroot-stock.sh" "$r" | tail -n 1) || harness_fail "tools/e2e/mkroot-stock.sh $r failed"
	[ -f "$stree/boot/extown-stock-kernels" ] || harness_fail "$stree has no /boot/extown-stock-kernels"
	for k in $stock_kernels; do
		[ "${k%%/*}" = "$r" ] || continue
		line=$(awk -v b="${k#*/stock-}" '$1 == b' "$stree/boot/extown-stock-kernels")
		[ -n "$line" ] || harness_fail "the $r stock tree has no ${k#*/stock-} kernel"
		read -r _ kver kpkg vmlinuz initrd <<<"$line"
		mkdir -p "$work/${k/\//-}-boot"
		cp "$stree$vmlinuz" "$stree$initrd" "$work/${k/\//-}-boot/"
		kernel[$k]=$work/${k/\//-}-boot/$(basename "$vmlinuz")
		initrd_of[$k]=$work/${k/\//-}-boot/$(basename "$initrd")
		log "kernel $k: Debian linux-image-$kver $kpkg with its own initrd"
	done
	install_project "$stree" "$work/stock-root"
	# what only the DKMS tests need
	rm -rf "$work/stock-root"/usr/src/linux-source-*
	size=$(($(du -sm "$work/stock-root" | cut -f1) + 1024))
	mkfs.ext4 -q -F -L extown-e2e-root -d "$work/stock-root" "$work/stock-root-$r.img" "${size}M" >&2 ||
		harness_fail "mkfs.ext4 -d of the $r stock guest tree failed"
	rm -rf "$work/stock-root"
	log "$r stock guest image ready, ${size} MiB ($((SECONDS - t0)) s so far)"
done

for r in $releases; do
	step "guest image $r: the project installed into a copy of the tree, mkfs.ext4 -d"
	root=$work/root-$r
	install_project "${tree_of[$r]}" "$root"
	size=$(($(du -sm "$root" | cut -f1) + 1024))
	mkfs.ext4 -q -F -L extown-e2e-root -d "$root" "$work/root-$r.img" "${size}M" >&2 ||
		harness_fail "mkfs.ext4 -d of the $r guest tree failed"
	if [ "$r" != bookworm ] || [ "$rootusb" = no ]; then rm -rf "$root"; fi
done
root=$work/root-bookworm
readonly UUID_EXT2=6a6b0e00-0000-4000-8000-000000000002
# the rootusb disk: DOS label 6a6b0e01, partition 1 the root filesystem
# (root=PARTUUID=6a6b0e01-01), partition 2 a data filesystem for /srv/data
readonly ROOTUSB_P1=2048 ROOTUSB_P2=4196352 UUID_DATA=6a6b0e00-0000-4000-8000-0000000000da
if [ "$rootusb" != no ]; then
	# the rootusb machine: the same tree, plus a policy with a default
	# owner, fstab entries for / (systemd-remount-fs remounts it through
	# mount.ext4), for /srv/data (mounted at boot by systemd through
	# mount.ext4) and a "user" entry for the ext2 stick (the ext4 stick has
	# none: udisks mounts it with its own options), and its own guest script
	install -D -m 0755 "$top/tests/e2e/guest-rootusb.sh" "$root/usr/local/lib/extown-e2e/guest-rootusb.sh"
	mkdir -p "$root/etc/systemd/system/extown-e2e.service.d"
	printf '[Service]\nExecStart=\nExecStart=/usr/local/lib/extown-e2e/guest-rootusb.sh\n' \
		>"$root/etc/systemd/system/extown-e2e.service.d/rootusb.conf"
	echo 'default-owner = alice' >"$root/etc/extown.conf"
	chmod 0644 "$root/etc/extown.conf"
	chown 0:0 "$root/etc/extown.conf"
	cat >"$root/etc/fstab" <<-EOF
		LABEL=extown-e2e-root / ext4 defaults,errors=remount-ro 0 1
		UUID=$UUID_DATA /srv/data ext4 defaults 0 2
		UUID=$UUID_EXT2 /media/usb-ext2 ext2 user,noauto 0 0
	EOF
	mkdir -p "$root/srv/data" "$root/media/usb-ext2" "$root/mnt/stick" "$work/data-tree"
	echo 'data of uid 1234' >"$work/data-tree/file"
	chown 1234:1234 "$work/data-tree/file"
	truncate -s 2100M "$work/rootusb.img"
	printf 'label: dos\nlabel-id: 0x6a6b0e01\nstart=%s, size=4194304, type=83\nstart=%s, size=65536, type=83\n' \
		"$ROOTUSB_P1" "$ROOTUSB_P2" | sfdisk -q "$work/rootusb.img" >&2 ||
		harness_fail "sfdisk of the rootusb disk failed"
	{
		mkfs.ext4 -q -F -L extown-e2e-root -E offset=$((ROOTUSB_P1 * 512)) -d "$root" "$work/rootusb.img" 2G &&
			mkfs.ext4 -q -F -L extown-e2e-data -U "$UUID_DATA" -E offset=$((ROOTUSB_P2 * 512)) \
				-d "$work/data-tree" "$work/rootusb.img" 32M
	} >&2 || harness_fail "mkfs.ext4 -d of the rootusb partitions failed"
fi
rm -rf "$root"
log "guest image ready ($((SECONDS - t0)) s so far)"

# --- stick images ---------------------------------------------------------
step "sticks: tools/vm/mkimages.sh"
"$top/tools/vm/mkimages.sh" "$work/images" 2>/dev/null || harness_fail "tools/vm/mkimages.sh failed"
# owners other than the stick's: /other of 4321:4321 and /rootfile of 0:0
# (the fallback must leave them as they are), and /ownfile of alice's own
# 1000:1000, mode 0600 (the fallback shows it as nobody's, never as anyone
# else's)
echo 'another owner' >"$work/other"
for img in "$work/images/ext4.img" "$work/images/ext2.img"; do
	debugfs -w -f - "$img" >/dev/null 2>&1 <<-EOF || harness_fail "debugfs could not add /other to $img"
		write $work/other other
		sif other uid 4321
		sif other gid 4321
		write $work/other rootfile
		write $work/other ownfile
		sif ownfile uid 1000
		sif ownfile gid 1000
		sif ownfile mode 0100600
	EOF
	[ "$(ondisk_info "$img" /other | awk '{ print $3 ":" $4 }')" = 4321:4321 ] ||
		harness_fail "/other in $img is not 4321:4321"
done
readonly UUID_VIRTIO=6a6b0e00-0000-4000-8000-0000000000f4
# ext2 stick: partition 1 (from 1 MiB) of a DOS-labelled disk
make_sticks() { # DIR
	local d=$1
	mkdir -p "$d"
	cp --sparse=always "$work/images/ext4.img" "$d/stick-ext4.img"
	truncate -s 66M "$d/stick-ext2.img"
	echo 'start=2048, size=131072, type=83' | sfdisk -q --label dos "$d/stick-ext2.img" >&2
	dd if="$work/images/ext2.img" of="$d/stick-ext2.img" bs=1M seek=1 conv=notrunc,sparse status=none
	cp --sparse=always "$work/images/ext4.img" "$d/virtio-ext4.img"
	tune2fs -U "$UUID_VIRTIO" "$d/virtio-ext4.img" >/dev/null
}
# the filesystem of a stick image, as a file the host tools can read
fs_image() { # STICK-IMG OUT
	case $1 in
	*ext2.img) dd if="$1" of="$2" bs=1M skip=1 count=64 status=none ;;
	*) cp --sparse=always "$1" "$2" ;;
	esac
}

# e2e_results PREFIX GUESTDIR DIR RC PLUGGED: a VM's test lines and
# PREFIX.guest_finished; 1 (after a FAIL PREFIX.guest_ran line) when the
# guest left no results (the guest powers off itself: no DONE file)
e2e_results() {
	local p=$1 g=$2 d=$3 rc=$4 plugged=$5
	if [ ! -s "$g/results" ]; then
		fail_always "$p.guest_ran" "no results (run-vm status $rc, sticks plugged: $plugged); serial log ends: $(tail -n 5 "$d/vm/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	t_relay "$g/results"
	if [ "$rc" -eq 0 ] && [ "$(cat "$g/rc" 2>/dev/null)" = 0 ]; then
		pass "$p.guest_finished"
	else
		fail_always "$p.guest_finished" "run-vm status $rc, guest script status $(cat "$g/rc" 2>/dev/null)"
	fi
}

# hot-plug the USB sticks of DIR through QMP at SOCK
plug_sticks() { # DIR SOCK
	local d=$1 sock=$2 fs answer
	for fs in ext4 ext2; do
		if answer=$(usb_plug "$sock" "stick$fs" "$d/stick-$fs.img"); then
			log "hot-plugged $fs stick: $(tr '\n' ' ' <<<"$answer")"
		else
			fail "e2e.hotplug.$fs" "QMP said: $(tr '\n' ' ' <<<"$answer")"
		fi
	done
}

# --- host-side truth after a VM -------------------------------------------
# old paths keep their on-disk owners (found by inode number), new ones
# are NEW-OWNER (1000:1000 on the patched kernel, the stick's 1234:1234
# through the idmapped fallback), e2fsck -fn is clean
host_checks() { # LABEL STICK-IMG PRISTINE-FS-IMG NEW-OWNER NEW-PATHS...
	local label=$1 stick=$2 pristine=$3 want=$4 fsimg diffs="" p ino before after out uid gid
	shift 4
	fsimg=$work/check.img
	fs_image "$stick" "$fsimg"
	for p in / /file /secret /dir /dir/inner /link /chardev /fifo /socket /high /lost+found \
		/other /rootfile /ownfile; do
		ino=$(debugfs -R "stat $p" "$pristine" 2>/dev/null | awk '/^Inode:/ { print $2; exit }')
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$pristine" "$p")"
		before=$uid:$gid
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$fsimg" "<$ino>")"
		after=$uid:$gid
		[ "$before" = "$after" ] || diffs+="$p (inode $ino) $before -> $after; "
	done
	check_none "$label.disk_old_files_keep_owner" "$diffs"
	for p in "$@"; do
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$fsimg" "$p")"
		if [ "$uid:$gid" = "$want" ]; then
			pass "$label.disk_new_owned_${want%%:*}.${p#/}"
		else
			fail "$label.disk_new_owned_${want%%:*}.${p#/}" "debugfs says '$uid:$gid' for $p"
		fi
	done
	if [ $# -gt 0 ]; then
		out=$(debugfs -R "cat /secret" "$fsimg" 2>/dev/null)
		if grep -q 'edited by alice' <<<"$out"; then
			pass "$label.disk_0600_file_edited"
		else
			fail "$label.disk_0600_file_edited" "/secret on disk holds '$(tr '\n' ' ' <<<"$out")'"
		fi
	fi
	ondisk_fsck "$label.e2fsck_clean" "$fsimg"
	# the owners debugfs reads, for the transcript (tools/demo.sh)
	for p in / /file /secret /dir "$@"; do
		read -r _ _ uid gid _ _ <<<"$(ondisk_info "$fsimg" "$p")"
		echo "$p $uid:$gid"
	done >"$stick.owners"
	rm -f "$fsimg"
}

# vm_notes SERIAL-LOG N NAME: a step line for each of the guest's progress
# notes (EXTOWN-E2E-NOTE, guest-lib.sh) in the complete lines of
# SERIAL-LOG after the first N; the new N on stdout
vm_notes() {
	local f=$1 n=$2 name=$3 total line
	if [ ! -f "$f" ]; then
		echo "$n"
		return 0
	fi
	total=$(wc -l <"$f")
	while IFS= read -r line; do
		step "guest $name: $line"
	done < <(head -n "$total" "$f" | tail -n "+$((n + 1))" | tr -d '\r' | sed -n 's/.*EXTOWN-E2E-NOTE //p')
	echo "$total"
}

# The guest says on its serial line (DIR/vm/serial.log) when udisksd is up;
# then plug. Its notes become step lines while the VM (PID) runs. Sets
# plugged=yes, or plugged=no when the VM ended first.
follow_vm() { # PID DIR SOCK NAME
	local pid=$1 d=$2 sock=$3 name=$4 seen=0 alive=yes
	plugged=no
	while [ "$alive" = yes ]; do
		kill -0 "$pid" 2>/dev/null || alive=no
		seen=$(vm_notes "$d/vm/serial.log" "$seen" "$name")
		if [ "$alive" = yes ] && [ "$plugged" = no ] &&
			grep -aq EXTOWN-E2E-PLUG "$d/vm/serial.log" 2>/dev/null; then
			step "plug $name: QMP device_add usb-storage (removable) of the ext4 and the ext2 stick"
			plug_sticks "$d" "$sock"
			plugged=yes
		fi
		[ "$alive" = no ] || sleep 1
	done
}

# --- one VM per boot ---------------------------------------------------------
run_vm() { # RELEASE/LABEL
	local rk=$1 r=${1%%/*} k=${1#*/} d=$work/${1/\//-} sock pid rc=0 plugged=no g s
	# *-6.12: the guest runs the story of patched/unpatched; the release and
	# the base go into the test names here
	local kind=${k%%-*} p=e2e.$r
	[ "$kind" = "$k" ] || p=e2e.$r.${k#*-}
	case $k in stock-*) kind=$k p=e2e.$r ;; esac
	make_sticks "$d"
	sock=$d/qmp.sock
	s=$SECONDS
	local img=$work/root-$r.img initrd=none mem=1024 kimg=${kernel[$k]:-}
	if [ -n "${initrd_of[$rk]:-}" ]; then
		img=$work/stock-root-$r.img initrd=${initrd_of[$rk]} mem=1536 kimg=${kernel[$rk]}
	fi
	g=$d/vm/guest/e2e
	# A kernel that panics before the guest ran and before anything was
	# plugged is booted once more (seen: Debian's 6.12 under TCG, an int3
	# oops while patching text on the second CPU), so that its tests still
	# run; its serial log is kept as serial-panic.log and the first boot is
	# reported (panic_report: FAIL on our kernels, SKIP for that known
	# fault of a Debian kernel). A second panic stands.
	local attempt stock=no
	case $k in stock-*) stock=yes ;; esac
	for attempt in 1 2; do
		rc=0
		step "boot $rk: tools/vm/run-vm.sh (qemu, TCG), ${kimg##*/}, $(basename "$img"), ${mem} MiB"
		"$top/tools/vm/run-vm.sh" --out "$d/vm" --qmp "$sock" --args "$kind" --memory "$mem" \
			--append "root=/dev/vdb rootfstype=ext4 rw systemd.show_status=0$guest_append" \
			"$kimg" "$initrd" "$img:snapshot" "$d/virtio-ext4.img" 900 >"$d/run-vm.out" &
		pid=$!
		follow_vm "$pid" "$d" "$sock" "$rk"
		wait "$pid" || rc=$?
		if [ "$attempt" = 1 ] && [ "$plugged" = no ] && [ ! -s "$g/results" ] &&
			grep -aq 'Kernel panic' "$d/vm/serial.log" 2>/dev/null; then
			log "$rk: the kernel panicked before the guest ran ($(vm_panic "$d/vm/serial.log")); booting it again"
			mv "$d/vm/serial.log" "$d/serial-panic.log"
			panic_report "$p.$kind.guest_first_boot" "$d/serial-panic.log" "$stock"
			rm -rf "$d/vm"
			continue
		fi
		break
	done
	log "$rk VM: run-vm status $rc after $((SECONDS - s)) s (boot to power-off $(cat "$d/vm/boot-seconds" 2>/dev/null) s; $(head -n 1 "$g/boot-time" 2>/dev/null))"
	local grc=0
	# selected after the release and the base are in the names
	EXTOWN_TEST_FILTER='' e2e_results "e2e.$kind" "$g" "$d" "$rc" "$plugged" >"$d/results.out" || grc=$?
	sed "s/^\(PASS\|FAIL\|SKIP\) e2e\./\1 $p./" "$d/results.out" >"$d/results.named"
	t_relay "$d/results.named"
	[ "$grc" -eq 0 ] || return 0
	step "host checks $rk: debugfs and e2fsck -fn on the sticks"
	[ ! -f "$g/seen" ] || sed "s|^|e2e: $rk guest saw: |" "$g/seen" >&2
	if [ -f "$g/screenshot.png" ]; then
		cp "$g/screenshot.png" "$build/screenshot-$r-$k.png"
		log "$rk: screenshot $build/screenshot-$r-$k.png"
	fi
	local own=1234:1234 lp=$p.$kind
	case $kind in patched) own=1000:1000 lp=$p.U2 ;; esac
	host_checks "$lp.ext4" "$d/stick-ext4.img" "$work/images/ext4.img" "$own" \
		/alice-new /alice-dir /alice-fstab /desktop-udiskie /desktop-gio
	host_checks "$lp.ext2" "$d/stick-ext2.img" "$work/images/ext2.img" "$own" \
		/alice-new /alice-dir /desktop-udiskie /desktop-gio
	[ "$kind" != patched ] ||
		host_checks "$p.U3.virtio" "$d/virtio-ext4.img" "$work/images/ext4.img" 1000:1000
}

# --- the rootusb machine: root filesystem on a USB disk ----------------------
run_rootusb() {
	local d=$work/rootusb sock pid rc=0 plugged g s
	make_sticks "$d"
	sock=$d/qmp.sock
	s=$SECONDS
	step "boot rootusb: tools/vm/run-vm.sh (qemu, TCG), / on a USB disk"
	"$top/tools/vm/run-vm.sh" --out "$d/vm" --qmp "$sock" --args rootusb \
		--usb-disk "$work/rootusb.img:snapshot" \
		--append "root=PARTUUID=6a6b0e01-01 rootwait rootfstype=ext4 ro systemd.show_status=0" \
		"${kernel[patched]}" none 600 >"$d/run-vm.out" &
	pid=$!
	follow_vm "$pid" "$d" "$sock" rootusb
	wait "$pid" || rc=$?
	log "rootusb VM: run-vm status $rc after $((SECONDS - s)) s (boot to power-off $(cat "$d/vm/boot-seconds" 2>/dev/null) s)"
	g=$d/vm/guest/rootusb
	local grc=0
	EXTOWN_TEST_FILTER='' e2e_results e2e.rootusb "$g" "$d" "$rc" "$plugged" >"$d/results.out" || grc=$?
	sed "s/^\(PASS\|FAIL\|SKIP\) e2e\./\1 e2e.bookworm./" "$d/results.out" >"$d/results.named"
	t_relay "$d/results.named"
	[ "$grc" -eq 0 ] || return 0
	host_checks e2e.bookworm.rootusb.stick "$d/stick-ext4.img" "$work/images/ext4.img" 1000:1000 /alice-rootusb
}

for k in $kernels; do
	boot_wanted "${k%%/*}" || continue
	run_vm "$k"
done
if [ "$rootusb" != no ]; then
	run_rootusb
fi
log "done in $((SECONDS - t0)) s"
