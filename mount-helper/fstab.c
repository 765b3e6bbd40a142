// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fstab.c - does /etc/fstab grant this unprivileged caller the mount?
 *
 * Runs with the caller's own effective ids (main.c drops them first), so a
 * path the caller cannot see cannot be resolved here either.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libmount.h>

#include "fstab.h"
#include "msg.h"
#include "request.h"

void fstab_grant_free(struct fstab_grant *g)
{
	free(g->source);
	free(g->target);
	free(g->fstype);
	free(g->options);
	memset(g, 0, sizeof(*g));
}

static bool in_list(gid_t gid, const gid_t *groups, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * mount(8) sets up a loop device before it runs the helper, which then sees
 * /dev/loopN: the fstab entry names the backing file. NULL when SOURCE is
 * not a loop device.
 */
static char *loop_backing_file(const char *source)
{
	char path[PATH_MAX], buf[PATH_MAX];
	const char *name;
	ssize_t n;
	int fd;

	if (strncmp(source, "/dev/loop", 9) != 0)
		return NULL;
	name = source + 5;
	for (const char *c = name + 4; *c; c++)
		if (!isdigit((unsigned char)*c))
			return NULL;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

/* "user" without a name, "users", "owner" if the caller owns the device,
 * "group" if the caller is in the device's group: evaluate_permissions(). */
static int check_grant(const char *opts, const char *device, uid_t caller,
		       const gid_t *groups, size_t ngroups, char *why, size_t whysz)
{
	bool owner, group;
	struct stat st;
	char *val;
	size_t valsz;

	if (mnt_optstr_get_option(opts, "user", &val, &valsz) == 0 && valsz == 0)
		return 0;
	if (mnt_optstr_get_option(opts, "users", &val, &valsz) == 0)
		return 0;
	owner = mnt_optstr_get_option(opts, "owner", &val, &valsz) == 0;
	group = mnt_optstr_get_option(opts, "group", &val, &valsz) == 0;
	if ((owner || group) && strncmp(device, "/dev/", 5) == 0 &&
	    stat(device, &st) == 0 &&
	    ((owner && st.st_uid == caller) ||
	     (group && in_list(st.st_gid, groups, ngroups))))
		return 0;
	if (owner || group)
		return fail(why, whysz, "the fstab entry allows only the %s of the device",
			    owner ? "owner" : "group");
	return fail(why, whysz, "the fstab entry has no user, users, owner or group option: "
		    "only root can mount it");
}

int fstab_user_grant(const char *fstab_path, const char *source,
		     const char *target, uid_t caller, const gid_t *groups,
		     size_t ngroups, struct fstab_grant *g, char *why, size_t whysz)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_cache *cache = mnt_new_cache();
	struct libmnt_fs *fs = NULL;
	char *backing = NULL;
	const char *dev, *type, *opts;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	if (!tb || !cache) {
		fail(why, whysz, "out of memory");
		goto out;
	}
	mnt_table_set_cache(tb, cache);
	if (mnt_table_parse_fstab(tb, fstab_path) != 0) {
		fail(why, whysz, "cannot read %s", fstab_path);
		goto out;
	}
	fs = mnt_table_find_pair(tb, source, target, MNT_ITER_FORWARD);
	if (!fs) {
		backing = loop_backing_file(source);
		if (backing)
			fs = mnt_table_find_pair(tb, backing, target, MNT_ITER_FORWARD);
		if (fs && !opts_has(mnt_fs_get_options(fs), "loop"))
			fs = NULL;	/* only an entry with "loop" names a backing file */
	}
	if (!fs) {
		fail(why, whysz, "not in %s with this source and mount point: "
		     "only root can mount it", fstab_path);
		goto out;
	}
	if (backing) {
		dev = source;		/* the loop device mount(8) set up */
	} else {
		dev = mnt_resolve_spec(mnt_fs_get_source(fs), cache);
		if (!dev) {
			fail(why, whysz, "cannot find the device of the fstab entry (%s)",
			     mnt_fs_get_source(fs));
			goto out;
		}
	}
	type = mnt_fs_get_fstype(fs);
	if (type && strcmp(type, "auto") != 0 && strcmp(type, "ext2") != 0 &&
	    strcmp(type, "ext3") != 0 && strcmp(type, "ext4") != 0) {
		fail(why, whysz, "the fstab entry is of type %s, not ext2, ext3 or ext4", type);
		goto out;
	}
	opts = mnt_fs_get_options(fs);
	if (check_grant(opts ? opts : "", dev, caller, groups, ngroups, why, whysz))
		goto out;

	g->source = strdup(dev);
	g->target = strdup(mnt_fs_get_target(fs));
	g->fstype = type && strcmp(type, "auto") != 0 ? strdup(type) : NULL;
	g->options = strdup(opts ? opts : "");
	if (!g->source || !g->target || !g->options || (type && strcmp(type, "auto") && !g->fstype)) {
		fstab_grant_free(g);
		fail(why, whysz, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(backing);
	mnt_unref_table(tb);
	mnt_unref_cache(cache);
	return rc;
}
