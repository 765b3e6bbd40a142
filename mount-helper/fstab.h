/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What /etc/fstab grants an unprivileged caller, checked the way mount(8)
 * checks it (libmount evaluate_permissions()): an entry with the same source
 * and target, whose options hold "user" (without a name), "users", "owner"
 * (caller owns the device) or "group" (caller is in the device's group).
 */
#ifndef EXTOWN_FSTAB_H
#define EXTOWN_FSTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "loopdev.h"

struct fstab_grant {
	char *source;	/* the device, tags (UUID=, LABEL=) resolved */
	char *target;	/* the fstab entry's mount point */
	char *fstype;	/* ext2, ext3 or ext4, or NULL for "auto" */
	char *options;	/* the fstab entry's options, "" when none */
	bool loop;	/* a loop entry; source is the loop device serving it */
};

/*
 * How the backing file of a "loop" entry is looked at: the path is root's
 * (from /etc/fstab), so main.c passes a stat(2) done as root.
 */
typedef int (*fstab_stat_fn)(const char *path, struct stat *st);

/*
 * Find the entry of FSTAB_PATH for SOURCE and TARGET (as given on the
 * command line) and check that it grants CALLER a mount, as libmount does:
 * of user/nouser, users/nousers, owner/noowner, group/nogroup the last one
 * wins, "user=NAME" grants nothing. GROUPS are the caller's groups. The
 * entry's type must be ext2, ext3, ext4 or auto.
 *
 * LOOP is what the loop device SOURCE serves (NULL when SOURCE is not a loop
 * device): then an entry for TARGET whose file (STAT_BACKING), offset= and
 * sizelimit= are exactly what the device serves matches too, when it has
 * "loop" or its source is a regular file (libmount then sets up the loop
 * device by itself, and passes no "loop" to the helper).
 * 0 with *g filled, or -1 with why (the refusal message).
 */
int fstab_user_grant(const char *fstab_path, const char *source,
		     const char *target, uid_t caller, const gid_t *groups,
		     size_t ngroups, const struct loop_backing *loop,
		     fstab_stat_fn stat_backing, struct fstab_grant *g,
		     char *why, size_t whysz);

void fstab_grant_free(struct fstab_grant *g);

#endif
