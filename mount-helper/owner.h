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
	bool boot_fs;		/* holds /, or an fstab entry without noauto (H9) */
	const char *passthrough; /* remount, bind, ...: opts_passthrough() (H9) */
	bool kernel_support;	/* K10: kernel-support.h */
	/* the fstab entry carries X-mount.idmap= and mount(8) (libmount
	 * 2.39+) idmaps the mount itself once the helper has mounted it */
	bool mount8_idmaps;
	const struct policy *policy;
};

enum owner_action {
	OWNER_LEAVE,		/* mount with exactly the given options */
	OWNER_ADD,		/* add uid=,gid=,nosuid,nodev (each unless present) */
	OWNER_IDMAP,		/* the kernel has no uid=/gid=: an idmapped mount
				 * shows the stick's owner as uid:gid instead */
};

struct owner_decision {
	enum owner_action action;
	bool kernel_missing;	/* no uid=/gid= and no idmapped mount either (H6) */
	bool strip_ids;		/* remove uid= and gid=: the kernel would refuse them */
	bool helper_owner;	/* the helper chose the owner */
	bool mount8_idmap;	/* no idmapped mount of the helper's: mount(8)'s
				 * X-mount.idmap= makes one (in->mount8_idmaps) */
	bool nosuid_nodev;	/* force nosuid,nodev (the one place it is decided) */
	bool map_uid, map_gid;	/* OWNER_IDMAP: which of uid, gid to map */
	uid_t uid;
	gid_t gid;
	char why[NOTE_LEN];	/* one phrase, for -v */
};

void owner_decide(const struct owner_input *in, struct owner_decision *d);

/*
 * Without kernel support (in->kernel_support false), uid=/gid= in the
 * options (root's, udisks', or an fstab entry's) are removed and, unless the
 * policy is broken or says idmap-fallback = no, given through an idmapped
 * mount (OWNER_IDMAP); an owner the helper would add likewise. With the
 * fallback off the helper's owner is left out (kernel_missing). Where
 * mount(8) makes an idmapped mount itself (in->mount8_idmaps: X-mount.idmap=
 * in the fstab entry), the helper makes none (an idmapped mount cannot be
 * idmapped again): OWNER_LEAVE with mount8_idmap, uid=/gid= the kernel
 * lacks removed all the same, nosuid,nodev forced.
 *
 * nosuid_nodev is set for every OWNER_ADD, for OWNER_IDMAP with
 * helper_owner, for mount8_idmap, and for an unprivileged caller's mount with uid=/gid= in the
 * options or OWNER_IDMAP: a presented owner with device nodes or setuid
 * files would give the user access beyond the stick.
 *
 * Carry out the decision on *opts, the only rewriting of the options after
 * a request is checked. strip_ids: remove every uid= and gid=. OWNER_ADD:
 * add uid=, gid= unless present. Then, but for OWNER_LEAVE, nosuid_nodev:
 * nosuid and nodev added unless present, suid and dev dropped
 * (opts_force_nosuid_nodev()). Notes say what was changed. 0, or -1 (out of
 * memory). OWNER_LEAVE without strip_ids: nothing changes; the caller
 * applies nosuid_nodev to an OWNER_LEAVE itself.
 */
int opts_apply_owner(char **opts, const struct owner_decision *d,
		     struct notes *notes);

#endif
