# shellcheck shell=bash
# The checks pass single-quoted expressions to eval on purpose:
# shellcheck disable=SC2016
# shellcheck disable=SC2154 # $kernel, $out: set by guest.sh, which sources this
# The desktop path, inside the e2e guest (sourced by tests/e2e/guest.sh):
# alice logged in on seat0 (tests/e2e/guest-lib.sh: alice_session,
# in_session), Debian's own polkit policy and no rule of ours, and the
# programs a desktop mounts sticks with:
#
#   session_facts           her session is on seat0, active, local
#   udiskie_start           udiskie, the automounter, in her session
#   udiskie_check FS DEV... it mounted each hot-plugged stick with her as
#                           the owner (udiskie's own log says it mounted
#                           that device there); she writes a file
#                           (/desktop-udiskie, its disk owner checked on the
#                           host); then it stops and she unmounts through
#                           udisksctl
#   gio_check FS DEV        `gio mount -d` (GVfs, as GNOME's and Xfce's
#                           file managers) mounts, /desktop-gio, `gio mount -u`
#   polkit_refusals DEV INTERNAL
#                           what the stock policy refuses: bob without a
#                           session, alice from outside her session, and
#                           alice on an internal (HintSystem) disk
#
# Test names: e2e.U2.FS.desktop.* on a kernel with uid= (patched),
# e2e.KERNEL.FS.desktop.* otherwise (the idmapped fallback), and
# e2e.KERNEL.session.* / e2e.KERNEL.polkit.*.

desk_t() { # FS: the name prefix of FS's desktop tests
	if [ "$kernel" = patched ]; then echo "e2e.U2.$1.desktop"; else echo "e2e.$kernel.$1.desktop"; fi
}

# owner_seen T DEV MNT: the mount gives alice the owner: uid=1000 on a kernel
# with the options, an idmapped mount otherwise, nosuid and nodev either
# way; the stick's files stat as hers
owner_seen() {
	local t=$1 dev=$2 mnt=$3 opts
	opts=$(findmnt -n -o OPTIONS --source "$dev" | head -n 1)
	if [ "$kernel" = patched ]; then
		check "$t.mount_has_uid_1000" "options: $opts" eval 'opt_in uid=1000 "x x x $opts"'
	else
		check "$t.mount_is_idmapped" "options: $opts" eval 'opt_in idmapped "x x x $opts"'
	fi
	check "$t.mount_nosuid_nodev" "options: $opts" eval 'opt_in nosuid "x x x $opts" && opt_in nodev "x x x $opts"'
	check "$t.files_shown_as_alices" "/file $(stat -c %u:%g "$mnt/file")" \
		test "$(stat -c %u:%g "$mnt/file")" = 1000:1000
}

session_facts() {
	local s props t=e2e.$kernel.session
	if ! s=$(alice_session); then
		fail "$t.alice_logged_in" "no session of alice with a user manager after 2 min: $(loginctl list-sessions --no-legend | tr '\n' ';')"
		return 0
	fi
	pass "$t.alice_logged_in"
	props=$(loginctl show-session "$s" -p Seat -p Active -p Remote -p TTY | sort | tr '\n' ' ')
	echo "session $s: $props" >"$out/session"
	check "$t.seat0_active_local" "loginctl show-session $s: $props" \
		test "$props" = "Active=yes Remote=no Seat=seat0 TTY=tty1 "
}

udiskie_start() {
	systemd-run --user -M alice@.host --quiet --unit=extown-udiskie -- \
		udiskie --no-config --automount --no-notify --no-tray --no-file-manager --no-password-prompt --verbose ||
		note "could not start udiskie"
}

