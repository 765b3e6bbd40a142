// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootfs.c - the filesystems mounted at boot.
 */
#include <string.h>
#include <sys/stat.h>

#include <libmount.h>

#include "bootfs.h"
#include "optstr.h"

/* Does fstab entry FS name block device RDEV and get mounted at boot? */
static bool entry_at_boot(struct libmnt_fs *fs, dev_t rdev, struct libmnt_cache *cache)
{
	const char *opts = mnt_fs_get_options(fs);
	const char *target = mnt_fs_get_target(fs);
	char *dev;
	struct stat st;
	bool same;

	if (opts_has(opts, "noauto") || mnt_fs_is_swaparea(fs) || !target ||
	    strcmp(target, "none") == 0)
		return false;
	dev = mnt_resolve_spec(mnt_fs_get_source(fs), cache);
	same = dev && stat(dev, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev;
	/* dev belongs to the cache */
	return same;
}

bool bootfs_holds(dev_t rdev, const char *root_dir, const char *fstab_path)
{
	struct libmnt_table *tb;
	struct libmnt_cache *cache;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	struct stat st;
	bool found = false;

	if (stat(root_dir, &st) == 0 && st.st_dev == rdev)
		return true;
	tb = mnt_new_table();
	cache = mnt_new_cache();
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (tb && cache && it) {
		mnt_table_set_cache(tb, cache);
		if (mnt_table_parse_fstab(tb, fstab_path) == 0)
			while (!found && mnt_table_next_fs(tb, it, &fs) == 0)
				found = entry_at_boot(fs, rdev, cache);
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	mnt_unref_cache(cache);
	return found;
}
