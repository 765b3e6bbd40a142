// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of device.c: the udev look-up, against a fake sysfs and udev
 * database made with libumockdev. Must run under umockdev-wrapper (run.sh
 * does), which redirects libudev's view of /sys and /run/udev.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <umockdev.h>

#include "device.h"
#include "tap.h"

#define UUID "0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6b"

static UMockdevTestbed *tb;

/*
 * umockdev 0.17 links /sys/dev/char/M:m even for the block subsystem; libudev
 * looks a block device number up in /sys/dev/block/M:m, as on a real system.
 */
static int link_block_devnum(const char *name, const char *devnum)
{
	char dir[512], link[600], to[300];

	snprintf(dir, sizeof(dir), "%s/sys/dev/block", umockdev_testbed_get_root_dir(tb));
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -1;
	snprintf(link, sizeof(link), "%s/%s", dir, devnum);
	snprintf(to, sizeof(to), "../../devices/%s", name);
	return symlink(to, link);
}

static void add_block(const char *name, const char *devnum, const char *major,
		      const char *minor, const char *removable)
{
	char devname[32];
	gchar *path;

	snprintf(devname, sizeof(devname), "/dev/%s", name);
	if (removable)
		path = umockdev_testbed_add_device(tb, "block", name, NULL,
			"dev", devnum, "removable", "1", NULL,
			"DEVNAME", devname, "MAJOR", major, "MINOR", minor,
			"DEVTYPE", "disk", "ID_FS_TYPE", "ext4", "ID_FS_UUID", UUID,
			EXTOWN_REMOVABLE_PROP, removable, NULL);
	else
		path = umockdev_testbed_add_device(tb, "block", name, NULL,
			"dev", devnum, "removable", "0", NULL,
			"DEVNAME", devname, "MAJOR", major, "MINOR", minor,
			"DEVTYPE", "disk", "ID_FS_TYPE", "ext4", "ID_FS_UUID", UUID, NULL);
	g_free(path);
	if (link_block_devnum(name, devnum))
		printf("FAIL helper.udev.setup: cannot link /sys/dev/block/%s\n", devnum);
}

TEST(t_tagged, "helper.H3.udev_tagged_device_is_removable")
{
	struct device_info info;

	CHECK(device_lookup(makedev(8, 16), &info) == 0, "udev data of sdb not found (run under umockdev-wrapper?)");
	CHECK(info.udev_known, "udev_known not set");
	CHECK(info.removable, "EXTOWN_REMOVABLE=1 not seen as removable");
	CHECK(strcmp(info.fs_uuid, UUID) == 0, "ID_FS_UUID '%s'", info.fs_uuid);
	return 0;
}

TEST(t_untagged, "helper.H2.udev_untagged_device_not_removable")
{
	struct device_info info;

	CHECK(device_lookup(makedev(8, 0), &info) == 0, "udev data of sda not found");
	CHECK(info.udev_known, "udev_known not set");
	CHECK(!info.removable, "device without EXTOWN_REMOVABLE seen as removable");
	return 0;
}

TEST(t_not_one, "helper.H2.udev_property_not_1_not_removable")
{
	struct device_info info;

	CHECK(device_lookup(makedev(8, 32), &info) == 0, "udev data of sdc not found");
	CHECK(!info.removable, "EXTOWN_REMOVABLE=0 seen as removable");
	return 0;
}

TEST(t_kernel_removable_ignored, "helper.H2.udev_kernel_removable_flag_not_used")
{
	struct device_info info;

	/* sda has the sysfs attribute removable=0, sdd removable=1 but no
	 * EXTOWN_REMOVABLE: only our udev property counts */
	CHECK(device_lookup(makedev(8, 48), &info) == 0, "udev data of sdd not found");
	CHECK(!info.removable, "sysfs 'removable' used instead of EXTOWN_REMOVABLE");
	return 0;
}

TEST(t_unknown, "helper.H2.udev_unknown_device_not_removable")
{
	struct device_info info;

	CHECK(device_lookup(makedev(8, 99), &info) == -1, "unknown device found");
	CHECK(!info.removable && !info.udev_known, "unknown device seen as removable");
	return 0;
}

int main(int argc, char *argv[])
{
	struct tap tap = tap_init(argc, argv);
	gchar *path;

	tb = umockdev_testbed_new();
	add_block("sda", "8:0", "8", "0", NULL);
	add_block("sdb", "8:16", "8", "16", "1");
	add_block("sdc", "8:32", "8", "32", "0");
	path = umockdev_testbed_add_device(tb, "block", "sdd", NULL,
		"dev", "8:48", "removable", "1", NULL,
		"DEVNAME", "/dev/sdd", "MAJOR", "8", "MINOR", "48",
		"DEVTYPE", "disk", "ID_FS_TYPE", "ext4", NULL);
	g_free(path);
	if (link_block_devnum("sdd", "8:48"))
		tap_setup_fail(&tap, "helper.udev.setup", "cannot link /sys/dev/block/8:48");
	tap_run_all(&tap);
	g_object_unref(tb);
	return tap_status(&tap);
}
