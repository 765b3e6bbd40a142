/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The request: mount(8)'s helper command line turned into one plain struct,
 * and the pure option-string operations done on it (H1, H3, H4, H5).
 */
#ifndef EXTOWN_REQUEST_H
#define EXTOWN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "msg.h"

/*
 * mount(8) runs a helper as
 *	mount.TYPE SPEC DIR [-s] [-f] [-n] [-v] [-o OPTS] [-t TYPE.SUBTYPE] [-N NS]
 * (libmount exec_helper(), util-linux 2.38). -r and -w are accepted too, as
 * mount(8) itself does, so the helper can be run by hand.
 */
struct request {
	const char *progname;	/* "mount.ext4", "mount.ext3" or "mount.ext2" */
	const char *fstype;	/* "ext4", "ext3" or "ext2" */
	const char *source;
	const char *target;
	const char *options;	/* -o, NULL when absent */
	const char *ns;		/* -N, NULL when absent */
	bool sloppy, fake, nomtab, verbose, rdonly, rdwrite;
};

/*
 * The program name used in messages and the default filesystem type. Only the
 * three names the helper is installed under are believed; anything else in
 * argv[0] (which the caller of a setuid program controls) gives "mount.ext4".
 */
const char *request_progname(const char *argv0);

/* Parse argv; 0, or -1 with a usage message in why. Keeps pointers into argv. */
int request_parse(struct request *rq, int argc, char *const argv[],
		  char *why, size_t whysz);

/*
 * Does every '"' in OPTS have its closing one? libmount reads everything
 * after an unpaired '"' as one quoted value, so options appended after it
 * (nosuid, nodev, uid=, gid=) would silently not reach the kernel.
 */
bool opts_quotes_balanced(const char *opts);

/* Is option NAME (any value) present in the comma-separated OPTS? */
bool opts_has(const char *opts, const char *name);

/*
 * H4. Every uid= and gid= in OPTS (all occurrences: the kernel takes the last)
 * must be granted: written verbatim in GRANTED (the fstab entry's options,
 * may be NULL), or decimal "N" or "N:M" where every number is the caller's
 * uid (for uid=) or one of GIDS (for gid=). 0, or -1 with the reason in why.
 */
int opts_check_ids(const char *opts, const char *granted, uid_t uid,
		   const gid_t *gids, size_t ngids, char *why, size_t whysz);

/*
 * The options of an unprivileged user's mount: the fstab entry's options
 * (FSTAB_OPTS), plus from the command line (ARGV_OPTS) only what fstab grants
 * or what makes the mount more restrictive (ro, noexec, nosuid, nodev, the
 * atime family, sync, dirsync, nosymfollow) or uid=/gid= already checked by
 * opts_check_ids(). Anything else is dropped, with a note. "user" becomes
 * "user=USERNAME" so that umount(8) lets the user unmount it, and the
 * noexec,nosuid,nodev implied by user/users/owner/group are written out.
 * Returns 0 and a malloc'd string in *out, or -1 (out of memory).
 */
int opts_for_user_mount(const char *fstab_opts, const char *argv_opts,
			bool argv_rdonly, const char *username, char **out,
			struct notes *notes);

/*
 * Write out what user, users, owner and group imply, as mount(8) reads them:
 * each of noexec, nosuid, nodev unless a later exec, suid or dev says
 * otherwise. Every exec/noexec, suid/nosuid, dev/nodev is replaced by the one
 * that is in force. 0 or -1 (out of memory).
 */
int opts_resolve_user_implied(char **opts);

#endif