udiskie_check() {
	local fs dev mnt t
	while [ $# -ge 2 ]; do
		fs=$1 dev=$2 t=$(desk_t "$1")
		shift 2
		for _ in $(seq 120); do
			[ -z "$(mount_line "$dev")" ] || break
			sleep 0.5
		done
		mnt=$(findmnt -n -o TARGET --source "$dev" | head -n 1)
		echo "udiskie $fs: $(mount_line "$dev")" >>"$out/desktop.seen"
		if [ -z "$mnt" ]; then
			fail "$t.udiskie_automounts" "not mounted 60 s after the hot-plug; udiskie said: $(journalctl -q --no-pager _SYSTEMD_USER_UNIT=extown-udiskie.service | tail -n 3 | tr '\n' ' ')"
			continue
		fi
		check "$t.udiskie_automounts" "mounted on $mnt" eval 'case $mnt in /media/alice/*) true ;; *) false ;; esac'
		# the mount is udiskie's: its log (--verbose) says it mounted there
		# (once udisks answered it, which may be after the mount appeared)
		for _ in $(seq 60); do
			journalctl -q --no-pager _SYSTEMD_USER_UNIT=extown-udiskie.service >"$out/udiskie.journal" 2>&1
			! grep -qE "mounted .* on $mnt\$" "$out/udiskie.journal" || break
			sleep 0.5
		done
		check "$t.udiskie_says_it_mounted" "udiskie's log has no 'mounted ... on $mnt': $(grep -i mount "$out/udiskie.journal" | tail -n 2 | tr '\n' ' ')" \
			grep -qE "mounted .* on $mnt\$" "$out/udiskie.journal"
		owner_seen "$t.udiskie" "$dev" "$mnt"
		check "$t.udiskie.alice_creates_file" "in her session, cannot create $mnt/desktop-udiskie" \
			in_session sh -c 'echo "made in the session, udiskie mount" >"$1"' sh "$mnt/desktop-udiskie"
		[ "$fs" != ext4 ] || screenshot "$mnt"
	done
	systemctl --user -M alice@.host stop extown-udiskie.service 2>/dev/null
	journalctl -q --no-pager _SYSTEMD_USER_UNIT=extown-udiskie.service >"$out/udiskie.journal" 2>&1
}

# screenshot MNT: where the image has PCManFM (EXTOWN_E2E_SCREENSHOT=yes),
# alice's session opens MNT in it on an Xvfb display; once its window (the
# stick's label in the title) appeared, the picture goes to
# $out/screenshot.png for the host, else none is kept. Not a test: nothing
# checks what the picture shows
screenshot() {
	[ -x /usr/bin/pcmanfm ] || return 0
	in_session sh -c '
		Xvfb :5 -screen 0 800x420x24 -nolisten tcp >/tmp/xvfb.log 2>&1 &
		x=$!
		for _ in $(seq 60); do xwininfo -root -display :5 >/dev/null 2>&1 && break; sleep 1; done
		DISPLAY=:5 pcmanfm --no-desktop "$1" >/tmp/pcmanfm.log 2>&1 &
		f=$!
		rm -f /tmp/screenshot.png
		seen=no
		for _ in $(seq 120); do
			if xwininfo -root -tree -display :5 2>/dev/null | grep -q "extown-ext4"; then seen=yes; break; fi
			sleep 1
		done
		if [ "$seen" = yes ]; then
			sleep 10
			xwd -root -silent -display :5 | xwdtopnm 2>/dev/null | pnmtopng >/tmp/screenshot.png
		fi
		kill "$f" "$x" 2>/dev/null
		[ "$seen" = yes ]' sh "$1" || note "screenshot: no PCManFM window for $1 appeared; none kept"
	if [ -s /tmp/screenshot.png ]; then cp /tmp/screenshot.png "$out/screenshot.png"; fi
}

# desktop_unmount T DEV: alice unmounts DEV through udisks, in her session
desktop_unmount() {
	local t=$1 dev=$2
	[ -n "$(mount_line "$dev")" ] || return 0
	if in_session udisksctl unmount --no-user-interaction -b "$dev" >/dev/null && [ -z "$(mount_line "$dev")" ]; then
		pass "$t.unmounted_by_alice"
	else
		fail "$t.unmounted_by_alice" "still mounted: $(mount_line "$dev")"
		umount "$dev"
	fi
}

gio_check() {
	local fs=$1 dev=$2 t mnt
	t=$(desk_t "$fs").gio
	if ! in_session gio mount -d "$dev" >"$out/gio-mount.out" 2>&1; then
		fail "$t.mounts" "gio mount -d $dev: $(tr '\n' ' ' <"$out/gio-mount.out")"
		return 0
	fi
	mnt=$(findmnt -n -o TARGET --source "$dev" | head -n 1)
	echo "gio $fs: $(mount_line "$dev")" >>"$out/desktop.seen"
	check "$t.mounts" "gio mount -d $dev: mounted on '$mnt'" eval 'case $mnt in /media/alice/*) true ;; *) false ;; esac'
	[ -n "$mnt" ] || return 0
	owner_seen "$t" "$dev" "$mnt"
	check "$t.alice_creates_file" "in her session, cannot create $mnt/desktop-gio" \
		in_session sh -c 'echo "made in the session, gio mount" >"$1"' sh "$mnt/desktop-gio"
	if in_session gio mount -u "$mnt" >"$out/gio-umount.out" 2>&1 && [ -z "$(mount_line "$dev")" ]; then
		pass "$t.unmounts"
	else
		fail "$t.unmounts" "gio mount -u $mnt: $(tr '\n' ' ' <"$out/gio-umount.out"); still: $(mount_line "$dev")"
		umount "$dev"
	fi
}

# refused NAME DEV CMD...: CMD (a udisksctl mount of DEV) is refused by
# polkit as NotAuthorizedCanObtain (an administrator could allow it) and
# leaves DEV unmounted
refused() {
	local name=$1 dev=$2 msg
	shift 2
	if msg=$("$@" 2>&1); then
		fail "$name" "mounted: $(mount_line "$dev")"
		umount "$dev"
	elif [ -n "$(mount_line "$dev")" ]; then
		fail "$name" "refused, but mounted: $(mount_line "$dev")"
		umount "$dev"
	else
		echo "$name: $msg" >>"$out/polkit.refusals"
		check "$name" "udisksctl: $msg" grep -q NotAuthorizedCanObtain <<<"$msg"
	fi
}

polkit_refusals() {
	local dev=$1 internal=$2 t=e2e.$kernel.polkit
	refused "$t.bob_without_session_refused" "$dev" \
		setpriv --reuid=1001 --regid=1001 --init-groups env -i PATH=/usr/bin:/bin HOME=/home/bob \
		udisksctl mount --no-user-interaction -b "$dev"
	refused "$t.alice_outside_session_refused" "$dev" \
		as_alice udisksctl mount --no-user-interaction -b "$dev"
	[ -n "$internal" ] || return 0
	check "$t.internal_disk_is_system" "udisks: $(udisksctl info -b "$internal" | grep -m1 HintSystem)" \
		eval 'udisksctl info -b "$internal" | grep -q "HintSystem: *true"'
	refused "$t.internal_disk_refused_in_session" "$internal" \
		in_session udisksctl mount --no-user-interaction -b "$internal"
}
