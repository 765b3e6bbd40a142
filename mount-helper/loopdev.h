/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The loop device mount(8) set up for an fstab "loop" entry: which file, at
 * which offset, it serves. Read with LOOP_GET_STATUS64 on a file descriptor
 * the helper keeps open until the mount is done: while it is open the kernel
 * does not let anyone detach the device and bind it to another file (a
 * LOOP_CLR_FD then only marks it for automatic clearing).
 */
#ifndef EXTOWN_LOOPDEV_H
#define EXTOWN_LOOPDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct loop_backing {
	dev_t dev;		/* the backing file's device and inode */
	ino_t ino;
	uint64_t offset;
	uint64_t sizelimit;	/* 0: to the end of the file */
};

/* Is PATH spelled /dev/loopN (N decimal)? Nothing is opened. */
bool loopdev_name(const char *path);

/*
 * Open loop device PATH read-only (the caller holds root for this) and read
 * what it serves. The descriptor (>= 0) with *b filled, or -1 with errno:
 * ENOTBLK when PATH is not a loop block device, ENXIO when it is not bound.
 */
int loopdev_open(const char *path, struct loop_backing *b);

#endif
