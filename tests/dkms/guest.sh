#!/usr/bin/env bash
# The checks pass single-quoted expressions to eval on purpose:
# shellcheck disable=SC2016
# Runs INSIDE the stock-kernel guest of tests/dkms/run.sh (booted by
# tools/vm/boot-stock.sh), as root, from extown-dkms-test.service.
#
# Kernel command line extown.args=PHASE[,purge]:
#   boot       only the boot checks (timing of a stock boot)
#   install    `apt-get install /root/extown-debs/*.deb` in the guest: the
#              DKMS build under TCG, timed (not in CI; docs/packaging.md)
#   patched    extown and extown-dkms installed: the patched module serves
#              /, a uid= mount of /dev/vdc; with ",purge" then `apt-get
#              purge extown-dkms`: no module left, every initramfs stock
#   stock      after that purge and a reboot: the stock module is back, the
#              helper's idmapped fallback; with ",purge" then `apt-get purge
#              extown`, and a plain mount of /dev/vdc
# /dev/vdc: a small ext4 filesystem whose files belong to 1234:1234
# (tests/dkms/run.sh checks what the guest wrote there with debugfs).
#
# Writes /results/dkms/{results,log,...}, hands /results to the host
# (extown-write-results on /dev/vda) and powers off. One "PASS dkms.PHASE.NAME"
# / "FAIL dkms.PHASE.NAME: why" line per check in results.
set -uo pipefail

out=/results/dkms
rm -rf /results # what an earlier boot of this disk left
mkdir -p "$out"
exec >"$out/log" 2>&1
results=$out/results
: >"$results"
phase=boot purge=no
for w in $(</proc/cmdline); do
	case $w in extown.args=*) phase=${w#extown.args=} ;; esac
done
case $phase in *,purge) phase=${phase%,purge} purge=yes ;; esac
# progress on the console (the serial log on the host)
say() { echo "extown-dkms-test: $phase: $*" >/dev/console 2>/dev/null || true; }
T_RESULTS=$results T_PREFIX=dkms.$phase. T_SAY=say
# shellcheck source=tests/lib/results.sh
. /usr/local/lib/extown-dkms-test/results.sh
# finish, on any exit: rc is 0 only when the script reached one of its
# ends (end_ok), else the status it died with (an abort under set -u, say:
# never 0), so that the host fails dkms.REL.B.PHASE.guest_finished for the
# checks it never reached
# shellcheck disable=SC2317 # the EXIT trap runs it
finish() {
	local rc=$?
	trap - EXIT
	if [ "$ended" != yes ]; then
		[ "$rc" -ne 0 ] || rc=1
		echo "guest.sh: stopped before its end (status $rc)"
	fi
	journalctl -b --no-pager >"$out/journal" 2>&1
	dmesg >"$out/dmesg" 2>&1
	echo "$rc" >"$out/rc"
	touch /results/DONE
	/usr/local/bin/extown-write-results /results
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}
ended=no
trap finish EXIT
end_ok() {
	ended=yes
	exit 0
}

kver=$(uname -r)
echo "$kver" >"$out/uname"
cut -d' ' -f1 /proc/uptime >"$out/uptime-start"

# --- the boot ------------------------------------------------------------
state=$(timeout 300 systemctl is-system-running --wait 2>&1)
cut -d' ' -f1 /proc/uptime >"$out/uptime-booted"
failed=$(systemctl list-units --failed --plain --no-legend | awk '{ print $1 }' | tr '\n' ' ')
systemd-analyze >"$out/systemd-analyze" 2>&1
systemd-analyze blame >"$out/blame" 2>&1
check booted_0_failed_units "system state '$state', failed units: ${failed:-none}" \
	test "$state" = running -a -z "$failed"
rootfs=$(findmnt -n -o FSTYPE /)
check root_is_ext4 "/ is '$rootfs'" test "$rootfs" = ext4
[ "$phase" != boot ] || end_ok
# broken on purpose (tests/dkms/run.sh EXTOWN_DKMS_BREAK=abort): the
# script dies here, the checks below are never made
case " $(</proc/cmdline) " in
*" extown.break=abort "*)
	echo "BROKEN ON PURPOSE: an unset variable under set -u"
	# shellcheck disable=SC2154 # unset on purpose
	: "$extown_unset_on_purpose"
	;;
esac

