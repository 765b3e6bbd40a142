// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mounter.c - perform the mount with libmount, helpers disabled.
 */
#include <stdio.h>

#include <libmount.h>

#include "mounter.h"

int mounter_mount(const struct mount_plan *p, const char *progname)
{
	struct libmnt_context *cxt;
	char buf[BUFSIZ] = "";
	int rc, ex;

	cxt = mnt_new_context();
	if (!cxt) {
		fprintf(stderr, "%s: %s: out of memory\n", progname, p->source);
		return MNT_EX_SYSERR;
	}
	/* as a mount.<type> helper does: no helpers (no recursion), and the
	 * options are ours alone, not merged again with fstab */
	rc = mnt_context_init_helper(cxt, MNT_ACT_MOUNT, 0);
	if (!rc)
		rc = mnt_context_set_optsmode(cxt, MNT_OMODE_IGNORE);
	if (!rc)
		rc = mnt_context_set_source(cxt, p->source);
	if (!rc)
		rc = mnt_context_set_target(cxt, p->target);
	if (!rc)
		rc = mnt_context_set_fstype(cxt, p->fstype);
	if (!rc && p->options && *p->options)
		rc = mnt_context_set_options(cxt, p->options);
	if (!rc && p->sloppy)
		rc = mnt_context_helper_setopt(cxt, 's', NULL);
	if (!rc && p->fake)
		rc = mnt_context_helper_setopt(cxt, 'f', NULL);
	if (!rc && p->nomtab)
		rc = mnt_context_helper_setopt(cxt, 'n', NULL);
	if (!rc && p->ns)
		rc = mnt_context_helper_setopt(cxt, 'N', (char *)p->ns);
	if (rc) {
		fprintf(stderr, "%s: %s: cannot set up the mount: %s\n", progname,
			p->source, "invalid argument or out of memory");
		mnt_free_context(cxt);
		return MNT_EX_USAGE;
	}

	rc = mnt_context_mount(cxt);
	ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));
	if (*buf) {
		/* worded like mount(8): "mount.ext4: /mnt: wrong fs type, ..." */
		fprintf(stderr, "%s: %s: %s\n", progname, p->target, buf);
	} else if (ex != MNT_EX_SUCCESS) {
		fprintf(stderr, "%s: %s: mount failed\n", progname, p->target);
	}
	mnt_free_context(cxt);
	return ex;
}
