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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libmount.h>

#include "fstab.h"
#include "msg.h"
#include "optstr.h"

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

/* the permission flags of libmount's user option map */
enum {
	PERM_USER = 1 << 0,
	PERM_USERS = 1 << 1,
	PERM_OWNER = 1 << 2,
	PERM_GROUP = 1 << 3,
};

struct perm_walk {
	unsigned flags;
};

static int perm_cb(const char *name, size_t namesz, const char *val,
		   size_t valsz, void *data)
{
	static const struct {
		const char *name;
		unsigned flag;
		bool set;
	} map[] = {
		{ "user", PERM_USER, true }, { "nouser", PERM_USER, false },
		{ "users", PERM_USERS, true }, { "nousers", PERM_USERS, false },
		{ "owner", PERM_OWNER, true }, { "noowner", PERM_OWNER, false },
		{ "group", PERM_GROUP, true }, { "nogroup", PERM_GROUP, false },
	};
	struct perm_walk *w = data;

	(void)valsz;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (namesz != strlen(map[i].name) || strncmp(name, map[i].name, namesz))
			continue;
		/* only "user" takes a value ("user=NAME") */
		if (val && map[i].flag != PERM_USER)
			return 0;
		if (map[i].set)
			w->flags |= map[i].flag;
		else
			w->flags &= ~map[i].flag;
	}
	return 0;
}

/*
 * libmount evaluate_permissions(): the flags, the last of each pair
 * winning; "user" whose (first) occurrence carries a name records who
 * mounted it and grants nothing; "owner" if the caller owns the device,
 * "group" if the caller is in the device's group.
 */
static int check_grant(const char *opts, const char *device, uid_t caller,
		       const gid_t *groups, size_t ngroups, char *why, size_t whysz)
{
	struct perm_walk w = { 0 };
	struct stat st;
	const char *val;
	size_t valsz;

	if (opts_walk(opts, perm_cb, &w) < 0)
		return fail(why, whysz, "out of memory");
	if ((w.flags & PERM_USER) &&
	    opts_get(opts, "user", &val, &valsz) == 0 && valsz)
		w.flags &= ~PERM_USER;
	if (w.flags & (PERM_USER | PERM_USERS))
		return 0;
	if ((w.flags & (PERM_OWNER | PERM_GROUP)) && strncmp(device, "/dev/", 5) == 0 &&
	    stat(device, &st) == 0 &&
	    (((w.flags & PERM_OWNER) && st.st_uid == caller) ||
	     ((w.flags & PERM_GROUP) && in_list(st.st_gid, groups, ngroups))))
		return 0;
	if (w.flags & (PERM_OWNER | PERM_GROUP))
		return fail(why, whysz, "the fstab entry allows only the %s of the device",
			    (w.flags & PERM_OWNER) ? "owner" : "group");
	return fail(why, whysz, "the fstab entry has no user, users, owner or group option "
		    "in force: only root can mount it");
}

/* offset= or sizelimit= of an fstab entry, 0 when absent; -1 when malformed */
static int opt_u64(const char *opts, const char *name, uint64_t *v)
{
	const char *val;
	char *end, buf[32];
	size_t valsz;

	*v = 0;
	if (opts_get(opts, name, &val, &valsz) != 0)
		return 0;
	if (!valsz || valsz >= sizeof(buf) || !isdigit((unsigned char)*val))
		return -1;
	memcpy(buf, val, valsz);
	buf[valsz] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return (*end || errno) ? -1 : 0;
}

/*
 * libmount sets up a loop device by itself, "loop" or not, for an entry
 * whose source is a regular file of more than 1 KiB (its type is ext2/3/4
 * or auto here, which blkid knows).
 */
static bool auto_loop(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_size > 1024;
}

/*
 * The loop entry for TARGET ("loop", or auto_loop()) whose file, offset
 * and size limit are what the loop device serves, or NULL.
 */
static struct libmnt_fs *find_loop_entry(struct libmnt_table *tb, const char *target,
					 struct libmnt_cache *cache,
					 const struct loop_backing *loop,
					 fstab_stat_fn stat_backing)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs = NULL;
	bool found = false;

	while (it && !found && mnt_table_next_fs(tb, it, &fs) == 0) {
		const char *opts = mnt_fs_get_options(fs);
		const char *src = mnt_fs_get_srcpath(fs);
		uint64_t offset, sizelimit;
		struct stat st;

		if (!src || !mnt_fs_match_target(fs, target, cache))
			continue;
		if (opt_u64(opts, "offset", &offset) || opt_u64(opts, "sizelimit", &sizelimit))
			continue;
		found = stat_backing(src, &st) == 0 && S_ISREG(st.st_mode) &&
			(opts_has(opts, "loop") || auto_loop(&st)) &&
			st.st_dev == loop->dev && st.st_ino == loop->ino &&
			offset == loop->offset && sizelimit == loop->sizelimit;
	}
	mnt_free_iter(it);
	return found ? fs : NULL;
}

int fstab_user_grant(const char *fstab_path, const char *source,
		     const char *target, uid_t caller, const gid_t *groups,
		     size_t ngroups, const struct loop_backing *loop,
		     fstab_stat_fn stat_backing, struct fstab_grant *g,
		     char *why, size_t whysz)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_cache *cache = mnt_new_cache();
	struct libmnt_fs *fs = NULL;
	const char *dev, *type, *opts;
	bool by_loop = false;
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
	if (!fs && loop) {
		fs = find_loop_entry(tb, target, cache, loop, stat_backing);
		by_loop = fs != NULL;
	}
	if (!fs) {
		fail(why, whysz, "not in %s with this source and mount point: "
		     "only root can mount it", fstab_path);
		goto out;
	}
	if (by_loop) {
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

	g->loop = by_loop;
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
	mnt_unref_table(tb);
	mnt_unref_cache(cache);
	return rc;
}
