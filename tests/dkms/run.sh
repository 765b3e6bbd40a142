#!/usr/bin/env bash
# The checks pass single-quoted expressions to eval, autoconf's $2 is its own:
# shellcheck disable=SC2016
# The Debian package extown-dkms on each Debian release's own stock kernels,
# for real:
#
#   tests/dkms/run.sh
#
# For each RELEASE of releases_selected (tools/releases; EXTOWN_RELEASES
# limits the run) that has stock kernels (its STOCK column), tests named
# dkms.RELEASE.NAME, on the kernels of its stock tree (release_tree_bases:
# trixie 6.12 and 7.3 of trixie-backports, bookworm 6.1, and its 6.12 in a
# run that boots it). The chroot checks cover every kernel of the tree; the boots
# the release's own kernel (of the bases whose SUITES in tools/kernel/bases
# has dkms, the release's own: tests/lib/releases.sh release_boot_bases;
# trixie 6.12, bookworm 6.1), or the kernels of EXTOWN_KERNEL_BASES on
# every release (EXTOWN_KERNEL_BASES=7.3: the 7.3 kernel alone boots, and
# its boot purges; "6.1 6.12": both boot on bookworm, the last purges):
#
# 1. build: `git archive HEAD`, `dpkg-buildpackage -us -uc -b` with the
#    release's own toolchain (tests/package/build-debs.sh: an overlay on
#    tools/build-root.sh RELEASE): extown_*.deb and extown-dkms_*.deb; their
#    version is configure.ac's (DEB_BUILD_OPTIONS=nocheck: the unit tests
#    of the build are tests/package's); the DKMS source in the .deb carries the
#    series of kernel-patches/ byte for byte.
# 2. chroot: an overlay on the stock-kernel tree of tools/e2e/mkroot-stock.sh
#    RELEASE (the release's linux-image of each base, headers, dkms, gcc,
#    linux-source-BASE); `apt-get install ./extown_*.deb ./extown-dkms_*.deb`
#    in it, natively on the host: DKMS builds ext4.ko for each kernel whose
#    base has a series, signs it with its own key (openssl, a dependency of
#    extown-dkms, makes the key), the initramfs holds the module; the build
#    script refuses a kernel without a series and one whose linux-source is
#    of another version, with one message, building nothing.
# 3. patched: the tree as a root disk (mkfs.ext4 -d), booted on each kernel
#    chosen above with its initramfs in turn (tools/vm/boot-stock.sh, TCG;
#    tests named dkms.RELEASE.6_1.*, dkms.RELEASE.6_12.*): / on the patched
#    module with 0 failed units, the feature file, the module's taint, a
#    uid= mount of a small ext4 disk (one per kernel); the last boot then
#    runs `apt-get purge extown-dkms` (no module left, every initramfs
#    stock). On the host: debugfs shows the guest's new file as 1000:1000
#    on disk.
# 4. stock: the same disk booted again on each kernel: the in-tree module,
#    no feature file, the helper's idmapped fallback; the last boot runs
#    `apt-get purge extown`: no helper, no rules, a plain mount as before.
#
# stdout: one "PASS dkms.RELEASE.NAME" / "FAIL dkms.RELEASE.NAME: why" /
# "SKIP dkms.RELEASE.NAME: why" line per check, nothing else (what a
# cached artefact stands for is a SKIP: "build" when the .debs were not
# built again, the chroot checks when the image was not installed again;
# a FAIL recorded with the image stays a FAIL); progress on stderr; logs in build/dkms/RELEASE/,
# timings in build/dkms/timings. Exit status 0 unless the harness itself
# broke ("FAIL dkms.harness: why", exit 1). Needs root (chroot, mount), the
# network the first time (the trees).
#
# Cache (${EXTOWN_CACHE:-/var/cache/extown}/dkms/): per release the .debs
# keyed on the files of HEAD that go into them; the root image after the
# chroot install, with the results of the chroot checks, keyed on the
# .debs, the guest files, this script and the stock tree. A warm run
# repeats only the boots.
#
# Environment: EXTOWN_DKMS_BREAK=initramfs | version | purge-running |
# unsigned builds the package with that part broken on purpose (no
# update-initramfs after DKMS; no MODULE_VERSION; after a removal only the
# initramfs of the running kernel rebuilt; extown-dkms without its
# dependency on openssl, which the tree lacks: DKMS signs nothing), to show
# which checks catch it; EXTOWN_DKMS_BREAK=abort leaves the packages as
# they are and makes the guest script die half-way in its first patched
# boot (an unset variable under set -u, after the boot checks), to show
# that the checks it never reached fail. EXTOWN_DKMS_TIMEOUT: the
# timeout of one boot in seconds (default 1500). EXTOWN_DKMS_BOOT=no: the
# build and chroot checks only, no boot.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
logs_top=$top/build/dkms
mkdir -p "$logs_top"
rm -rf "${logs_top:?}"/*

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/ondisk.sh
. "$top/tests/lib/ondisk.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
# shellcheck source=tests/lib/bases.sh
. "$top/tests/lib/bases.sh"
# shellcheck source=tests/lib/qemu.sh
. "$top/tests/lib/qemu.sh"
T_LOG=dkms harness_test=dkms

need_root "chroot, mount"
break_what=${EXTOWN_DKMS_BREAK:-}
case $break_what in '' | initramfs | version | purge-running | unsigned | abort) ;; *) harness_fail "EXTOWN_DKMS_BREAK must be initramfs, version, purge-running, unsigned or abort" ;; esac
# what the packages and the image are built with (abort breaks the guest)
pkg_break=$break_what
[ "$break_what" != abort ] || pkg_break=
vm_timeout=${EXTOWN_DKMS_TIMEOUT:-1500}
"$top/tools/install-deps-packaging.sh" >&2 || harness_fail "tools/install-deps-packaging.sh failed"
"$top/tools/install-deps.sh" >&2 || harness_fail "tools/install-deps.sh failed"
"$top/tools/e2e/install-deps.sh" >&2 || harness_fail "tools/e2e/install-deps.sh failed"
for tool in git dpkg-deb autoconf qemu-system-x86_64 debugfs mkfs.ext4 e2fsck; do
	command -v "$tool" >/dev/null 2>&1 || harness_fail "$tool not installed"
done
releases=()
for r in $(releases_selected); do
	[ -z "$(release_field "$r" stock)" ] || releases+=("$r")
done

cache=${EXTOWN_CACHE:-/var/cache/extown}/dkms
mkdir -p "$cache"
work=$(mktemp -d "${TMPDIR:-/tmp}/extown-dkms.XXXXXX")
ovl='' ovl_root=''
# the overlay, and the file systems mounted in it (cache_mount)
unmount_all() {
	cache_umount_all
	if [ -n "$ovl_root" ]; then
		umount "$ovl_root" 2>/dev/null || umount -l "$ovl_root" || true
		ovl_root=''
	fi
}
cleanup() {
	unmount_all
	# never remove through a mount that is still there
	if ! grep -qE " ($work|${ovl:-/nonexistent})/" /proc/mounts; then
		rm -rf "$work"
		[ -z "$ovl" ] || rm -rf "$ovl"
	fi
}
trap cleanup EXIT
t0=$SECONDS
# prune_cache PREFIX [KEEP]: remove $cache/PREFIX-* of this run's kind (good,
# or broken the same way), but KEEP; the other kind's caches stay
prune_cache() {
	local old kind
	for old in "$cache/$1"-*; do
		kind=good
		case $old in *-broken-*) kind=${old##*-broken-} ;; esac
		if [ "$old" != "${2:-}" ] && [ "$kind" = "${pkg_break:-good}" ]; then rm -rf "$old"; fi
	done
}
timing() { echo "$1 $2" >>"$logs_top/timings"; log "$1: $2 s"; }

# one run at a time: the caches below are replaced, not shared
exec 9>"$cache/lock"
flock 9

# keyed on what goes into the packages: HEAD's tree without docs/, bench/,
# the test suites other than the unit tests (the package build runs
# those) and tests/package/build-debs.sh (which builds them; the rest of
# tests/package/ not), and the tools no package build uses (the kernel,
# VM and e2e tools; the build tree's, tools/build-root.sh and the package
# lists, stay in the key)
tree_id=$(git -C "$top" ls-tree -r HEAD |
	grep -vE $'\t(docs/|bench/|README\\.md$|tests/([^up]|u[^n]|p[^a])|tests/package/[^b]|tools/(kernel|vm|e2e)/|tools/(demo\\.sh|README\\.md)$)' |
	sha256sum | cut -c1-40)
want=$(cd "$top" && autoconf --trace='AC_INIT:$2' configure.ac | head -n 1)

# ---- 1. the two packages, built on the release ----------------------------------
build_debs() {
	local src start rc=0
	debdir=$cache/debs-$rel-$tree_id${pkg_break:+-broken-$pkg_break}
	if [ -n "$(find "$debdir" -maxdepth 1 -name 'extown-dkms_*_all.deb' 2>/dev/null)" ]; then
		log "$rel: cached .debs of tree $tree_id: $debdir"
		skip build "not built again: the .debs of this tree ($tree_id) are cached in $debdir"
		return 0
	fi
	src=$wrel/src/extown
	mkdir -p "$src"
	git -C "$top" archive --format=tar HEAD | tar -x -C "$src" || harness_fail "git archive HEAD failed"
	case $pkg_break in
	initramfs)
		log "BROKEN ON PURPOSE: no POST_INSTALL/POST_REMOVE (no update-initramfs)"
		sed -i '/^POST_\(INSTALL\|REMOVE\)=/d' "$src/dkms/dkms.conf"
		;;
	version)
		log "BROKEN ON PURPOSE: no MODULE_VERSION"
		sed -i '/^MODULE_VERSION/d' "$src/dkms/extown-version.c"
		;;
	unsigned)
		log "BROKEN ON PURPOSE: extown-dkms does not depend on openssl"
		sed -i 's/, openssl, /, /' "$src/debian/control"
		;;
	purge-running)
		log "BROKEN ON PURPOSE: after a removal only the running kernel's initramfs is rebuilt"
		sed -i '/^depmod -a/i [ "$kver" = "$(uname -r)" ] || ls /lib/modules/"$kver"/updates/dkms/ext4.ko* >/dev/null 2>&1 || exit 0' \
			"$src/dkms/extown-initramfs"
		;;
	esac
	start=$SECONDS
	# the unit tests of the build are the package suite's (build_unit_tests)
	"$top/tests/package/build-debs.sh" --nocheck "$rel" "$src" "$wrel/out" -us -uc -b 2>>"$logs/build-debs.err" || rc=$?
	cp "$wrel/out/build.log" "$wrel/out/toolchain.txt" "$logs/" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		fail build "dpkg-buildpackage -us -uc -b on $rel failed (status $rc): $(grep -m 1 -iE 'error' "$logs/build.log" 2>/dev/null || tail -n 1 "$logs/build-debs.err") (see $logs/)"
		return 1
	fi
	timing "$rel dpkg-buildpackage -b (tests/package/build-debs.sh)" $((SECONDS - start))
	rm -rf "$debdir"
	mkdir -p "$debdir.tmp"
	cp "$wrel"/out/extown_*.deb "$wrel"/out/extown-dkms_*.deb "$debdir.tmp/"
	rm -f "$debdir.tmp"/*dbgsym*
	mv "$debdir.tmp" "$debdir"
	prune_cache "debs-$rel" "$debdir"
	pass build
}

# the series in the .deb are those of kernel-patches/ (per base, or the one series)
series_same() {
	local d base found=0
	for d in "$top"/kernel-patches/*/series "$top"/kernel-patches/series; do
		[ -f "$d" ] || continue
		d=${d%/series}
		if [ "$d" = "$top/kernel-patches" ]; then
			[ "$found" -eq 0 ] || continue
			base=$(sed -n '1s/^\([0-9]\+\.[0-9]\+\).*/\1/p' "$d/BASE")
		else
			base=${d##*/}
		fi
		found=1
		cmp -s "$d/series" "$dsrc/patches/$base/series" || return 1
		while read -r p; do cmp -s "$d/$p" "$dsrc/patches/$base/$p" || return 1; done \
			< <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$d/series")
	done
	[ "$found" -eq 1 ]
}
conf_ok() {
	grep -q "^PACKAGE_VERSION=\"$want\"" "$dsrc/dkms.conf" &&
		grep -q '^BUILT_MODULE_NAME\[0\]="ext4"' "$dsrc/dkms.conf" &&
		! grep -q '#[A-Z_]*#' "$dsrc/dkms.conf" && [ -x "$dsrc/extown-build" ]
}

