/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The request: mount(8)'s helper command line turned into one plain struct,
 * and the pure option-string operations done on it (H1, H3, H4, H5).
 */
#ifndef EXTOWN_REQUEST_H
#define EXTOWN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "msg.h"

#define REQUEST_UNKNOWN_MAX	8

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
	/*
	 * Flags this helper does not know (a later libmount may pass new
	 * ones): ignored, each named once in a warning. Stored as the
	 * argv words that held them.
	 */
	const char *unknown[REQUEST_UNKNOWN_MAX];
	size_t nunknown;
};

/*
 * The program name used in messages and the default filesystem type. Only the
 * three names the helper is installed under are believed; anything else in
 * argv[0] (which the caller of a setuid program controls) gives "mount.ext4".
 */
const char *request_progname(const char *argv0);

/*
 * Parse argv; 0, or -1 with a usage message in why. Keeps pointers into argv.
 * Unknown flags are not errors: they are listed in rq->unknown.
 */
int request_parse(struct request *rq, int argc, char *const argv[],
		  char *why, size_t whysz);

/*
 * Does every '"' in OPTS have its closing one? libmount reads everything
 * after an unpaired '"' as one quoted value, so options appended after it
 * (nosuid, nodev, uid=, gid=) would silently not reach the kernel.
 */
bool opts_quotes_balanced(const char *opts);

/*
 * Call CB for every option of OPTS in order (on a private copy; libmount's
 * iterator wants a writable string): NAME and VAL point into the copy, VAL
 * NULL when the option has no '='. CB returns non-zero to stop the walk.
 * The last CB result, 0, or -ENOMEM.
 */
typedef int (*opt_cb)(const char *name, size_t namesz, const char *val,
		      size_t valsz, void *data);
int opts_walk(const char *opts, opt_cb cb, void *data);

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
 * The presented id of the last NAME= ("uid" or "gid") in OPTS: N of "N" or
 * "N:M". 1 and *id set, 0 when there is none, -1 when it is malformed (or
 * out of memory).
 */
int opts_last_id(const char *opts, const char *name, uint32_t *id);

/*
 * An unprivileged caller's command-line options (ARGV_OPTS), checked against
 * what restricted mount(8) itself would pass for the fstab entry
 * (FSTAB_OPTS): every option must be written in the entry (same value), or
 * be rw or ro (mount -r / -w), or noexec, nosuid or nodev (which user,
 * users, owner and group imply), or "user" / "user=USERNAME" where the entry
 * says "user". mount(8) drops its privileges for any other option a user
 * gives, so accepting it would grant what mount(8) refuses. 0, or -1 with the
 * option named in why.
 */
int opts_check_user_argv(const char *argv_opts, const char *fstab_opts,
			 const char *username, char *why, size_t whysz);

/*
 * Remount, bind, move and propagation changes are not new mounts: the
 * helper passes them through as given (root) or refuses them (users, whom
 * mount(8) does not allow them either). The first such option in OPTS, or
 * NULL.
 */
const char *opts_passthrough(const char *opts);

/*
 * The source is already the loop device that mount(8) set up for an fstab
 * "loop" entry: remove loop, offset=, sizelimit= and encryption=, which
 * would make libmount set up a second loop device on top of it. 0 or -1.
 */
int opts_drop_loop(char **opts);

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
