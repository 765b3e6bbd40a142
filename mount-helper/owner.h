/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who should own the files of this mount: the decision (H2, H3, H5, H6, H7)
 * and the option rewriting that carries it out. Pure: everything the
 * decision depends on is in struct owner_input.
 */
#ifndef EXTOWN_OWNER_H
#define EXTOWN_OWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "msg.h"
#include "policy.h"

struct owner_input {
	bool privileged;	/* real uid 0: root itself, udisks, systemd */
	uid_t uid;		/* the caller's real uid */
	gid_t gid;		/* the caller's primary gid (passwd) */
	const gid_t *groups;	/* all the caller's groups, for allow-group */
	size_t ngroups;
	const char *options;	/* the options to be mounted, before additions */
	bool removable;		/* udev: EXTOWN_REMOVABLE=1 */
	const char *fs_uuid;	/* udev: ID_FS_UUID, NULL or "" if unknown */
	bool kernel_support;	/* K10 sysfs file present for this fs type */
	const struct policy *policy;
};

enum owner_action {
	OWNER_LEAVE,		/* mount with exactly the given options */
	OWNER_ADD,		/* add uid=,gid=,nosuid,nodev (each unless present) */
};

struct owner_decision {
	enum owner_action action;
	bool kernel_missing;	/* would have added, but the kernel cannot (H6) */
	uid_t uid;
	gid_t gid;
	char why[NOTE_LEN];	/* one phrase, for -v */
};

void owner_decide(const struct owner_input *in, struct owner_decision *d);

/*
 * Carry out OWNER_ADD on *opts: add uid=, gid=, nosuid, nodev unless
 * present, and drop suid and dev (a presented owner with device nodes or
 * setuid files would give the user access beyond the stick). Notes say what
 * was added. 0, or -1 (out of memory). OWNER_LEAVE: nothing changes.
 */
int opts_apply_owner(char **opts, const struct owner_decision *d,
		     struct notes *notes);

/*
 * K10: does the running kernel support uid=/gid= for FSTYPE? SYSROOT is
 * "/sys" (tests pass a directory of their own).
 *   ext4, ext3: SYSROOT/fs/ext4/features/uid_gid_override
 *   ext2: SYSROOT/fs/ext2/features/uid_gid_override (separate ext2 driver,
 *         patched); or, when SYSROOT/fs/ext2 and SYSROOT/module/ext2 are both
 *         absent (no separate ext2 driver: ext4 serves ext2), the ext4 file.
 */
bool kernel_supports_override(const char *sysroot, const char *fstype);

#endif
