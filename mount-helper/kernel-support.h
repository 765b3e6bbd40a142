/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * K10: the probe for the kernel's uid=/gid= mount options (the extown
 * kernel patches), which the owner decision takes as given (owner.h).
 */
#ifndef EXTOWN_KERNEL_SUPPORT_H
#define EXTOWN_KERNEL_SUPPORT_H

#include <stdbool.h>

/* Where kernel_supports_override() looks; tests pass directories of their own. */
struct kernel_paths {
	const char *sysfs;	/* "/sys" */
	const char *modules;	/* "/lib/modules/$(uname -r)" */
};

/*
 * K10: does the running kernel support uid=/gid= for FSTYPE?
 *   ext4, ext3: SYSFS/fs/ext4/features/uid_gid_override
 *   ext2: SYSFS/fs/ext2/features/uid_gid_override (a patched ext2 driver
 *         on the legacy mount API, which kernel_probe_override() cannot ask);
 *         else the ext4 file, but only where the ext4 driver is known to
 *         serve ext2: no separate ext2 driver loaded (SYSFS/fs/ext2 and
 *         SYSFS/module/ext2 absent) and MODULES/modules.builtin and
 *         MODULES/modules.dep present and naming no fs/ext2/ext2.ko. A
 *         built-in ext2 driver shows in neither sysfs directory, and
 *         /proc/filesystems lists "ext2" for both drivers: where the module
 *         lists are missing the answer is no, so that an ext2 mount that
 *         works without the helper never fails because of it.
 */
bool kernel_supports_override(const struct kernel_paths *kp, const char *fstype);

/*
 * K10, asked of the driver: fsopen(FSTYPE), then fsconfig(2)
 * FSCONFIG_SET_STRING "uid"="0", which a driver without the options refuses
 * with EINVAL before any device is opened. 1: it takes uid=; 0: it does not
 * (or FSTYPE is not ext2, ext3, ext4); -1: cannot tell (no fsopen(2), not
 * permitted: it needs CAP_SYS_ADMIN, or a driver on the legacy mount API,
 * which takes any key until the mount itself).
 */
int kernel_probe_override(const char *fstype);

/*
 * For the running kernel: kernel_probe_override(), and where it cannot tell,
 * kernel_supports_override() on /sys and /lib/modules/$(uname -r).
 */
bool kernel_supports_override_running(const char *fstype);

#endif
