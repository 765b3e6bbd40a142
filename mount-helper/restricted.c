// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * restricted.c - what restricted (non-root) mount(8) would allow a user and
 * pass for an fstab user entry, emulated for the setuid helper.
 *
 * Pure: no I/O, no privileges, no global state. Option strings are read and
 * composed through optstr.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "optstr.h"
#include "restricted.h"

/* Does the entry grant through "owner" or "group" (mount(8) then passes "user")? */
static bool fstab_owner_group(const char *fstab)
{
	return opts_has_exact(fstab, "owner", 5, NULL, 0) ||
	       opts_has_exact(fstab, "group", 5, NULL, 0);
}

struct check_ids {
	const char *granted;
	uid_t uid;
	const gid_t *gids;
	size_t ngids;
	char *why;
	size_t whysz;
	int rc;
};

static bool gid_allowed(const struct check_ids *c, uint32_t id)
{
	for (size_t i = 0; i < c->ngids; i++)
		if (c->gids[i] == id)
			return true;
	return false;
}

static int check_ids_cb(const char *name, size_t namesz, const char *val,
			size_t valsz, void *data)
{
	struct check_ids *c = data;
	bool is_uid = opts_name_is(name, namesz, "uid");
	const char *colon;
	size_t partsz[2];
	const char *part[2];
	int nparts = 1;

	if (!is_uid && !opts_name_is(name, namesz, "gid"))
		return 0;
	if (opts_has_exact(c->granted, name, namesz, val, valsz))
		return 0;	/* the administrator wrote this very option in fstab */

	if (!val || valsz == 0) {
		c->rc = fail(c->why, c->whysz, "option %.*s needs a value",
			     (int)namesz, name);
		return 1;
	}
	part[0] = val;
	partsz[0] = valsz;
	colon = memchr(val, ':', valsz);
	if (colon) {
		partsz[0] = (size_t)(colon - val);
		part[1] = colon + 1;
		partsz[1] = valsz - partsz[0] - 1;
		nparts = 2;
	}
	for (int i = 0; i < nparts; i++) {
		uint32_t id;

		if (opts_parse_id(part[i], partsz[i], &id) != 0) {
			c->rc = fail(c->why, c->whysz,
				     "option %.*s=%.*s: not N or N:M with decimal ids",
				     (int)namesz, name, (int)valsz, val);
			return 1;
		}
		if (is_uid ? id != c->uid : !gid_allowed(c, id)) {
			c->rc = fail(c->why, c->whysz,
				     "option %.*s=%.*s refused: only root may mount with "
				     "a %s that is not the caller's own",
				     (int)namesz, name, (int)valsz, val,
				     is_uid ? "uid" : "gid");
			return 1;
		}
	}
	return 0;
}

int opts_check_ids(const char *opts, const char *granted, uid_t uid,
		   const gid_t *gids, size_t ngids, char *why, size_t whysz)
{
	struct check_ids c = { granted, uid, gids, ngids, why, whysz, 0 };
	int rc = opts_walk(opts, check_ids_cb, &c);

	if (rc < 0)
		return fail(why, whysz, "out of memory");
	return c.rc;
}

