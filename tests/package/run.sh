#!/usr/bin/env bash
# The Debian packages "extown" and "extown-dkms" (debian/): build them from a
# clean copy of the committed tree with each Debian release's own toolchain,
# lint them with that release's lintian, read them back, and install and
# purge extown in a throw-away tree of the same release.
#
#   tests/package/run.sh
#
# For each RELEASE of releases_selected (tools/releases: trixie, bookworm;
# EXTOWN_RELEASES="bookworm" limits the run), tests named
# package.RELEASE.NAME:
#
# 1. `git archive HEAD` into an overlay on the cached build tree of
#    tools/build-root.sh RELEASE (never written to), `dpkg-buildpackage -us
#    -uc` (source and binary) there, chrooted, as the unprivileged user
#    nobody (as a buildd does; tests/package/build-debs.sh): the release's
#    own dpkg-dev, debhelper, dh-dkms, compiler and libraries. A .deb built
#    on trixie needs trixie's libc6 (>= 2.38): each release gets its own.
#    build_unit_tests: the unit tests of dh_auto_test pass there; when they
#    do not, the packages are built again with DEB_BUILD_OPTIONS=nocheck
#    for the checks below.
# 2. that release's lintian on the .changes (source, extown, extown-dkms):
#    no error, no warning that is not overridden, every override used.
# 3. dpkg-deb -c / -I / -x on the host: mount.ext4 setuid root, the
#    mount.ext3 and mount.ext2 links, udev rules, man pages, the conffile
#    (listed in conffiles, all comments, read by the helper's own parser as
#    "no file"), the hardening of the binary, the version equal to
#    configure.ac's; extown-dkms Architecture: all.
# 4. In an overlay on the cached tree of tools/e2e/mkroot.sh RELEASE (never
#    on this host: the package puts a setuid mount.ext4 in /usr/sbin):
#    dpkg -i, files and modes, the helper runs, the maintainer scripts reload
#    udev only when it runs, dpkg -r keeps the conffile, dpkg --purge leaves
#    the tree as it was.
#
# stdout: one "PASS package.RELEASE.NAME" / "FAIL package.RELEASE.NAME: why"
# line per check, nothing else. Logs in build/package/RELEASE/, timings in
# build/package/timings. Exit status 0 unless the harness itself broke
# ("FAIL package.harness: why", exit 1). Needs root (chroot, mount,
# debootstrap the first time) and the Debian mirror the first time.
#
# Environment: EXTOWN_PACKAGE_BREAK=standards-version builds with
# Standards-Version 4.7.2 (trixie's policy: bookworm's lintian warns
# newer-standards-version), to show which check catches it.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
logs_top=$top/build/package
mkdir -p "$logs_top"
rm -rf "${logs_top:?}"/*

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
# shellcheck source=tests/lib/cache.sh
. "$top/tests/lib/cache.sh"
# shellcheck source=tests/lib/releases.sh
. "$top/tests/lib/releases.sh"
T_LOG=package harness_test=package

need_root "chroot, mount"
for tool in git dpkg-deb autoconf readelf cc perl debootstrap; do
	command -v "$tool" >/dev/null 2>&1 ||
		harness_fail "$tool not installed (run tools/install-deps-packaging.sh and tools/e2e/install-deps.sh)"
done
break_what=${EXTOWN_PACKAGE_BREAK:-}
case $break_what in '' | standards-version) ;; *) harness_fail "EXTOWN_PACKAGE_BREAK must be standards-version" ;; esac
releases=$(releases_selected)

work=$(mktemp -d /tmp/extown-package.XXXXXX) || harness_fail "mktemp failed"
# the overlays of a release and what is mounted in them, unmounted in
# reverse order
mounts=()
umount_all() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true
	done
	mounts=()
}
mount_at() {
	mount "$@" || return 1
	mounts+=("${!#}")
}
cleanup() {
	umount_all
	# never remove through a mount that is still there
	if ! grep -q " $work/" /proc/mounts; then rm -rf "$work"; fi
}
trap cleanup EXIT
timing() { echo "$1 $2" >>"$logs_top/timings"; log "$1: $2 s"; }

# overlay LOWER DIR: DIR/root, an overlay on LOWER (the cached tree is never
# written to)
overlay() {
	mkdir -p "$2/upper" "$2/work" "$2/root"
	mount_at -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/root"
}

# ---- the .deb, read back (step 3) -------------------------------------------
# entry PERMS OWNER PATH [-> TARGET]: the dpkg-deb -c line of PATH matches
entry() {
	awk -v perms="$1" -v owner="$2" -v path="./$3" -v target="${4:-}" '
		$6 == path && $1 == perms && $2 == owner &&
		(target == "" || ($7 == "->" && $8 == target)) { found = 1 }
		END { exit !found }' "$logs/contents.txt"
}
# listed PATH: "PERMS OWNER [-> TARGET]" of PATH in the .deb, or "missing"
listed() {
	awk -v path="./$1" '$6 == path { print $1, $2, $7, $8; f = 1; exit }
		END { if (!f) print "missing" }' "$logs/contents.txt"
}
man_ok() {
	entry -rw-r--r-- root/root usr/share/man/man8/mount.ext4.8.gz &&
		entry -rw-r--r-- root/root usr/share/man/man5/extown.conf.5.gz &&
		entry lrwxrwxrwx root/root usr/share/man/man8/mount.ext3.8.gz mount.ext4.8.gz &&
		entry lrwxrwxrwx root/root usr/share/man/man8/mount.ext2.8.gz mount.ext4.8.gz
}

read_deb() {
	local t r ctl x conffiles conf noncomment why bin headers symbols missing scripts_ok bad s
	dpkg-deb -c "$deb" >"$logs/contents.txt"
	check mount_ext4_setuid_root "usr/sbin/mount.ext4 is '$(listed usr/sbin/mount.ext4)', not '-rwsr-xr-x root/root'" \
		entry -rwsr-xr-x root/root usr/sbin/mount.ext4
	for t in ext3 ext2; do
		check "mount_${t}_symlink" "usr/sbin/mount.$t is '$(listed "usr/sbin/mount.$t")', not a link to mount.ext4" \
			entry lrwxrwxrwx root/root "usr/sbin/mount.$t" mount.ext4
	done
	for r in 61-extown.rules 69-extown-udisks.rules; do
		check "udev_rule_${r%%-*}" "usr/lib/udev/rules.d/$r is '$(listed "usr/lib/udev/rules.d/$r")', not '-rw-r--r-- root/root'" \
			entry -rw-r--r-- root/root "usr/lib/udev/rules.d/$r"
	done
	check man_pages "not all of man8/mount.ext4.8.gz, man5/extown.conf.5.gz and the mount.ext3.8/mount.ext2.8 links" \
		man_ok

	ctl=$wrel/control
	x=$wrel/x
	mkdir -p "$ctl" "$x"
	dpkg-deb -e "$deb" "$ctl"
	dpkg-deb -x "$deb" "$x"
	conffiles=$(cat "$ctl/conffiles" 2>/dev/null || true)
	check conffile_listed "conffiles is '$(tr '\n' ' ' <<<"${conffiles:-(none)}")', not /etc/extown.conf" \
		test "$conffiles" = /etc/extown.conf
	conf=$x/etc/extown.conf
	# the parser skips blank lines and lines whose first non-blank is '#'
	noncomment=$(grep -nvE '^[[:blank:]]*(#|$)' "$conf" 2>/dev/null | head -n 1 || true)
	if [ ! -f "$conf" ]; then
		fail conffile_all_comments "no etc/extown.conf in the package"
	else
		check conffile_all_comments "line ${noncomment%%:*} is a setting: '${noncomment#*:}'" \
			test -z "$noncomment"
	fi
	if ! cc -std=gnu11 -Wall -I"$src/mount-helper" -o "$wrel/policy-defaults" \
		"$top/tests/package/policy-defaults.c" "$src/mount-helper/policy.c" \
		>"$logs/policy-defaults.log" 2>&1; then
		fail conffile_parses_as_defaults "tests/package/policy-defaults.c does not build against the tree (see $logs/policy-defaults.log)"
	elif why=$("$wrel/policy-defaults" "$conf" 2>&1); then
		pass conffile_parses_as_defaults
	else
		fail conffile_parses_as_defaults "/etc/extown.conf through the helper's parser: $why"
	fi

	bin=$x/usr/sbin/mount.ext4
	headers=$(readelf -lhd --wide "$bin" 2>&1 || true)
	symbols=$(readelf --dyn-syms --wide "$bin" 2>&1 || true)
	missing=()
	grep -qE 'Type: +DYN' <<<"$headers" || missing+=(PIE)
	grep -qE 'FLAGS_1.*PIE' <<<"$headers" || missing+=(PIE-flag)
	grep -q GNU_RELRO <<<"$headers" || missing+=(RELRO)
	grep -qE '\(FLAGS\).*BIND_NOW|FLAGS_1.*NOW' <<<"$headers" || missing+=(BIND_NOW)
	grep -q __stack_chk_fail <<<"$symbols" || missing+=(stack-protector)
	grep -qE '__[a-z]+_chk' <<<"$symbols" || missing+=(fortify)
	check hardening "mount.ext4 of the package lacks: ${missing[*]}" test ${#missing[@]} -eq 0

	scripts_ok=true bad=""
	for s in postinst postrm; do
		if [ ! -f "$ctl/$s" ] || ! sh -n "$ctl/$s" 2>>"$logs/maintscripts.log"; then
			scripts_ok=false bad="$bad $s"
		fi
	done
	check maintscripts_syntax "sh -n fails or script missing:$bad" $scripts_ok
	check dkms_deb_arch_all "extown-dkms is Architecture: $(dpkg-deb -f "$ddeb" Architecture)" \
		test "$(dpkg-deb -f "$ddeb" Architecture)" = all
}

# ---- install and purge in the release's tree (step 4) -------------------------
snapshot() {
	# every path of the tree with type, mode, owner and, for files, a hash;
	# dpkg's own database and logs and the man-db index excepted
	(cd "$root" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/log \
		-o -path ./var/cache/man -o -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./tmp -o -path ./run \) -prune -o -printf '%p %y %m %u:%g\n' | sort) >"$1"
	(cd "$root" && find ./etc ./usr -xdev -type f -print0 | sort -z | xargs -0 md5sum) >>"$1"
}
# shellcheck disable=SC2016 # dpkg-query's ${...}, not the shell's
files_ok() {
	[ "$(stat -c '%a %U:%G' "$root/usr/sbin/mount.ext4")" = "4755 root:root" ] &&
		[ "$(readlink "$root/usr/sbin/mount.ext3")" = mount.ext4 ] &&
		[ "$(readlink "$root/usr/sbin/mount.ext2")" = mount.ext4 ] &&
		[ -f "$root/usr/lib/udev/rules.d/61-extown.rules" ] &&
		[ -f "$root/usr/lib/udev/rules.d/69-extown-udisks.rules" ] &&
		[ "$(stat -c '%a %U:%G' "$root/etc/extown.conf")" = "644 root:root" ] &&
		[ -f "$root/usr/share/man/man8/mount.ext4.8.gz" ] &&
		[ -f "$root/usr/share/man/man5/extown.conf.5.gz" ] &&
		[ "$(in_root "$root" dpkg-query -W -f='${Version} ${db:Status-Abbrev}' extown)" = "$want ii " ] &&
		in_root "$root" dpkg --verify extown >>"$logs/chroot.log" 2>&1
}
# the installed helper runs in the tree (its libraries resolve): no arguments
# is a usage error, exit 1, also through the mount.ext3 link
helper_ok() {
	local t rc out
	for t in mount.ext4 mount.ext3; do
		rc=0
		out=$(in_root "$root" "/usr/sbin/$t" 2>&1) || rc=$?
		echo "$t: exit $rc: $out" >>"$logs/chroot.log"
		if [ "$rc" -ne 1 ] || ! grep -q 'usage:' <<<"$out"; then return 1; fi
	done
}
remove_ok() {
	[ ! -e "$root/usr/sbin/mount.ext4" ] && [ ! -L "$root/usr/sbin/mount.ext3" ] &&
		[ ! -L "$root/usr/sbin/mount.ext2" ] &&
		[ ! -e "$root/usr/lib/udev/rules.d/61-extown.rules" ] &&
		[ -f "$root/etc/extown.conf" ]
}

install_purge() {
	local tree calls want_calls left
	if ! tree=$("$top/tools/e2e/mkroot.sh" "$rel" 2>"$logs/mkroot.log" | tail -n 1) || [ ! -d "$tree" ]; then
		fail chroot_install "no $rel tree from tools/e2e/mkroot.sh $rel (see $logs/mkroot.log)"
		return 0
	fi
	root=$wrel/i/root
	overlay "$tree" "$wrel/i" || harness_fail "cannot mount an overlay on $tree"
	snapshot "$wrel/before.txt"

	# A udevadm that only records its arguments, first on PATH in the tree;
	# the postinst and postrm call it only when /run/udev/control is a socket.
	calls=$root/tmp/udevadm.calls
	cat >"$root/usr/local/sbin/udevadm" <<-'EOF'
		#!/bin/sh
		echo "$*" >>/tmp/udevadm.calls
	EOF
	chmod 755 "$root/usr/local/sbin/udevadm"
	: >"$calls"

	cp "$deb" "$root/tmp/extown.deb"
	if in_root "$root" dpkg -i /tmp/extown.deb >>"$logs/chroot.log" 2>&1; then
		pass chroot_install
	else
		fail chroot_install "dpkg -i of the $rel .deb failed in the $rel tree: $(grep -m 1 -E 'depends on|error' "$logs/chroot.log") (see $logs/chroot.log)"
		return 0
	fi
	check chroot_postinst_skips_udev_when_not_running \
		"udevadm was called without a running udev: $(tr '\n' ';' <"$calls")" test ! -s "$calls"
	check chroot_files_and_modes \
		"after dpkg -i: mount.ext4 is $(stat -c '%a %U:%G' "$root/usr/sbin/mount.ext4" 2>&1), or a link, rule, man page, the conffile, the status or dpkg --verify is wrong (see $logs/chroot.log)" \
		files_ok
	check chroot_helper_runs "mount.ext4/mount.ext3 without arguments did not exit 1 with a usage line (see $logs/chroot.log)" \
		helper_ok

	# udev "running": a socket at /run/udev/control
	mkdir -p "$root/run/udev"
	perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => $ARGV[0], Listen => 1) or die "$!\n"' \
		"$root/run/udev/control" || harness_fail "cannot create a socket in the tree"
	want_calls=$'control --reload-rules\ntrigger --subsystem-match=block --action=change'
	: >"$calls"
	in_root "$root" /var/lib/dpkg/info/extown.postinst configure >>"$logs/chroot.log" 2>&1 || true
	check chroot_postinst_reloads_udev \
		"with udev running, postinst configure called udevadm: '$(tr '\n' ';' <"$calls")'" \
		test "$(cat "$calls")" = "$want_calls"

	: >"$calls"
	if in_root "$root" dpkg -r extown >>"$logs/chroot.log" 2>&1; then
		check chroot_remove_keeps_conffile_only \
			"after dpkg -r: the helper, a link or a rule is still there, or /etc/extown.conf is gone" remove_ok
		check chroot_postrm_reloads_udev \
			"with udev running, dpkg -r called udevadm: '$(tr '\n' ';' <"$calls")'" \
			test "$(cat "$calls")" = "$want_calls"
	else
		fail chroot_remove_keeps_conffile_only "dpkg -r extown failed (see $logs/chroot.log)"
	fi

	if in_root "$root" dpkg --purge extown >>"$logs/chroot.log" 2>&1; then
		rm -f "$root/usr/local/sbin/udevadm" "$calls" "$root/tmp/extown.deb" "$root/run/udev/control"
		rmdir "$root/run/udev"
		snapshot "$wrel/after.txt"
		left=$(find "$root/var/lib/dpkg/info" -name 'extown.*' -printf '%f ')
		if [ -n "$left" ]; then
			fail chroot_purge_leaves_nothing "dpkg's files of extown are left: $left"
		elif diff -u "$wrel/before.txt" "$wrel/after.txt" >"$logs/purge-diff.txt"; then
			pass chroot_purge_leaves_nothing
		else
			fail chroot_purge_leaves_nothing "the tree differs from before dpkg -i: $(grep -m 1 -E '^[-+][^-+]' "$logs/purge-diff.txt") (see $logs/purge-diff.txt)"
		fi
	else
		fail chroot_purge_leaves_nothing "dpkg --purge extown failed (see $logs/chroot.log)"
	fi
}

# ---- one release ----------------------------------------------------------------
# package_release REL: every check of REL, named package.REL.NAME
package_release() {
	rel=$1
	T_PREFIX=package.$rel.
	logs=$logs_top/$rel wrel=$work/$rel
	mkdir -p "$logs" "$wrel"
	local start t1=$SECONDS arch changes_all debs ddebs errors warnings unused clog dver rc=0

	# ---- 1. build with the release's toolchain, from the committed tree
	src=$wrel/src/extown
	mkdir -p "$src"
	git -C "$top" archive --format=tar HEAD | tar -x -C "$src" ||
		harness_fail "git archive HEAD failed"
	if [ "$break_what" = standards-version ]; then
		log "BROKEN ON PURPOSE: Standards-Version 4.7.2"
		sed -i 's/^Standards-Version: .*/Standards-Version: 4.7.2/' "$src/debian/control"
	fi
	"$top/tests/package/build-debs.sh" --lintian "$rel" "$src" "$logs" -us -uc 2>>"$logs/build-debs.err" || rc=$?
	if [ "$rc" -eq 1 ] && grep -q '^dh_auto_test: error' "$logs/build.log"; then
		# the unit tests failed in the build (a buildd's, as nobody): say
		# so, and go on with a build without them, whose packages the
		# checks below read
		fail build_unit_tests "make check in the build as nobody on $rel: $(grep -m 2 -E '^FAIL [a-z]' "$logs/build.log" | tr '\n' ' ')(see $logs/build-with-tests.log)"
		mv "$logs/build.log" "$logs/build-with-tests.log"
		rc=0
		"$top/tests/package/build-debs.sh" --nocheck --lintian "$rel" "$src" "$logs" -us -uc 2>>"$logs/build-debs.err" || rc=$?
	elif [ "$rc" -eq 0 ]; then
		pass build_unit_tests
	fi
	case $rc in
	0) ;;
	1)
		fail build "dpkg-buildpackage -us -uc failed on $rel: $(grep -m 1 -E '^(FAIL|dh_[a-z_]+: error|.*: error:)' "$logs/build.log" || tail -n 1 "$logs/build.log") (see $logs/build.log)"
		return 0
		;;
	*)
		fail build "no $rel build tree: $(tail -n 1 "$logs/build-root.log" 2>/dev/null) (see $logs/build-root.log, $logs/build-debs.err)"
		return 0
		;;
	esac
	timing "$rel build and lintian (tests/package/build-debs.sh)" $((SECONDS - t1))

	# configure.ac's AC_INIT version is the one version of the project
	# shellcheck disable=SC2016 # autoconf's $2, not the shell's
	want=$(cd "$src" && autoconf --trace='AC_INIT:$2' configure.ac | head -n 1)
	arch=$(dpkg --print-architecture)
	# whatever version the build gave them; the checks below compare it
	debs=("$logs"/extown_*_"$arch".deb)
	ddebs=("$logs"/extown-dkms_*_all.deb)
	changes_all=("$logs"/extown_*_"$arch".changes)
	deb=${debs[0]} ddeb=${ddebs[0]} changes=${changes_all[0]}
	if [ ${#debs[@]} -eq 1 ] && [ -f "$deb" ] && [ -f "$ddeb" ] && [ ${#changes_all[@]} -eq 1 ] && [ -f "$changes" ]; then
		pass build
	else
		fail build "built on $rel, but not one extown_*_$arch.deb, extown-dkms_*_all.deb and .changes: $(cd "$logs" && echo ./*.deb ./*.changes)"
		return 0
	fi

	# the version dpkg-source of the release read from debian/changelog
	clog=$(sed -n 's/^Version: //p' "$logs"/extown_*.dsc 2>/dev/null | head -n 1)
	check version_changelog_is_configure \
		"debian/changelog says $clog, configure.ac's AC_INIT says $want" \
		test "$clog" = "$want"
	dver=$(dpkg-deb -f "$deb" Version)
	check version_deb_is_configure "the .deb says $dver, configure.ac says $want" \
		test "$dver" = "$want"

	# ---- 2. the release's lintian
	errors=$(grep -E '^E: ' "$logs/lintian.txt" 2>/dev/null || true)
	warnings=$(grep -E '^W: ' "$logs/lintian.txt" 2>/dev/null || true)
	unused=$(grep -E '(unused|mismatched)-override' "$logs/lintian.txt" 2>/dev/null || true)
	check lintian_ran "lintian printed nothing on $rel: $(tail -n 1 "$logs/lintian.log" 2>/dev/null) (see $logs/lintian.log)" \
		test -s "$logs/lintian.txt"
	check lintian_no_errors "$(head -n 1 <<<"$errors")" test -z "$errors"
	check lintian_no_warnings "$(head -n 1 <<<"$warnings") (fix it or override it with a reason)" \
		test -z "$warnings"
	check lintian_overrides_all_used "$(head -n 1 <<<"$unused")" test -z "$unused"
	check lintian_setuid_override_applies \
		"lintian reported no overridden elevated-privileges tag for usr/sbin/mount.ext4" \
		grep -q '^O: extown: elevated-privileges 4755 root/root \[usr/sbin/mount.ext4\]' "$logs/lintian.txt"

	# ---- 3. the .deb
	read_deb

	# ---- 4. install and purge in the release's tree
	start=$SECONDS
	install_purge
	umount_all
	timing "$rel install and purge" $((SECONDS - start))
	timing "$rel total" $((SECONDS - t1))
}

for rel in $releases; do
	package_release "$rel"
done
