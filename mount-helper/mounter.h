/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real mount, through libmount with mount.<type> helpers disabled, so
 * that the helper never runs itself again (H1).
 */
#ifndef EXTOWN_MOUNTER_H
#define EXTOWN_MOUNTER_H

#include <stdbool.h>

struct mount_plan {
	const char *source;
	const char *target;
	const char *fstype;
	const char *options;	/* the final option string */
	const char *ns;		/* -N, or NULL */
	bool sloppy, fake, nomtab, verbose;
};

/*
 * Mount; on failure print "PROGNAME: message" the way mount(8) words it.
 * Returns mount(8)'s exit status (0, 1, 2, 4, 16, 32).
 */
int mounter_mount(const struct mount_plan *plan, const char *progname);

#endif