/* Options that only ever make a user's mount more restrictive. */
static bool is_restrictive(const char *name, size_t namesz)
{
	static const char *const names[] = {
		"ro", "noexec", "nosuid", "nodev", "noatime", "nodiratime",
		"relatime", "sync", "dirsync", "nosymfollow", "silent", "loud",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (opts_name_is(name, namesz, names[i]))
			return true;
	return false;
}

static bool is_userish(const char *name, size_t namesz)
{
	return opts_name_is(name, namesz, "user") || opts_name_is(name, namesz, "users") ||
	       opts_name_is(name, namesz, "owner") || opts_name_is(name, namesz, "group");
}

enum { UNSET, POSITIVE, NEGATIVE };

struct implied {
	int state[3];		/* exec, suid, dev */
};

static const char *const implied_pos[3] = { "exec", "suid", "dev" };
static const char *const implied_neg[3] = { "noexec", "nosuid", "nodev" };

static int implied_cb(const char *name, size_t namesz, const char *val,
		      size_t valsz, void *data)
{
	struct implied *im = data;

	(void)valsz;
	if (is_userish(name, namesz)) {
		/* user and users imply noexec too, owner and group do not */
		bool exec_too = opts_name_is(name, namesz, "user") || opts_name_is(name, namesz, "users");

		for (int i = exec_too ? 0 : 1; i < 3; i++)
			im->state[i] = NEGATIVE;
		return 0;
	}
	if (val)		/* "dev=x" is not the dev flag */
		return 0;
	for (int i = 0; i < 3; i++) {
		if (opts_name_is(name, namesz, implied_pos[i]))
			im->state[i] = POSITIVE;
		else if (opts_name_is(name, namesz, implied_neg[i]))
			im->state[i] = NEGATIVE;
	}
	return 0;
}

int opts_resolve_user_implied(char **opts)
{
	struct implied im = { { UNSET, UNSET, UNSET } };

	if (opts_walk(*opts, implied_cb, &im) < 0)
		return -1;
	for (int i = 0; i < 3; i++) {
		if (im.state[i] == UNSET)
			continue;
		if (opts_remove_all(opts, implied_pos[i]) < 0 ||
		    opts_remove_all(opts, implied_neg[i]) < 0)
			return -1;
		if (opts_append(opts, im.state[i] == POSITIVE ?
				implied_pos[i] : implied_neg[i], NULL))
			return -1;
	}
	return 0;
}

struct user_merge {
	const char *fstab;
	char **out;
	struct notes *notes;
	int rc;
};

static int user_merge_cb(const char *name, size_t namesz, const char *val,
			 size_t valsz, void *data)
{
	struct user_merge *m = data;

	if (opts_has_exact(m->fstab, name, namesz, val, valsz))
		return 0;			/* granted by fstab, already there */
	if (opts_name_is(name, namesz, "user"))
		return 0;	/* mount(8)'s record of the grant: user=NAME below */
	if (opts_name_is(name, namesz, "rw") && !val)
		return 0;			/* the default; fstab's ro wins */
	if ((opts_name_is(name, namesz, "uid") || opts_name_is(name, namesz, "gid")) ||
	    (is_restrictive(name, namesz) && !val)) {
		if (opts_name_is(name, namesz, "ro") && opts_remove_all(m->out, "rw") < 0)
			goto oom;
		if (opts_append_n(m->out, name, namesz, val, valsz))
			goto oom;
		return 0;
	}
	notes_add(m->notes, "ignored option '%.*s%s%.*s': not granted by the fstab entry",
		  (int)namesz, name, val ? "=" : "", val ? (int)valsz : 0, val ? val : "");
	return 0;
oom:
	m->rc = -1;
	return 1;
}

int opts_for_user_mount(const char *fstab_opts, const char *argv_opts,
			bool argv_rdonly, const char *username, char **out,
			struct notes *notes)
{
	struct user_merge m = { fstab_opts, out, notes, 0 };
	const char *val;
	size_t valsz;

	*out = strdup(fstab_opts ? fstab_opts : "");
	if (!*out)
		return -1;
	if (opts_walk(argv_opts, user_merge_cb, &m) < 0 || m.rc)
		goto oom;
	if (argv_rdonly && !opts_has(*out, "ro") &&
	    (opts_remove_all(out, "rw") < 0 || opts_append(out, "ro", NULL)))
		goto oom;
	if (opts_resolve_user_implied(out))
		goto oom;
	if (username && opts_get(*out, "user", &val, &valsz) == 0) {
		if (valsz == 0 && opts_set(out, "user", username))
			goto oom;
	} else if (username && fstab_owner_group(fstab_opts) &&
		   opts_has_exact(argv_opts, "user", 4, NULL, 0) &&
		   opts_append(out, "user", username)) {
		goto oom;	/* an owner or group grant, recorded as mount(8) does */
	}
	return 0;
oom:
	free(*out);
	*out = NULL;
	return -1;
}

/* Options restricted mount(8) passes for every user entry. */
static bool is_user_mount_default(const char *name, size_t namesz, const char *val)
{
	static const char *const names[] = { "rw", "ro", "noexec", "nosuid", "nodev" };

	if (val)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (opts_name_is(name, namesz, names[i]))
			return true;
	return false;
}

struct user_argv {
	const char *fstab;
	const char *username;
	bool fstab_ro;		/* the entry's last ro/rw is ro */
	bool user_mount;	/* saw user, user=NAME or users */
	char *why;
	size_t whysz;
	int rc;
};

static int last_ro_cb(const char *name, size_t namesz, const char *val,
		      size_t valsz, void *data)
{
	bool *ro = data;

	(void)valsz;
	if (!val && opts_name_is(name, namesz, "ro"))
		*ro = true;
	else if (!val && opts_name_is(name, namesz, "rw"))
		*ro = false;
	return 0;
}

static int user_argv_cb(const char *name, size_t namesz, const char *val,
			size_t valsz, void *data)
{
	struct user_argv *u = data;

	if (opts_name_is(name, namesz, "users") || opts_name_is(name, namesz, "user"))
		u->user_mount = true;
	/* mount(8) passes rw for an "ro" entry only to a request it refuses (-w) */
	if (opts_name_is(name, namesz, "rw") && !val && u->fstab_ro)
		goto refuse;
	if (opts_has_exact(u->fstab, name, namesz, val, valsz) ||
	    is_user_mount_default(name, namesz, val))
		return 0;
	/* owner and group do not imply noexec: with the "user" that records
	 * their grant, mount(8) spells "exec" out */
	if (opts_name_is(name, namesz, "exec") && !val && fstab_owner_group(u->fstab))
		return 0;
	/* mount(8) passes "user" for user, owner and group entries; older
	 * versions "user=NAME" */
	if (opts_name_is(name, namesz, "user") &&
	    (opts_has_exact(u->fstab, "user", 4, NULL, 0) || fstab_owner_group(u->fstab)) &&
	    (!val || (u->username && valsz == strlen(u->username) &&
		      strncmp(val, u->username, valsz) == 0)))
		return 0;
refuse:
	u->rc = fail(u->why, u->whysz, "option '%.*s%s%.*s' refused: it is not in the "
		     "fstab entry, and users may not add mount options (mount(8) "
		     "refuses them too)", (int)namesz, name, val ? "=" : "",
		     val ? (int)valsz : 0, val ? val : "");
	return 1;
}

int opts_check_user_argv(const char *argv_opts, const char *fstab_opts,
			 const char *username, char *why, size_t whysz)
{
	struct user_argv u = { fstab_opts, username, false, false, why, whysz, 0 };

	if (opts_walk(fstab_opts, last_ro_cb, &u.fstab_ro) < 0 ||
	    opts_walk(argv_opts, user_argv_cb, &u) < 0)
		return fail(why, whysz, "out of memory");
	if (!u.rc && !u.user_mount)
		u.rc = fail(why, whysz, "no user or users option: mount(8) runs the helper "
			    "so only for a request it does not grant to users");
	return u.rc;
}

