// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loopdev.c - what a loop device serves, read from the device itself.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/loop.h>
#include <linux/major.h>

#include "loopdev.h"

bool loopdev_name(const char *path)
{
	const char *n;

	if (strncmp(path, "/dev/loop", 9) != 0 || !path[9])
		return false;
	for (n = path + 9; *n; n++)
		if (!isdigit((unsigned char)*n))
			return false;
	return true;
}

int loopdev_open(const char *path, struct loop_backing *b)
{
	struct loop_info64 li;
	struct stat st;
	int fd, err;

	memset(b, 0, sizeof(*b));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		goto fail;
	if (!S_ISBLK(st.st_mode) || major(st.st_rdev) != LOOP_MAJOR) {
		errno = ENOTBLK;
		goto fail;
	}
	if (ioctl(fd, LOOP_GET_STATUS64, &li) != 0)
		goto fail;		/* ENXIO: not bound to a file */
	b->dev = (dev_t)li.lo_device;
	b->ino = (ino_t)li.lo_inode;
	b->offset = li.lo_offset;
	b->sizelimit = li.lo_sizelimit;
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}
