// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mountapi.c - the kernel's mount API (fsopen/fsconfig/fsmount,
 * mount_setattr(MOUNT_ATTR_IDMAP), move_mount), for the idmapped-mount
 * fallback.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <libmount.h>

#include "mountapi.h"

/* MS_* flags that are per-mount attributes in the new API */
static const struct {
	unsigned long ms;
	unsigned int attr;
} mount_attrs[] = {
	{ MS_RDONLY, MOUNT_ATTR_RDONLY },
	{ MS_NOSUID, MOUNT_ATTR_NOSUID },
	{ MS_NODEV, MOUNT_ATTR_NODEV },
	{ MS_NOEXEC, MOUNT_ATTR_NOEXEC },
	{ MS_NOATIME, MOUNT_ATTR_NOATIME },
	{ MS_STRICTATIME, MOUNT_ATTR_STRICTATIME },
	{ MS_NODIRATIME, MOUNT_ATTR_NODIRATIME },
	{ MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW },
};

/* MS_* flags that belong to the superblock: fsconfig flags */
static const struct {
	unsigned long ms;
	const char *key;
} sb_flags[] = {
	{ MS_RDONLY, "ro" },
	{ MS_SYNCHRONOUS, "sync" },
	{ MS_DIRSYNC, "dirsync" },
	{ MS_LAZYTIME, "lazytime" },
};

/* the last error line the kernel logged on the fs context ("e ext4: ...") */
static void kernel_message(int fsfd, char *why, size_t whysz)
{
	char buf[1024];
	ssize_t n;

	while ((n = read(fsfd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (n > 2 && buf[0] == 'e' && buf[1] == ' ')
			snprintf(why, whysz, "%s", buf + 2);
	}
}

/* every option of FS_OPTS into the context: key or key=value */
static int config_options(int fsfd, const char *fs_opts)
{
	char *copy, *p, *name, *val;
	size_t namesz, valsz;
	int rc = 0;

	if (!fs_opts || !*fs_opts)
		return 0;
	copy = strdup(fs_opts);
	if (!copy)
		return -1;
	p = copy;
	while (rc == 0 && mnt_optstr_next_option(&p, &name, &namesz, &val, &valsz) == 0) {
		char key[256], value[1024];

		if (namesz >= sizeof(key) || (val && valsz >= sizeof(value))) {
			errno = EINVAL;
			rc = -1;
			break;
		}
		memcpy(key, name, namesz);
		key[namesz] = '\0';
		if (val) {
			/* libmount keeps the quotes of a quoted value ("a,b") */
			if (valsz >= 2 && val[0] == '"' && val[valsz - 1] == '"') {
				val++;
				valsz -= 2;
			}
			memcpy(value, val, valsz);
			value[valsz] = '\0';
			rc = fsconfig(fsfd, FSCONFIG_SET_STRING, key, value, 0);
		} else {
			rc = fsconfig(fsfd, FSCONFIG_SET_FLAG, key, NULL, 0);
		}
	}
	free(copy);
	return rc ? -1 : 0;
}

static int create_once(const char *source, const char *fstype, const char *fs_opts,
		       unsigned long mflags, char *why, size_t whysz)
{
	unsigned int attrs = 0;
	int fsfd, mfd = -1, err;

	fsfd = fsopen(fstype, FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return -1;
	for (size_t i = 0; i < sizeof(mount_attrs) / sizeof(mount_attrs[0]); i++)
		if (mflags & mount_attrs[i].ms)
			attrs |= mount_attrs[i].attr;
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source, 0))
		goto fail;
	for (size_t i = 0; i < sizeof(sb_flags) / sizeof(sb_flags[0]); i++)
		if ((mflags & sb_flags[i].ms) &&
		    fsconfig(fsfd, FSCONFIG_SET_FLAG, sb_flags[i].key, NULL, 0))
			goto fail;
	if (config_options(fsfd, fs_opts) ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		goto fail;
	mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, attrs);
	if (mfd < 0)
		goto fail;
	close(fsfd);
	return mfd;
fail:
	err = errno;
	kernel_message(fsfd, why, whysz);
	close(fsfd);
	errno = err;
	return -1;
}

int mountapi_create(const char *source, const char *fstype, const char *fs_opts,
		   unsigned long mflags, bool *rdonly_retried, char *why, size_t whysz)
{
	int mfd;

	*rdonly_retried = false;
	if (whysz)
		*why = '\0';
	mfd = create_once(source, fstype, fs_opts, mflags, why, whysz);
	if (mfd < 0 && (errno == EROFS || errno == EACCES) && !(mflags & MS_RDONLY)) {
		mfd = create_once(source, fstype, fs_opts, mflags | MS_RDONLY, why, whysz);
		*rdonly_retried = mfd >= 0;
	}
	return mfd;
}

int mountapi_set_idmap(int mfd, int userns_fd)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP,
		.userns_fd = (unsigned int)userns_fd,
	};

	return mount_setattr(mfd, "", AT_EMPTY_PATH, &attr, sizeof(attr));
}

int mountapi_attach(int mfd, int target_fd)
{
	return move_mount(mfd, "", target_fd, "",
			  MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}
