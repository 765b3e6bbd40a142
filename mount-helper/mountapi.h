/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A mount through the kernel's mount API (fsopen, fsconfig, fsmount,
 * mount_setattr, move_mount), for the idmapped-mount fallback: the mount is
 * made detached, its owner read, the idmapping applied, and only then
 * attached at the target, so no base mount is ever visible.
 */
#ifndef EXTOWN_MOUNTAPI_H
#define EXTOWN_MOUNTAPI_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A detached mount of SOURCE with filesystem type FSTYPE, the filesystem
 * options FS_OPTS (comma-separated, as libmount splits them) and the MS_*
 * flags MFLAGS (read-only, nosuid, nodev, noexec, the atime family, sync,
 * dirsync, lazytime, nosymfollow). A write-protected device is retried
 * read-only (*rdonly_retried set), as libmount does. The mount's fd, or -1
 * with errno set (ENOSYS: no mount API) and the kernel's own message, if it
 * gave one, in why.
 */
int mountapi_create(const char *source, const char *fstype, const char *fs_opts,
		   unsigned long mflags, bool *rdonly_retried, char *why, size_t whysz);

/* Idmap the detached mount MFD with user namespace USERNS_FD. 0, or -1 with errno. */
int mountapi_set_idmap(int mfd, int userns_fd);

/*
 * Attach the detached mount MFD on the directory TARGET_FD (an O_PATH
 * descriptor: the object opened, not a path looked up again). 0, or -1
 * with errno.
 */
int mountapi_attach(int mfd, int target_fd);

#endif
