// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * device.c - libudev look-up of the device being mounted.
 */
#include <string.h>
#include <sys/types.h>

#include <libudev.h>

#include "device.h"

int device_lookup(dev_t devnum, struct device_info *info)
{
	struct udev *udev;
	struct udev_device *dev = NULL;
	const char *v;
	int rc = -1;

	memset(info, 0, sizeof(*info));
	udev = udev_new();
	if (!udev)
		return -1;
	/* a device udev has not processed yet has no EXTOWN_REMOVABLE either */
	dev = udev_device_new_from_devnum(udev, 'b', devnum);
	if (!dev)
		goto out;

	info->udev_known = true;
	v = udev_device_get_property_value(dev, EXTOWN_REMOVABLE_PROP);
	info->removable = v && strcmp(v, "1") == 0;
	v = udev_device_get_property_value(dev, "ID_FS_UUID");
	if (v && strlen(v) == POLICY_UUID_LEN)
		memcpy(info->fs_uuid, v, POLICY_UUID_LEN + 1);
	rc = 0;
out:
	udev_device_unref(dev);
	udev_unref(udev);
	return rc;
}