version=$(cat /sys/module/ext4/version 2>/dev/null)
# the module's taint flags (O: built outside the kernel tree, E: its
# signature is not by a key the kernel trusts); the kernel's own log of it
taint=$(cat /sys/module/ext4/taint 2>/dev/null)
{
	echo "/sys/module/ext4/taint '$taint', /proc/sys/kernel/tainted $(cat /proc/sys/kernel/tainted)"
	dmesg | grep -iE 'ext4: (loading|module)|module verification|tainting|signature' || true
} >>"$out/taint"
modfile=$(modinfo -F filename ext4 2>&1)
modver=$(modinfo -F version ext4 2>&1)
echo "ext4: /sys/module/ext4/version '$version', modinfo: $modfile, version '$modver'" >>"$out/modules"
feature=/sys/fs/ext4/features/uid_gid_override
mkdir -p /mnt/t
stick=/dev/vdc

# stamped START: each line of stdin after the seconds since START (where
# the time of a step in the guest goes: the DKMS removal, each initramfs)
stamped() {
	local l
	while IFS= read -r l; do
		printf '%4d s  %s\n' "$((SECONDS - $1))" "$l"
	done
}

# purge_dkms: `apt-get purge extown-dkms`: DKMS removes the module of
# every kernel, each initramfs is rebuilt with the in-tree ext4.ko
purge_dkms() {
	local start=$SECONDS left i bad=''
	say "apt-get purge -y extown-dkms"
	if DEBIAN_FRONTEND=noninteractive apt-get purge -y extown-dkms 2>&1 |
		stamped "$start" >"$out/purge-dkms.log"; then
		pass purge_extown_dkms
	else
		fail purge_extown_dkms "apt-get purge -y extown-dkms failed: $(tail -n 3 "$out/purge-dkms.log" | tr '\n' ' ')"
	fi
	echo "apt-get purge extown-dkms: $((SECONDS - start)) s" >>"$out/timings"
	left=$(find /lib/modules/*/updates -name 'ext4.ko*' 2>/dev/null)
	check purge_removes_module "left: $left" test -z "$left"
	for i in /boot/initrd.img-*; do
		lsinitramfs "$i" >"$out/initramfs-after-${i##*/}.list" 2>&1
		grep -q "lib/modules/${i#/boot/initrd.img-}/kernel/fs/ext4/ext4.ko" "$out/initramfs-after-${i##*/}.list" &&
			! grep -q "updates/dkms/ext4.ko" "$out/initramfs-after-${i##*/}.list" ||
			bad+="$i: $(grep -o 'lib/modules/[^ ]*/ext4.ko[^ ]*' "$out/initramfs-after-${i##*/}.list" | tr '\n' ' ') "
	done
	check purge_initramfs_stock_module "not the in-tree ext4.ko alone: $bad" test -z "$bad"
}

# purge_extown: `apt-get purge extown`: no helper, no rules, a plain mount
# of /dev/vdc as before installation (on-disk owners, a new file root's)
purge_extown() {
	local left='' f status own
	if DEBIAN_FRONTEND=noninteractive apt-get purge -y extown >"$out/purge-extown.log" 2>&1; then
		pass purge_extown
	else
		fail purge_extown "apt-get purge -y extown failed: $(tail -n 3 "$out/purge-extown.log" | tr '\n' ' ')"
	fi
	for f in /usr/sbin/mount.ext[234] /usr/lib/udev/rules.d/*extown* /etc/extown.conf; do
		if [ -e "$f" ] || [ -L "$f" ]; then left+="$f "; fi
	done
	check purge_leaves_no_helper_no_rules "left: $left" test -z "$left"
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' extown extown-dkms 2>&1 | tr '\n' ' ')
	check purge_dpkg_knows_neither "dpkg-query: $status" eval '! dpkg-query -W extown extown-dkms >/dev/null 2>&1'
	if mount "$stick" /mnt/t 2>"$out/mount.err"; then
		pass plain_mount
		own=$(stat -c %u:%g /mnt/t/file-1234 2>&1)
		check plain_mount_disk_owner "file-1234 shows as $own" test "$own" = 1234:1234
		echo 'plain' >/mnt/t/new-plain
		own=$(stat -c %u:%g /mnt/t/new-plain 2>&1)
		check plain_mount_new_file_root "new-plain shows as $own" test "$own" = 0:0
		umount /mnt/t
	else
		fail plain_mount "mount $stick /mnt/t failed: $(cat "$out/mount.err")"
	fi
}

case $phase in
patched)
	want=$(cat /usr/src/extown-*/VERSION 2>/dev/null)-extown
	check module_loaded_is_ours "/sys/module/ext4/version is '$version', not '$want'" \
		test "$version" = "$want"
	check modinfo_is_dkms "modinfo ext4: '$modfile', version '$modver'" \
		eval '[[ $modfile == /lib/modules/$kver/updates/dkms/ext4.ko* ]] && [ "$modver" = "$want" ]'
	check feature_file "no $feature" test -e "$feature"
	# without Secure Boot the kernel loads the module DKMS signed with its
	# own key (unknown to the kernel) and taints itself: O and E
	check module_taint_OE "/sys/module/ext4/taint is '$taint'" test "$taint" = OE

	# the uid= mount: files of 1234:1234 shown as 1000:1000, a new file
	# written as 1000:1000 (the host reads it back with debugfs)
	if mount -t ext4 -o uid=1000,gid=1000 "$stick" /mnt/t 2>"$out/mount.err"; then
		pass uid_mount
		own=$(stat -c %u:%g /mnt/t/file-1234 2>&1)
		check uid_mount_shows_1000 "file-1234 shows as $own" test "$own" = 1000:1000
		opts=$(findmnt -n -o OPTIONS /mnt/t)
		check uid_mount_options "/proc/mounts says '$opts'" eval '[[ $opts == *uid=1000* && $opts == *gid=1000* ]]'
		echo 'new in the guest' >/mnt/t/new-by-guest
		own=$(stat -c %u:%g /mnt/t/new-by-guest 2>&1)
		check uid_mount_new_file "new-by-guest shows as $own" test "$own" = 1000:1000
		umount /mnt/t
	else
		fail uid_mount "mount -o uid=1000,gid=1000 failed: $(cat "$out/mount.err")"
	fi

	if [ "$purge" = yes ]; then purge_dkms; fi
	;;
stock)
	check module_is_stock "/sys/module/ext4/version is '$version', modinfo: '$modfile' version '$modver'" \
		eval '[ -z "$version" ] && [[ $modfile == /lib/modules/$kver/kernel/fs/ext4/ext4.ko* ]] && [ -z "$modver" ]'
	check no_feature_file "$feature exists" test ! -e "$feature"
	check module_untainted "/sys/module/ext4/taint is '$taint'" test -z "$taint"
	# the kernel itself refuses uid= (mount -i: no helper)
	if mount -i -t ext4 -o uid=1000,gid=1000 "$stick" /mnt/t 2>"$out/mount-uid.err"; then
		umount /mnt/t
		fail uid_mount_refused_by_kernel "mount -i -o uid=1000 succeeded on the stock module"
	else
		pass uid_mount_refused_by_kernel
	fi
	# through the helper of extown, still installed: its idmapped-mount
	# fallback (the stick's owner 1234 shown as 1000)
	if mount -t ext4 -o uid=1000,gid=1000 "$stick" /mnt/t 2>"$out/mount-helper.err"; then
		own=$(stat -c %u:%g /mnt/t/file-1234 2>&1)
		info=$(grep ' /mnt/t ' /proc/self/mountinfo)
		check helper_idmapped_fallback "file-1234 shows as $own; mountinfo: $info" \
			eval '[ "$own" = 1000:1000 ] && [[ $info == *idmapped* ]]'
		umount /mnt/t
	else
		fail helper_idmapped_fallback "mount -o uid=1000,gid=1000 through mount.ext4 failed: $(cat "$out/mount-helper.err")"
	fi
	check helper_still_installed "extown was removed with extown-dkms" test -u /usr/sbin/mount.ext4

	if [ "$purge" = yes ]; then purge_extown; fi
	;;
install)
	start=$SECONDS
	if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /root/extown-debs/*.deb \
		>"$out/install.log" 2>&1; then
		pass apt_install
	else
		fail apt_install "apt-get install failed: $(tail -n 3 "$out/install.log" | tr '\n' ' ')"
	fi
	echo "apt-get install in the guest (DKMS build, initramfs): $((SECONDS - start)) s" >>"$out/timings"
	cp /var/lib/dkms/extown/*/"$kver"/*/log/make.log "$out/make.log" 2>/dev/null
	dkms status >"$out/dkms-status" 2>&1
	check dkms_installed "dkms status: $(tr '\n' ';' <"$out/dkms-status")" grep -q "$kver.*: installed" "$out/dkms-status"
	;;
*) fail phase "unknown phase '$phase'" ;;
esac
end_ok