# ---- 2. install in an overlay on the stock-kernel tree (chroot, natively) ---------
# chroot_install: the chroot checks into $wrel/chroot-results, the image into
# $imgdir
chroot_install() {
	local root results k b mlog mod modver magic resolved signer nk nb rc msg start
	ovl=$(mktemp -d "$cache/overlay.XXXXXX")
	mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root"
	root=$ovl/root
	mount -t overlay overlay -o "lowerdir=$tree,upperdir=$ovl/upper,workdir=$ovl/work" "$root" ||
		harness_fail "cannot mount an overlay on $tree"
	ovl_root=$root
	cache_mount -t proc proc "$root/proc"
	cache_mount -t sysfs sysfs "$root/sys"
	cache_mount --bind /dev "$root/dev"
	cache_mount -t devpts -o newinstance devpts "$root/dev/pts"
	# the chroot checks are recorded whole (they are cached with the
	# image) and reported, selected, at the end of this block
	results=$wrel/chroot-results
	: >"$results"
	rcheck() { EXTOWN_TEST_FILTER='' T_RESULTS=$results check "$@"; }
	cp "$deb" "$ddeb" "$root/tmp/"
	start=$SECONDS
	# the tree's apt lists were dropped; openssl (a dependency of
	# extown-dkms) comes from the release's mirror
	if in_root "$root" apt-get update -q >"$logs/chroot-install.log" 2>&1 &&
		in_root "$root" apt-get install -y --no-install-recommends "/tmp/${deb##*/}" "/tmp/${ddeb##*/}" \
			>>"$logs/chroot-install.log" 2>&1; then
		timing "$rel chroot apt-get install (DKMS builds, initramfs)" $((SECONDS - start))
		rcheck chroot_apt_install "" true
	else
		rcheck chroot_apt_install "apt-get install ./extown_*.deb ./extown-dkms_*.deb failed: $(grep -m 1 -E '^E:|Error|error' "$logs/chroot-install.log") (see $logs/chroot-install.log)" false
	fi
	in_root "$root" apt-get clean
	rm -rf "$root"/var/lib/apt/lists/*_Packages "$root"/var/lib/apt/lists/*_Translation-*
	in_root "$root" dkms status >"$logs/dkms-status.txt" 2>&1 || true
	in_root "$root" dpkg-query -W dkms >>"$logs/dkms-status.txt" 2>&1 || true
	# DKMS's own log of the build, and how long the build took (the first
	# line of make.log is the start, the file's mtime the end)
	for k in "${kernels[@]}"; do
		mlog=$(find "$root/var/lib/dkms/extown/$want/$k" -name make.log 2>/dev/null | head -n 1 || true)
		[ -n "$mlog" ] || continue
		cp "$mlog" "$logs/dkms-make-$k.log"
		b=$(sed -n '2p' "$mlog" | date -f - +%s 2>/dev/null || true)
		[ -z "$b" ] || timing "$rel DKMS build of ext4.ko for $k (make.log)" $(($(stat -c %Y "$mlog") - b))
	done
	# exactly "installed": dkms 3.0.10 also says "installed (WARNING! Diff
	# between built and installed module!)" when it refused to replace
	# ext4.ko; dkms 3.2 adds "(Original modules exist)": it keeps a copy of
	# the in-tree ext4.ko.xz under /var/lib/dkms/extown/original_module
	installed_re() {
		local k
		# shellcheck disable=SC2001 # two characters to escape
		k=$(sed 's/[.+]/\\&/g' <<<"$1")
		echo "^extown/$want, $k, x86_64: installed( \(Original modules exist\))?\$"
	}
	for k in "${kernels[@]}"; do
		b=${base_of[$k]}
		if [ -d "$root/usr/src/extown-$want/patches/${b/_/.}" ]; then
			rcheck "chroot_dkms_installed_$b" "dkms status: $(tr '\n' ';' <"$logs/dkms-status.txt")" \
				grep -qE "$(installed_re "$k")" "$logs/dkms-status.txt"
		else
			rcheck "chroot_dkms_skips_${b}_without_series" "dkms status: $(tr '\n' ';' <"$logs/dkms-status.txt")" \
				eval '! grep -q "$k.*installed" "$logs/dkms-status.txt" && ! ls "$root/lib/modules/$k/updates/dkms/ext4.ko"* >/dev/null 2>&1'
		fi
	done
	# the module of each kernel DKMS built for: ours, for that kernel,
	# signed with DKMS's own key, chosen by modprobe, in that kernel's initramfs
	for k in "${kernels[@]}"; do
		grep -qE "$(installed_re "$k")" "$logs/dkms-status.txt" || continue
		b=${base_of[$k]}
		mod=$(find "$root/lib/modules/$k/updates/dkms" -name 'ext4.ko*' 2>/dev/null | head -n 1 || true)
		modver=$( [ -z "$mod" ] || in_root "$root" modinfo -F version "${mod#"$root"}" 2>&1)
		magic=$( [ -z "$mod" ] || in_root "$root" modinfo -F vermagic "${mod#"$root"}" 2>&1)
		signer=$( [ -z "$mod" ] || in_root "$root" modinfo -F signer "${mod#"$root"}" 2>&1)
		echo "$k: ${mod#"$root"}: version '$modver', signer '$signer'" >>"$logs/modules.txt"
		rcheck "chroot_module_version_$b" "updates/dkms/ext4.ko of $k: '${mod:-missing}', version '$modver'" \
			test -n "$mod" -a "$modver" = "$want-extown"
		rcheck "chroot_module_vermagic_$b" "vermagic '$magic', kernel $k" eval '[[ $magic == "$k "* ]]'
		rcheck "chroot_module_signed_by_dkms_key_$b" "${mod#"$root"}: signer '$signer', /var/lib/dkms: $(find "$root/var/lib/dkms" -maxdepth 1 -printf '%f ')" \
			eval '[ "$signer" = "DKMS module signing key" ] && [ -s "$root/var/lib/dkms/mok.key" ] && [ -s "$root/var/lib/dkms/mok.pub" ]'
		resolved=$(in_root "$root" modprobe -S "$k" --show-depends ext4 2>&1 | awk '/ext4\.ko/ { print $2 }')
		rcheck "chroot_modprobe_picks_dkms_$b" "modprobe -S $k resolves ext4 to '$resolved'" \
			eval '[[ $resolved == /lib/modules/$k/updates/dkms/ext4.ko* ]]'
		in_root "$root" lsinitramfs "/boot/initrd.img-$k" >"$logs/initramfs-$k.list" 2>&1 || true
		rcheck "chroot_initramfs_has_module_$b" "/boot/initrd.img-$k holds no updates/dkms/ext4.ko (its ext4: $(grep -m1 '/ext4.ko' "$logs/initramfs-$k.list"))" \
			grep -q "lib/modules/$k/updates/dkms/ext4.ko" "$logs/initramfs-$k.list"
	done
	ls -l "$root/var/lib/dkms" >"$logs/var-lib-dkms.txt" 2>&1 || true

	# extown-build refuses, in a copy of the DKMS source: a kernel without
	# a series (a 6.6 release), and the first kernel whose linux-source has
	# another version (a dpkg-query that says so), before unpacking anything
	# shellcheck disable=SC2034 # nb is read in the eval below
	k=${kernels[0]} nb=${base_of[${kernels[0]}]/_/.}
	in_root "$root" rm -rf /tmp/eb
	in_root "$root" cp -a "/usr/src/extown-$want" /tmp/eb
	nk=6.6.0-1-amd64
	rc=0
	msg=$(in_root "$root" /tmp/eb/extown-build "$nk" "/lib/modules/$k/build" 2>&1) || rc=$?
	echo "$msg" >"$logs/refuse-series.txt"
	rcheck refuses_kernel_without_series "exit $rc, said: $msg" \
		eval '[ "$rc" -eq 1 ] && [ "$(wc -l <<<"$msg")" -eq 1 ] && [[ $msg == "extown-dkms: no patch series for Linux 6.6 (kernel $nk)"*"Nothing was built." ]] && [ ! -e "$root/tmp/eb/src" ]'
	mkdir -p "$root/tmp/fakebin"
	cat >"$root/tmp/fakebin/dpkg-query" <<-'EOF'
		#!/bin/sh
		# linux-source-* of another version than the kernel
		for a; do last=$a; done
		case $last in linux-source-*) echo "ii  6.0.0-extown-test"; exit 0 ;; esac
		exec /usr/bin/dpkg-query "$@"
	EOF
	chmod 755 "$root/tmp/fakebin/dpkg-query"
	rc=0
	msg=$(chroot "$root" /usr/bin/env -i PATH=/tmp/fakebin:/usr/sbin:/usr/bin:/sbin:/bin \
		/tmp/eb/extown-build "$k" "/lib/modules/$k/build" 2>&1) || rc=$?
	echo "$msg" >"$logs/refuse-source.txt"
	rcheck refuses_source_of_other_version "exit $rc, said: $msg" \
		eval '[ "$rc" -eq 1 ] && [ "$(wc -l <<<"$msg")" -eq 1 ] && [[ $msg == *"but linux-source-$nb is 6.0.0-extown-test"*"Nothing was built." ]] && [ ! -e "$root/tmp/eb/src" ]'
	in_root "$root" rm -rf /tmp/eb /tmp/fakebin "/tmp/${deb##*/}" "/tmp/${ddeb##*/}"

	# the test unit, the results writer, the mount point
	install -D -m 0755 "$top/tests/dkms/guest.sh" "$root/usr/local/lib/extown-dkms-test/guest.sh"
	install -D -m 0644 "$top/tests/lib/results.sh" "$root/usr/local/lib/extown-dkms-test/results.sh"
	install -D -m 0755 "$top/tools/vm/guest-write-results.sh" "$root/usr/local/bin/extown-write-results"
	install -D -m 0644 "$top/tests/dkms/extown-dkms-test.service" "$root/etc/systemd/system/extown-dkms-test.service"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/extown-dkms-test.service \
		"$root/etc/systemd/system/multi-user.target.wants/extown-dkms-test.service"
	echo 'LABEL=extown-dkms-root / ext4 defaults,errors=remount-ro 0 1' >"$root/etc/fstab"
	# The initramfs made above in the chroot has MODULES=most (the host's
	# hardware says nothing about the guest's). In the guest, the rebuild
	# after `apt-get purge extown-dkms` takes the modules of its own
	# hardware (virtio, ext4), as on an installed machine: MODULES=most
	# under TCG took over 8 minutes there.
	printf '# tests/dkms: the guest'"'"'s own hardware\nMODULES=dep\n' \
		>"$root/etc/initramfs-tools/conf.d/zz-extown-dkms-test.conf"
	cache_umount_all
	# kept for the next run (only a complete one; one image of each kind,
	# good or broken so, per release); the boots below take a copy
	prune_cache "img-$rel"
	mkdir -p "$imgdir.tmp"
	start=$SECONDS
	mkfs.ext4 -q -F -L extown-dkms-root -d "$root" "$imgdir.tmp/root.img" 6G >&2 ||
		harness_fail "mkfs.ext4 -d of the installed tree failed"
	timing "$rel mkfs.ext4 -d root image" $((SECONDS - start))
	unmount_all
	rm -rf "$ovl"
	ovl=''
	cp "$results" "$imgdir.tmp/chroot-results"
	touch "$imgdir.tmp/complete"
	mv "$imgdir.tmp" "$imgdir"
}

