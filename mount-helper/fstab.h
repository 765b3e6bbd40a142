/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What /etc/fstab grants an unprivileged caller, checked the way mount(8)
 * checks it (libmount evaluate_permissions()): an entry with the same source
 * and target, whose options hold "user" (without a name), "users", "owner"
 * (caller owns the device) or "group" (caller is in the device's group).
 */
#ifndef EXTOWN_FSTAB_H
#define EXTOWN_FSTAB_H

#include <stddef.h>
#include <sys/types.h>

struct fstab_grant {
	char *source;	/* the device, tags (UUID=, LABEL=) resolved */
	char *target;	/* the fstab entry's mount point */
	char *fstype;	/* ext2, ext3 or ext4, or NULL for "auto" */
	char *options;	/* the fstab entry's options, "" when none */
};

/*
 * Find the entry of FSTAB_PATH for SOURCE and TARGET (as given on the
 * command line) and check that it grants CALLER a mount. GROUPS are the
 * caller's groups. HELPER_FSTYPE is the type the helper mounts; the entry's
 * type must be it, another ext type, or auto. 0 with *g filled, or -1 with
 * why (the refusal message).
 */
int fstab_user_grant(const char *fstab_path, const char *source,
		     const char *target, uid_t caller, const gid_t *groups,
		     size_t ngroups, struct fstab_grant *g, char *why, size_t whysz);

void fstab_grant_free(struct fstab_grant *g);

#endif
