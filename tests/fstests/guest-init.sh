#!/bin/bash
# Runs INSIDE the fstests VM as PID 1 (init=, no systemd): mounts the API
# filesystems, writes /opt/fstests/local.config for the run, runs ./check
# on the tests of /opt/fstests/extown-list, and writes the results to
# /dev/vda (tools/vm/guest-write-results.sh) before powering off.
#
# Kernel command line (tools/vm/run-vm.sh): extown.args=MODE,BUDGET
#   MODE     plain: fstests' own mount options for ext4 (-o acl,user_xattr)
#            uid:   the same plus uid=0,gid=0, for the scratch and the test
#                   filesystem (MOUNT_OPTIONS and TEST_FS_MOUNT_OPTS)
#   BUDGET   seconds after which check is sent SIGTERM: it finishes the test
#            under way, writes its summary, and stops (0: no budget)
# and extown.deadline=N: at N seconds of uptime whatever exists is written
# out and the VM powered off (the host kills qemu a little later).
#
# Disks: /dev/vda results, /dev/vdb root (this tree), /dev/vdc TEST_DEV
# (made by the host with mkfs.ext4), /dev/vdd SCRATCH_DEV.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH LANG=C.UTF-8 HOME=/root
out=/run/extown-results

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mount -o remount,rw /
hostname extown-fstests
mkdir -p "$out"
exec >"$out/init.log" 2>&1

args='' deadline=0
read -r -a words </proc/cmdline
for w in "${words[@]}"; do
	case $w in
	extown.args=*) args=${w#extown.args=} ;;
	extown.deadline=*) deadline=${w#extown.deadline=} ;;
	esac
done
mode=${args%%,*}
budget=${args#*,}
echo "mode=$mode budget=$budget deadline=$deadline"

finish() {
	cd /
	dmesg >"$out/dmesg"
	uname -a >"$out/uname"
	if [ -d /opt/fstests/results ]; then
		tar -C /opt/fstests -czf "$out/results.tar.gz" results
	fi
	cp /opt/fstests/local.config "$out/" 2>/dev/null
	touch "$out/DONE"
	extown-write-results "$out" /dev/vda
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}

cd /opt/fstests || finish
{
	echo "export FSTYP=ext4"
	echo "export TEST_DEV=/dev/vdc TEST_DIR=/mnt/test"
	echo "export SCRATCH_DEV=/dev/vdd SCRATCH_MNT=/mnt/scratch"
	[ ! -f extown-kernel.config ] || echo "export KCONFIG_PATH=/opt/fstests/extown-kernel.config"
	if [ "$mode" = uid ]; then
		echo 'export MOUNT_OPTIONS="-o acl,user_xattr,uid=0,gid=0"'
		echo 'export TEST_FS_MOUNT_OPTS="-o acl,user_xattr,uid=0,gid=0"'
	fi
} >local.config
mkdir -p /mnt/test /mnt/scratch

# shellcheck disable=SC2046 # one test name a word
./check $(grep -v '^#' extown-list) >"$out/check.out" 2>&1 &
check=$!
# progress on the serial console (the host's serial.log)
tail -n +1 -F "$out/check.out" >/dev/ttyS0 2>/dev/null &
if [ "${budget:-0}" -gt 0 ]; then
	(
		sleep "$budget"
		echo "budget of $budget s reached at $(date +%T): SIGTERM to check" >>"$out/init.log"
		kill -TERM "$check"
	) &
fi
if [ "${deadline:-0}" -gt 120 ]; then
	(
		now=$(cut -d. -f1 /proc/uptime)
		sleep $((deadline - 60 - now))
		echo "deadline at $(date +%T): writing what there is" >>"$out/init.log"
		touch "$out/TIMEOUT"
		finish
	) &
fi
wait "$check"
echo "check exited with status $? at $(date +%T)"
finish
