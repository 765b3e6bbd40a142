/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An unprivileged user's mount, as restricted (non-root) mount(8) would do
 * it for an fstab "user", "users", "owner" or "group" entry: which options
 * the user may give (H4, H8), and the options mounted (H3).
 */
#ifndef EXTOWN_RESTRICTED_H
#define EXTOWN_RESTRICTED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "msg.h"

/*
 * H4. Every uid= and gid= in OPTS (all occurrences: the kernel takes the last)
 * must be granted: written verbatim in GRANTED (the fstab entry's options,
 * may be NULL), or decimal "N" or "N:M" where every number is the caller's
 * uid (for uid=) or one of GIDS (for gid=). 0, or -1 with the reason in why.
 */
int opts_check_ids(const char *opts, const char *granted, uid_t uid,
		   const gid_t *gids, size_t ngids, char *why, size_t whysz);

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
