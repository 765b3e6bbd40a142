#!/usr/bin/env bash
# The Debian package "extown" (debian/): build it from a clean copy of the
# committed tree, lint it, read it back, and install and purge it in a
# throw-away Debian 12 root.
#
#   tests/package/run.sh
#
# 1. `git archive HEAD` into a temporary directory (uncommitted files do not
#    leak in), `dpkg-buildpackage -us -uc` there (source and binary).
# 2. lintian on the .changes: no error, no warning that is not overridden,
#    every override used.
# 3. dpkg-deb -c / -I / -x: mount.ext4 setuid root, the mount.ext3 and
#    mount.ext2 links, udev rules, man pages, the conffile (listed in
#    conffiles, all comments, read by the helper's own parser as "no file"),
#    the hardening of the binary, the version equal to configure.ac's.
# 4. In an overlay on the cached Debian 12 tree of tools/e2e/mkroot.sh (never
#    on this host: the package puts a setuid mount.ext4 in /usr/sbin):
#    dpkg -i, files and modes, the helper runs, the maintainer scripts reload
#    udev only when it runs, dpkg -r keeps the conffile, dpkg --purge leaves
#    the tree as it was.
#
# stdout: one "PASS package.NAME" / "FAIL package.NAME: why" line per check,
# nothing else. Logs in build/package/. Exit status 0 unless the harness
# itself broke ("FAIL package.harness: why", exit 1). Needs root (chroot,
# mount) and the tools of tools/install-deps-packaging.sh.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
logs=$top/build/package
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.txt

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh"
T_LOG=package harness_test=package T_PREFIX=package.

need_root "chroot, mount"
for tool in git dpkg-buildpackage dpkg-deb dpkg-parsechangelog lintian dh autoconf readelf cc; do
	command -v "$tool" >/dev/null 2>&1 ||
		harness_fail "$tool not installed (run tools/install-deps-packaging.sh)"
done

work=$(mktemp -d /tmp/extown-package.XXXXXX) || harness_fail "mktemp failed"
ovl=""
cleanup() {
	if [ -n "$ovl" ] && mountpoint -q "$ovl/root"; then
		umount "$ovl/root" || umount -l "$ovl/root" || true
	fi
	rm -rf "$work"
	# never remove through a mount that is still there
	if [ -n "$ovl" ] && ! mountpoint -q "$ovl/root"; then rm -rf "$ovl"; fi
}
trap cleanup EXIT

# ---- 1. build from the committed tree --------------------------------------
src=$work/src/extown
mkdir -p "$src"
git -C "$top" archive --format=tar HEAD | tar -x -C "$src" ||
	harness_fail "git archive HEAD failed"
start=$SECONDS
if ! (cd "$src" && dpkg-buildpackage -us -uc) >"$logs/build.log" 2>&1; then
	fail build "dpkg-buildpackage -us -uc failed: $(grep -m 1 -iE 'error|failed' "$logs/build.log" || tail -n 1 "$logs/build.log") (see $logs/build.log)"
	exit 0
fi
echo "tests/package: dpkg-buildpackage took $((SECONDS - start)) s" >&2

