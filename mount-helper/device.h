/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device look-up in the udev database (libudev): is the block device
 * tagged removable by extown's udev rules (EXTOWN_REMOVABLE=1), and what is
 * its filesystem UUID. No udev data means not removable (H2).
 */
#ifndef EXTOWN_DEVICE_H
#define EXTOWN_DEVICE_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

#define EXTOWN_REMOVABLE_PROP	"EXTOWN_REMOVABLE"

struct device_info {
	bool udev_known;	/* libudev found the device */
	bool removable;		/* EXTOWN_REMOVABLE=1 */
	char fs_uuid[POLICY_UUID_LEN + 1];	/* ID_FS_UUID when it is a UUID, else "" */
};

/*
 * Look up block device DEVNUM. Always fills *info (not removable when
 * anything is missing). 0 when udev knows the device, -1 when it does not.
 */
int device_lookup(dev_t devnum, struct device_info *info);

#endif