# ---- 3 and 4: the boots, on each kernel DKMS built for ---------------------
# One copy of the installed root disk, one small ext4 disk (files of
# 1234:1234) per kernel. The patched module on each kernel in turn, the
# last of them purges extown-dkms (which removes the module of every kernel
# and rebuilds every initramfs); then the stock module on each kernel in
# turn, the last purges extown and mounts plainly.
# stick IMG: make it
stick() {
	rm -rf "$wrel/stick-tree"
	mkdir -p "$wrel/stick-tree"
	echo 'a file of uid 1234' >"$wrel/stick-tree/file-1234"
	chown -R 1234:1234 "$wrel/stick-tree"
	mkfs.ext4 -q -F -L dkms-stick -E root_owner=1234:1234 -d "$wrel/stick-tree" "$1" 16M >&2 ||
		harness_fail "mkfs.ext4 of the stick failed"
}
# owner IMG PATH: uid:gid of PATH in IMG as debugfs reads it
owner() { local o; o=$(ondisk_owner "$1" "$2"); echo "${o/ /:}"; }

# boot B PHASE[,purge]: boot the root disk on B's kernel (B: 6_1, 6_12)
# with B's small disk; print the guest's lines, named dkms.REL.B.PHASE.NAME
boot() {
	local b=$1 phase=${2%,purge} d=$wrel/vm-$1-${2%,purge} rc=0 start=$SECONDS grc append=()
	# broken on purpose: the first patched boot's guest dies half-way
	if [ "$break_what" = abort ] && [ "$phase" = patched ] && [ "$b" = "${bases[0]}" ]; then
		log "BROKEN ON PURPOSE: extown.break=abort on the $b patched boot's command line"
		append=(--append extown.break=abort)
	fi
	"$top/tools/vm/boot-stock.sh" --out "$d" "${append[@]}" --args "$2" "${b/_/.}" "$wrel/root.img" \
		"$wrel/stick-$b.img" "$vm_timeout" >"$logs/boot-$b-$phase.out" 2>"$logs/boot-$b-$phase.err" || rc=$?
	timing "$rel boot $b $2 (run-vm total)" $((SECONDS - start))
	cp -r "$d" "$logs/vm-$b-$phase" 2>/dev/null || true
	# a first boot that panicked and was booted again (boot-stock.sh)
	[ ! -f "$d/serial-panic.log" ] ||
		panic_report "$b.$phase.guest_first_boot" "$logs/vm-$b-$phase/serial-panic.log" yes
	if [ ! -s "$d/guest/dkms/results" ]; then
		fail_always "$b.$phase.guest_ran" "no results (boot-stock status $rc); serial log ends: $(tail -n 5 "$d/serial.log" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	sed "s/^\(PASS\|FAIL\|SKIP\) dkms\./\1 dkms.$rel.$b./" "$d/guest/dkms/results" >"$d/results.named"
	T_PREFIX='' t_relay "$d/results.named"
	for f in uptime-booted timings; do
		[ ! -f "$d/guest/dkms/$f" ] || sed "s/^/guest $rel $b $phase $f: /" "$d/guest/dkms/$f" >>"$logs_top/timings"
	done
	grc=$(cat "$d/guest/dkms/rc" 2>/dev/null) || grc=none
	if [ "$rc" -eq 0 ] && [ "$grc" = 0 ]; then
		pass "$b.$phase.guest_finished"
	else
		fail_always "$b.$phase.guest_finished" "boot-stock status $rc, guest script status $grc: the checks after its last result were not made (see $logs/vm-$b-$phase/guest/dkms/log, $logs/boot-$b-$phase.err)"
	fi
}