# configure.ac's AC_INIT version is the one version of the project
# shellcheck disable=SC2016 # autoconf's $2, not the shell's
want=$(cd "$src" && autoconf --trace='AC_INIT:$2' configure.ac | head -n 1)
arch=$(dpkg --print-architecture)
# whatever version the build gave them; the checks below compare it
debs=("$work"/src/extown_*_"$arch".deb)
changes_all=("$work"/src/extown_*_"$arch".changes)
deb=${debs[0]} changes=${changes_all[0]}
if [ ${#debs[@]} -eq 1 ] && [ -f "$deb" ] && [ ${#changes_all[@]} -eq 1 ] && [ -f "$changes" ]; then
	pass build
else
	fail build "built, but not one extown_*_$arch.deb and .changes: $(cd "$work/src" && echo ./*.deb ./*.changes)"
	exit 0
fi

clog=$(cd "$src" && dpkg-parsechangelog -S Version)
check version_changelog_is_configure \
	"debian/changelog says $clog, configure.ac's AC_INIT says $want" \
	test "$clog" = "$want"
dver=$(dpkg-deb -f "$deb" Version)
check version_deb_is_configure "the .deb says $dver, configure.ac says $want" \
	test "$dver" = "$want"

# ---- 2. lintian -------------------------------------------------------------
lintian -EIL +pedantic --show-overrides --tag-display-limit 0 "$changes" \
	>"$logs/lintian.txt" 2>"$logs/lintian.log" || true
errors=$(grep -E '^E: ' "$logs/lintian.txt" || true)
warnings=$(grep -E '^W: ' "$logs/lintian.txt" || true)
unused=$(grep -E '(unused|mismatched)-override' "$logs/lintian.txt" || true)
check lintian_no_errors "$(head -n 1 <<<"$errors")" test -z "$errors"
check lintian_no_warnings "$(head -n 1 <<<"$warnings") (fix it or override it with a reason)" \
	test -z "$warnings"
check lintian_overrides_all_used "$(head -n 1 <<<"$unused")" test -z "$unused"
check lintian_setuid_override_applies \
	"lintian reported no overridden elevated-privileges tag for usr/sbin/mount.ext4" \
	grep -q '^O: extown: elevated-privileges 4755 root/root \[usr/sbin/mount.ext4\]' "$logs/lintian.txt"

# ---- 3. the .deb ------------------------------------------------------------
dpkg-deb -c "$deb" >"$logs/contents.txt"
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
man_ok() {
	entry -rw-r--r-- root/root usr/share/man/man8/mount.ext4.8.gz &&
		entry -rw-r--r-- root/root usr/share/man/man5/extown.conf.5.gz &&
		entry lrwxrwxrwx root/root usr/share/man/man8/mount.ext3.8.gz mount.ext4.8.gz &&
		entry lrwxrwxrwx root/root usr/share/man/man8/mount.ext2.8.gz mount.ext4.8.gz
}
check man_pages "not all of man8/mount.ext4.8.gz, man5/extown.conf.5.gz and the mount.ext3.8/mount.ext2.8 links" \
	man_ok

ctl=$work/control
x=$work/x
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
if ! cc -std=gnu11 -Wall -I"$src/mount-helper" -o "$work/policy-defaults" \
	"$top/tests/package/policy-defaults.c" "$src/mount-helper/policy.c" \
	>"$logs/policy-defaults.log" 2>&1; then
	fail conffile_parses_as_defaults "tests/package/policy-defaults.c does not build against the tree (see $logs/policy-defaults.log)"
elif why=$("$work/policy-defaults" "$conf" 2>&1); then
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

# ---- 4. install and purge in a throw-away Debian 12 root --------------------
if ! tree=$("$top/tools/e2e/mkroot.sh" bookworm 2>"$logs/mkroot.log" | tail -n 1) || [ ! -d "$tree" ]; then
	fail chroot_install "no Debian 12 tree from tools/e2e/mkroot.sh (see $logs/mkroot.log)"
	exit 0
fi
# An overlay: the cached tree is never written to.
ovl=$(mktemp -d "${tree%/*}/package-test.XXXXXX")
mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root"
root=$ovl/root
if ! mount -t overlay overlay -o "lowerdir=$tree,upperdir=$ovl/upper,workdir=$ovl/work" "$root" \
	2>>"$logs/chroot.log"; then
	echo "tests/package: no overlay mount; copying the tree" >&2
	rmdir "$root"
	cp -a "$tree" "$root" || harness_fail "cannot copy $tree"
fi
snapshot() {
	# every path of the tree with type, mode, owner and, for files, a hash;
	# dpkg's own database and logs and the man-db index excepted
	(cd "$root" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/log \
		-o -path ./var/cache/man -o -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./tmp -o -path ./run \) -prune -o -printf '%p %y %m %u:%g\n' | sort) >"$1"
	(cd "$root" && find ./etc ./usr -xdev -type f -print0 | sort -z | xargs -0 md5sum) >>"$1"
}
snapshot "$work/before.txt"

# A udevadm that only records its arguments, first on PATH in the tree; the
# postinst and postrm call it only when /run/udev/control is a socket.
calls=$root/tmp/udevadm.calls
cat >"$root/usr/local/sbin/udevadm" <<'EOF'
#!/bin/sh
echo "$*" >>/tmp/udevadm.calls
EOF
chmod 755 "$root/usr/local/sbin/udevadm"
: >"$calls"

cp "$deb" "$root/tmp/extown.deb"
if in_root "$root" dpkg -i /tmp/extown.deb >>"$logs/chroot.log" 2>&1; then
	pass chroot_install
else
	fail chroot_install "dpkg -i failed in the Debian 12 tree (see $logs/chroot.log)"
	exit 0
fi
check chroot_postinst_skips_udev_when_not_running \
	"udevadm was called without a running udev: $(tr '\n' ';' <"$calls")" test ! -s "$calls"

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
check chroot_files_and_modes \
	"after dpkg -i: mount.ext4 is $(stat -c '%a %U:%G' "$root/usr/sbin/mount.ext4" 2>&1), or a link, rule, man page, the conffile, the status or dpkg --verify is wrong (see $logs/chroot.log)" \
	files_ok

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
	remove_ok() {
		[ ! -e "$root/usr/sbin/mount.ext4" ] && [ ! -L "$root/usr/sbin/mount.ext3" ] &&
			[ ! -L "$root/usr/sbin/mount.ext2" ] &&
			[ ! -e "$root/usr/lib/udev/rules.d/61-extown.rules" ] &&
			[ -f "$root/etc/extown.conf" ]
	}
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
	snapshot "$work/after.txt"
	left=$(find "$root/var/lib/dpkg/info" -name 'extown.*' -printf '%f ')
	if [ -n "$left" ]; then
		fail chroot_purge_leaves_nothing "dpkg's files of extown are left: $left"
	elif diff -u "$work/before.txt" "$work/after.txt" >"$logs/purge-diff.txt"; then
		pass chroot_purge_leaves_nothing
	else
		fail chroot_purge_leaves_nothing "the tree differs from before dpkg -i: $(grep -m 1 -E '^[-+][^-+]' "$logs/purge-diff.txt") (see $logs/purge-diff.txt)"
	fi
else
	fail chroot_purge_leaves_nothing "dpkg --purge extown failed (see $logs/chroot.log)"
fi
