// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel-support.c - K10: does the running kernel take uid=/gid= for ext2,
 * ext3, ext4? Asks the driver with fsopen(2) and fsconfig(2), which touch
 * no device; where that cannot tell, looks whether sysfs files exist and
 * reads the module lists.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel-support.h"

#define SYSFS_ROOT	"/sys"
#define MODULES_ROOT	"/lib/modules"

static bool exists(const char *dir, const char *rel)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

/* Does module list DIR/NAME exist and name no fs/ext2/ext2.ko? */
static bool module_list_without_ext2(const char *dir, const char *name)
{
	char path[4096], line[4096];
	bool found = false;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "fs/ext2/ext2.ko") != NULL;
	fclose(f);
	return !found;
}

bool kernel_supports_override(const struct kernel_paths *kp, const char *fstype)
{
	if (strcmp(fstype, "ext2") == 0) {
		if (exists(kp->sysfs, "fs/ext2/features/uid_gid_override"))
			return true;
		/* a separate ext2 driver (patched or not) serves ext2 */
		if (exists(kp->sysfs, "fs/ext2") || exists(kp->sysfs, "module/ext2"))
			return false;
		if (!module_list_without_ext2(kp->modules, "modules.builtin") ||
		    !module_list_without_ext2(kp->modules, "modules.dep"))
			return false;
	} else if (strcmp(fstype, "ext3") != 0 && strcmp(fstype, "ext4") != 0) {
		return false;
	}
	return exists(kp->sysfs, "fs/ext4/features/uid_gid_override");
}

/* fsconfig(FD, FSCONFIG_SET_STRING, KEY, VALUE): 0, or the errno */
static int set_string(int fd, const char *key, const char *value)
{
	return fsconfig(fd, FSCONFIG_SET_STRING, key, value, 0) == 0 ? 0 : errno;
}

int kernel_probe_override(const char *fstype)
{
	int fd, ret = -1;

	if (strcmp(fstype, "ext2") != 0 && strcmp(fstype, "ext3") != 0 &&
	    strcmp(fstype, "ext4") != 0)
		return 0;
	fd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fd < 0)
		return -1;
	/* a driver on the legacy mount API takes any key here */
	if (set_string(fd, "x-extown-no-such-key", "1") == EINVAL) {
		switch (set_string(fd, "uid", "0")) {
		case 0:
			ret = 1;
			break;
		case EINVAL:
			ret = 0;
			break;
		}
	}
	close(fd);
	return ret;
}

bool kernel_supports_override_running(const char *fstype)
{
	struct utsname u;
	char modules[PATH_MAX] = "";
	struct kernel_paths kp = { SYSFS_ROOT, modules };
	int probed = kernel_probe_override(fstype);

	if (probed >= 0)
		return probed;
	if (uname(&u) == 0)
		snprintf(modules, sizeof(modules), "%s/%s", MODULES_ROOT, u.release);
	return kernel_supports_override(&kp, fstype);
}