boots() {
	local k b t p last o f bases=() wanted
	wanted=" $(release_boot_bases "$rel" dkms) "
	for k in "${kernels[@]}"; do
		b=${base_of[$k]}
		[ -f "$top/kernel-patches/${b/_/.}/series" ] || continue # no series, no boot
		if [[ $wanted != *" ${b/_/.} "* ]]; then
			log "$rel: $k not booted (base ${b/_/.} boots on $rel only when asked: EXTOWN_KERNEL_BASES)"
			continue
		fi
		if grep -q "^PASS dkms.$rel.chroot_dkms_installed_$b" "$imgdir/chroot-results"; then
			bases+=("$b")
		else
			for t in patched.guest_ran stock.guest_ran; do
				fail_always "$b.$t" "not booted: DKMS installed no module for $k in the chroot"
			done
		fi
	done
	[ ${#bases[@]} -gt 0 ] || return 0
	last=${bases[${#bases[@]} - 1]}
	cp --sparse=always "$imgdir/root.img" "$wrel/root.img"
	for b in "${bases[@]}"; do
		p=''
		[ "$b" != "$last" ] || p=,purge
		stick "$wrel/stick-$b.img"
		if boot "$b" "patched$p"; then
			o=$(owner "$wrel/stick-$b.img" /new-by-guest)
			check "$b.host_new_file_1000_on_disk" "debugfs: /new-by-guest is ${o:-missing} on disk" test "$o" = 1000:1000
			o=$(owner "$wrel/stick-$b.img" /file-1234)
			check "$b.host_old_file_keeps_owner" "debugfs: /file-1234 is ${o:-missing} on disk" test "$o" = 1234:1234
		fi
	done
	for b in "${bases[@]}"; do
		p=''
		[ "$b" != "$last" ] || p=,purge
		if boot "$b" "stock$p" && [ -n "$p" ]; then
			o=$(owner "$wrel/stick-$b.img" /new-plain)
			check "$b.host_plain_new_file_root" "debugfs: /new-plain is ${o:-missing} on disk" test "$o" = 0:0
		fi
	done
	for f in root "${bases[@]/#/stick-}"; do
		ondisk_fsck "host_${f/-/_}_fsck_clean" "$wrel/$f.img"
	done
	rm -f "$wrel"/*.img
}

# ---- one release -------------------------------------------------------------------
declare -A base_of=()
dkms_release() {
	rel=$1
	T_PREFIX=dkms.$rel.
	logs=$logs_top/$rel wrel=$work/$rel
	mkdir -p "$logs" "$wrel"
	local t1=$SECONDS debs ddebs v1 v2 x b k img_key
	build_debs || return 0
	debs=("$debdir"/extown_*_"$(dpkg --print-architecture)".deb)
	ddebs=("$debdir"/extown-dkms_*_all.deb)
	deb=${debs[0]} ddeb=${ddebs[0]}
	{ [ -f "$deb" ] && [ -f "$ddeb" ]; } || harness_fail "no extown or extown-dkms .deb in $debdir"
	v1=$(dpkg-deb -f "$deb" Version) v2=$(dpkg-deb -f "$ddeb" Version)
	check version_is_configure "extown $v1, extown-dkms $v2, configure.ac $want" \
		test "$v1" = "$want" -a "$v2" = "$want"
	check dkms_deb_arch_all "extown-dkms is Architecture: $(dpkg-deb -f "$ddeb" Architecture)" \
		test "$(dpkg-deb -f "$ddeb" Architecture)" = all
	x=$wrel/x
	mkdir -p "$x"
	dpkg-deb -x "$ddeb" "$x"
	dsrc=$x/usr/src/extown-$want
	check dkms_deb_series_from_kernel_patches "usr/src/extown-$want/patches/ differs from kernel-patches/ at HEAD" series_same
	check dkms_deb_conf "usr/src/extown-$want/dkms.conf lacks the version or ext4, or has a placeholder left" conf_ok

	if ! tree=$("$top/tools/e2e/mkroot-stock.sh" "$rel" 2>"$logs/mkroot-stock.log" | tail -n 1) ||
		[ ! -f "$tree/boot/extown-stock-kernels" ]; then
		fail_always stock_tree "tools/e2e/mkroot-stock.sh $rel failed: $(tail -n 1 "$logs/mkroot-stock.log") (see $logs/mkroot-stock.log)"
		return 0
	fi
	log "$rel stock tree $tree ($((SECONDS - t0)) s so far)"
	kernels=()
	base_of=()
	while read -r b k _; do
		kernels+=("$k")
		base_of[$k]=${b/./_}
	done <"$tree/boot/extown-stock-kernels"
	[ ${#kernels[@]} -gt 0 ] || harness_fail "no kernel in $tree/boot/extown-stock-kernels"

	img_key=$( (sha256sum "$deb" "$ddeb" "$top/tests/dkms/guest.sh" "$top/tests/dkms/extown-dkms-test.service" \
		"$top/tools/vm/guest-write-results.sh" "$top/tests/lib/results.sh" "${BASH_SOURCE[0]}" | cut -d' ' -f1
		echo "$tree") | sha256sum | cut -c1-16)
	imgdir=$cache/img-$rel-$img_key${pkg_break:+-broken-$pkg_break}
	if [ -f "$imgdir/complete" ]; then
		# not run again: a recorded PASS is reported as a SKIP, a recorded
		# FAIL (the same inputs, so still true) as a FAIL
		log "$rel: cached installed root image $imgdir (the chroot checks were not run again)"
		sed -e "s|^PASS \\([^ ]*\\)\$|SKIP \\1: not run again: the root image installed with these .debs is cached ($imgdir)|" \
			-e "s|^FAIL \\([^:]*\\): |FAIL \\1: recorded when the cached image $imgdir was installed: |" \
			"$imgdir/chroot-results" >"$wrel/chroot-results.cached"
		t_relay "$wrel/chroot-results.cached"
	else
		chroot_install
		t_relay "$imgdir/chroot-results"
	fi
	if [ "${EXTOWN_DKMS_BOOT:-yes}" = no ]; then
		log "EXTOWN_DKMS_BOOT=no: no boot"
	else
		boots
	fi
	timing "$rel total" $((SECONDS - t1))
}

for rel in "${releases[@]}"; do
	dkms_release "$rel"
done
timing "suite total" $((SECONDS - t0))
