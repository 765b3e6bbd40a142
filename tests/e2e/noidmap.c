// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the e2e guest (tests/e2e/guest.sh fallback_edges):
 * makes mount.ext4, run by root, see a kernel that cannot idmap a mount
 * (mount_setattr with MOUNT_ATTR_IDMAP fails with EINVAL, as on a kernel
 * or filesystem type without idmapped mounts; other attributes pass) or,
 * with EXTOWN_SHIM=noapi, a kernel without the new mount API (fsopen fails
 * with ENOSYS, as before Linux 5.2).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

int mount_setattr(int dfd, const char *path, unsigned int flags,
		  struct mount_attr *attr, size_t size)
{
	int (*real)(int, const char *, unsigned int, struct mount_attr *, size_t);

	/* only the idmap is refused: libmount 2.41 sets other attributes
	 * (nosuid, nodev, propagation) with mount_setattr too */
	if (attr && (attr->attr_set & MOUNT_ATTR_IDMAP)) {
		errno = EINVAL;
		return -1;
	}
	real = (int (*)(int, const char *, unsigned int, struct mount_attr *, size_t))
		dlsym(RTLD_NEXT, "mount_setattr");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(dfd, path, flags, attr, size);
}

int fsopen(const char *fsname, unsigned int flags)
{
	const char *mode = getenv("EXTOWN_SHIM");
	int (*real)(const char *, unsigned int);

	if (mode && strcmp(mode, "noapi") == 0) {
		errno = ENOSYS;
		return -1;
	}
	real = (int (*)(const char *, unsigned int))dlsym(RTLD_NEXT, "fsopen");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fsname, flags);
}
