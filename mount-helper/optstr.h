/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Option strings ("ro,nosuid,uid=1000"): reading them and composing them.
 * Every read and every change the helper makes to an option string is made
 * here, through the linked libmount's optstr functions (never a parser of
 * our own: libmount 2.38 and 2.41 read "\," differently, and the libmount
 * that mounts is the one whose reading counts); every change is read back
 * by libmount before it is kept. The other files only ask and decide.
 */
#ifndef EXTOWN_OPTSTR_H
#define EXTOWN_OPTSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/*
 * Call CB for every option of OPTS in order (on a private copy; libmount's
 * iterator wants a writable string): NAME and VAL point into the copy, VAL
 * NULL when the option has no '='. CB returns non-zero to stop the walk.
 * The last CB result, 0, or -ENOMEM.
 */
typedef int (*opt_cb)(const char *name, size_t namesz, const char *val,
		      size_t valsz, void *data);
int opts_walk(const char *opts, opt_cb cb, void *data);

/*
 * Would an option appended to OPTS be read by the linked libmount as an
 * option of its own? Asked of libmount itself (it appends a probe and reads
 * the string back), so the answer is the reading of whichever libmount the
 * helper runs with: an unpaired '"' makes libmount read the rest as one
 * quoted value (every version); an option ending in a backslash makes the
 * ',' after it an escaped one for libmount 2.40 and later, not for 2.38.
 * Either way nosuid, nodev, uid= and gid= appended would silently not reach
 * the kernel. NULL: true.
 */
bool opts_appendable(const char *opts);

/* Is option NAME (any value) present in the comma-separated OPTS? */
bool opts_has(const char *opts, const char *name);

/*
 * The value of the first NAME in OPTS: 0 with *val (not terminated) and
 * *valsz set (NULL, 0 without '='), 1 when there is none, <0 on error.
 */
int opts_get(const char *opts, const char *name, const char **val, size_t *valsz);

/* Is the option NAME (NAMESZ bytes) exactly WANT? */
bool opts_name_is(const char *name, size_t namesz, const char *want);

/* Does OPTS contain exactly NAME[=VAL] (same value, or both without)? */
bool opts_has_exact(const char *opts, const char *name, size_t namesz,
		    const char *val, size_t valsz);

/* One decimal id of at most 10 digits and below 2^32-1; 0 or -1. */
int opts_parse_id(const char *s, size_t n, uint32_t *id);

/*
 * The presented id of the last NAME= ("uid" or "gid") in OPTS: N of "N" or
 * "N:M". 1 and *id set, 0 when there is none, -1 when it is malformed (or
 * out of memory).
 */
int opts_last_id(const char *opts, const char *name, uint32_t *id);

/*
 * Remount, bind, move and propagation changes are not new mounts: the
 * helper passes them through as given (root) or refuses them (users, whom
 * mount(8) does not allow them either). The first such option in OPTS, or
 * NULL.
 */
const char *opts_passthrough(const char *opts);

/*
 * Append NAME[=VAL] (VAL NULL: no '=') with libmount, and read the result
 * back with libmount: -1 (errno EINVAL) and *OPTS unchanged when libmount
 * does not read the last option as exactly NAME[=VAL] (see
 * opts_appendable()); -1 (ENOMEM) out of memory; else 0.
 */
int opts_append(char **opts, const char *name, const char *val);

/* Append NAME (NAMESZ bytes) [=VAL (VALSZ bytes)]; 0 or -1. */
int opts_append_n(char **opts, const char *name, size_t namesz,
		  const char *val, size_t valsz);

/* Set the value of the first NAME to VAL, read back as in opts_append(); 0 or -1. */
int opts_set(char **opts, const char *name, const char *val);

/* Remove every NAME; how many were removed, or -1. */
int opts_remove_all(char **opts, const char *name);

/*
 * Root's options: OPTS (NULL: none) with "ro" appended for -r and "rw" for
 * -w, in a malloc'd *out. 0 or -1 (out of memory).
 */
int opts_from_command_line(const char *opts, bool rdonly, bool rdwrite, char **out);

/*
 * The source is already the loop device that mount(8) set up for an fstab
 * "loop" entry: remove loop, offset=, sizelimit= and encryption=, which
 * would make libmount set up a second loop device on top of it. 0 or -1.
 */
int opts_drop_loop(char **opts);

/*
 * Every X-mount.* and x-mount.* option (libmount's and mount(8)'s own:
 * mkdir, subdir, idmap, owner, group, mode, auto-fstypes, noloop,
 * nocanonicalize, and any later one) removed from *OPTS. The number
 * removed, or -1 (out of memory).
 */
int opts_drop_x_mount(char **opts);

/*
 * Replace suid and dev by nosuid and nodev (each added unless present), with
 * a note for each one removed. 0, or -1 (out of memory).
 */
int opts_force_nosuid_nodev(char **opts, struct notes *notes);

#endif
