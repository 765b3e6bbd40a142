# shellcheck shell=sh
# Set-up shared by the busybox guests that run the mount helper
# (tests/privilege, tests/differential): POSIX sh, sourced in the guest
# from /tests/vmguest.sh (tools/vm/mkinitramfs.sh --file).
#
#   install_helper        /tests/mount.ext4 installed as the package does:
#                         /usr/sbin/mount.ext4 setuid root, mount.ext3 and
#                         mount.ext2 links; mount(8) and umount(8) setuid
#                         root as on Debian
#   tag_removable DEV [UUID]
#                         the udev database record our rules would write
#                         for block device DEV (vdb): EXTOWN_REMOVABLE=1,
#                         and ID_FS_UUID=UUID when given (libudev reads
#                         /run/udev/data directly; no udevd in the guest)

install_helper() {
	cp /tests/mount.ext4 /usr/sbin/mount.ext4
	chown root:root /usr/sbin/mount.ext4
	chmod 4755 /usr/sbin/mount.ext4
	ln -sf mount.ext4 /usr/sbin/mount.ext3
	ln -sf mount.ext4 /usr/sbin/mount.ext2
	chmod 4755 /usr/bin/mount /usr/bin/umount
}

tag_removable() {
	mkdir -p /run/udev/data
	{
		echo "E:EXTOWN_REMOVABLE=1"
		[ -z "${2:-}" ] || echo "E:ID_FS_UUID=$2"
	} >"/run/udev/data/b$(cat "/sys/block/$1/dev")"
}
