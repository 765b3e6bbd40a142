/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real mount, through libmount with mount.<type> helpers disabled, so
 * that the helper never runs itself again (H1).
 */
#ifndef EXTOWN_MOUNTER_H
#define EXTOWN_MOUNTER_H

#include <stdbool.h>
#include <sys/types.h>

struct mount_plan {
	const char *source;
	const char *target;
	const char *fstype;
	const char *options;	/* the final option string */
	const char *ns;		/* -N, or NULL */
	bool sloppy, fake, nomtab, verbose;
	/* mount(8) replaces the mount once the helper has exited (a user's
	 * X-mount.idmap=, libmount 2.39+): the utab entry is mount(8)'s to
	 * write, for the mount that stays */
	bool utab_to_mount8;
};

/*
 * Mount; on failure print "PROGNAME: message" the way mount(8) words it.
 * Returns mount(8)'s exit status (0, 1, 2, 4, 16, 32).
 */
int mounter_mount(const struct mount_plan *plan, const char *progname);

/*
 * libmount's fake mount (-f) of PLAN, unrestricted, helpers disabled: what
 * mount(8) alone does for a user's -f once it has dropped its setuid. For a
 * caller with no privileges left. mount(8)'s exit status, its message.
 */
int mounter_pretend(const struct mount_plan *plan, const char *progname);

/*
 * Does the linked libmount idmap mounts itself (X-mount.idmap=, libmount
 * 2.39+: its feature "idmapping")? Then mount(8) idmaps the mount after a
 * helper has made it.
 */
bool mounter_libmount_idmaps(void);

/* The idmapped-mount fallback: who the stick's owner is to be shown as. */
struct idmap_plan {
	bool map_uid, map_gid;	/* which of the two to map */
	uid_t uid;		/* the owner's uid is shown as this */
	gid_t gid;
};

/* mounter_mount_idmapped(): nothing mounted, mount plainly (why printed) */
#define MOUNTER_PLAIN	(-1)

/*
 * Mount with the ext4 driver, detached (the fsopen API), read the stick's
 * owner from its root directory (idmap.h), idmap that owner to PLAN's ids
 * (a swap: every other id shown as it is), attach it at the target and
 * record it in /run/mount/utab as libmount would. Options, -s and -n as for
 * mounter_mount(). One line on stderr says what was mapped. MOUNTER_PLAIN
 * (and one line why) when there is nothing to map, the kernel cannot idmap,
 * or -f or -N is given (no idmapped mount is made for those): the caller
 * then mounts with mounter_mount(); else mount(8)'s exit status.
 */
int mounter_mount_idmapped(const struct mount_plan *plan,
			   const struct idmap_plan *ip, const char *progname);

#endif
