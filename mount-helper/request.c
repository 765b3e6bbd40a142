// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request.c - mount(8)'s helper command line and the option strings.
 *
 * Pure: no I/O, no privileges, no global state. Option strings are handled
 * with libmount's optstr functions only.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmount.h>

#include "request.h"

void notes_add(struct notes *notes, const char *fmt, ...)
{
	va_list ap;

	if (!notes || notes->n >= NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(notes->line[notes->n], NOTE_LEN, fmt, ap);
	va_end(ap);
	notes->n++;
}

int fail(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	if (why && whysz) {
		va_start(ap, fmt);
		vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *request_progname(const char *argv0)
{
	static const char *const names[] = { "mount.ext4", "mount.ext3", "mount.ext2" };
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	base = base ? base + 1 : argv0;
	for (size_t i = 0; base && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i]) == 0)
			return names[i];
	return names[0];
}

static const char *type_of_progname(const char *progname)
{
	return progname + strlen("mount.");
}

/* -t ext4 or -t ext4.SUBTYPE (mount(8) passes -t only with a subtype) */
static int parse_type(struct request *rq, const char *arg, char *why, size_t whysz)
{
	static const char *const types[] = { "ext4", "ext3", "ext2" };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = strlen(types[i]);

		if (strncmp(arg, types[i], n) == 0 && (arg[n] == '\0' || arg[n] == '.')) {
			rq->fstype = types[i];
			return 0;
		}
	}
	return fail(why, whysz, "unsupported filesystem type '%s'", arg);
}

/* remember an argv word with an unknown flag, once */
static void note_unknown(struct request *rq, const char *word)
{
	for (size_t i = 0; i < rq->nunknown; i++)
		if (rq->unknown[i] == word)
			return;
	if (rq->nunknown < REQUEST_UNKNOWN_MAX)
		rq->unknown[rq->nunknown++] = word;
}

int request_parse(struct request *rq, int argc, char *const argv[],
		  char *why, size_t whysz)
{
	int npos = 0;

	memset(rq, 0, sizeof(*rq));
	rq->progname = request_progname(argc > 0 ? argv[0] : NULL);
	rq->fstype = type_of_progname(rq->progname);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || a[1] == '\0') {
			if (npos == 0)
				rq->source = a;
			else if (npos == 1)
				rq->target = a;
			else
				return fail(why, whysz, "unexpected argument '%s'", a);
			npos++;
			continue;
		}
		if (a[1] == '-') {
			/* no long options today: a later mount(8) may add some */
			note_unknown(rq, a);
			continue;
		}

		for (const char *c = a + 1; *c; c++) {
			const char *arg;

			switch (*c) {
			case 's': rq->sloppy = true; continue;
			case 'f': rq->fake = true; continue;
			case 'n': rq->nomtab = true; continue;
			case 'v': rq->verbose = true; continue;
			case 'r': rq->rdonly = true; rq->rdwrite = false; continue;
			case 'w': rq->rdwrite = true; rq->rdonly = false; continue;
			case 'o': case 't': case 'N':
				break;
			default:
				note_unknown(rq, a);
				continue;
			}
			/* an option with an argument: rest of this word or the next one */
			if (c[1])
				arg = c + 1;
			else if (i + 1 < argc)
				arg = argv[++i];
			else
				return fail(why, whysz, "option '-%c' requires an argument", *c);

			if (*c == 'o') {
				if (rq->options)
					return fail(why, whysz, "option '-o' given twice");
				rq->options = arg;
			} else if (*c == 't') {
				if (parse_type(rq, arg, why, whysz))
					return -1;
			} else {
				rq->ns = arg;
			}
			break;
		}
	}
	if (npos < 2)
		return fail(why, whysz, "expected SOURCE and DIRECTORY "
			    "(usage: %s SPEC DIR [-sfnvrw] [-N NS] [-o OPTS] [-t TYPE])",
			    rq->progname);
	if (!*rq->source || !*rq->target)
		return fail(why, whysz, "empty source or directory");
	return 0;
}

int opts_walk(const char *opts, opt_cb cb, void *data)
{
	char *copy, *next, *name, *val;
	size_t namesz, valsz;
	int rc = 0;

	if (!opts)
		return 0;
	copy = strdup(opts);
	if (!copy)
		return -ENOMEM;
	next = copy;
	while (mnt_optstr_next_option(&next, &name, &namesz, &val, &valsz) == 0) {
		rc = cb(name, namesz, val, valsz, data);
		if (rc)
			break;
	}
	free(copy);
	return rc;
}

bool opts_quotes_balanced(const char *opts)
{
	bool open = false;

	for (; opts && *opts; opts++)
		if (*opts == '"')
			open = !open;
	return !open;
}

bool opts_has(const char *opts, const char *name)
{
	char *val;
	size_t valsz;

	return opts && mnt_optstr_get_option(opts, name, &val, &valsz) == 0;
}

static bool name_is(const char *name, size_t namesz, const char *want)
{
	return namesz == strlen(want) && strncmp(name, want, namesz) == 0;
}

/* Does OPTS contain exactly NAME[=VAL] (same value, or both without)? */
struct find_exact {
	const char *name, *val;
	size_t namesz, valsz;
	bool found;
};

static int find_exact_cb(const char *name, size_t namesz, const char *val,
			 size_t valsz, void *data)
{
	struct find_exact *f = data;

	if (namesz == f->namesz && strncmp(name, f->name, namesz) == 0 &&
	    (val != NULL) == (f->val != NULL) &&
	    (!val || (valsz == f->valsz && strncmp(val, f->val, valsz) == 0))) {
		f->found = true;
		return 1;
	}
	return 0;
}

static bool opts_has_exact(const char *opts, const char *name, size_t namesz,
			   const char *val, size_t valsz)
{
	struct find_exact f = { name, val, namesz, valsz, false };

	opts_walk(opts, find_exact_cb, &f);
	return f.found;
}

/* Does the entry grant through "owner" or "group" (mount(8) then passes "user")? */
static bool fstab_owner_group(const char *fstab)
{
	return opts_has_exact(fstab, "owner", 5, NULL, 0) ||
	       opts_has_exact(fstab, "group", 5, NULL, 0);
}

/* One decimal id of at most 10 digits and below 2^32-1 ((uid_t)-1 is invalid). */
static int parse_id(const char *s, size_t n, uint32_t *id)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
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
	bool is_uid = name_is(name, namesz, "uid");
	const char *colon;
	size_t partsz[2];
	const char *part[2];
	int nparts = 1;

	if (!is_uid && !name_is(name, namesz, "gid"))
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

		if (parse_id(part[i], partsz[i], &id) != 0) {
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

struct last_id {
	const char *name;
	uint32_t id;
	int rc;
};

static int last_id_cb(const char *name, size_t namesz, const char *val,
		      size_t valsz, void *data)
{
	struct last_id *l = data;
	const char *colon;

	if (!name_is(name, namesz, l->name))
		return 0;
	colon = val ? memchr(val, ':', valsz) : NULL;
	if (colon)
		valsz = (size_t)(colon - val);
	l->rc = val && parse_id(val, valsz, &l->id) == 0 ? 1 : -1;
	return 0;
}

int opts_last_id(const char *opts, const char *name, uint32_t *id)
{
	struct last_id l = { name, 0, 0 };

	if (opts_walk(opts, last_id_cb, &l) < 0)
		return -1;
	if (l.rc == 1)
		*id = l.id;
	return l.rc;
}

/* Options that only ever make a user's mount more restrictive. */
static bool is_restrictive(const char *name, size_t namesz)
{
	static const char *const names[] = {
		"ro", "noexec", "nosuid", "nodev", "noatime", "nodiratime",
		"relatime", "sync", "dirsync", "nosymfollow", "silent", "loud",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name_is(name, namesz, names[i]))
			return true;
	return false;
}

/* Remove every occurrence of NAME; 0 or -1. */
static int remove_all(char **opts, const char *name)
{
	int rc;

	while ((rc = mnt_optstr_remove_option(opts, name)) == 0)
		;
	return rc < 0 ? -1 : 0;
}

static bool is_userish(const char *name, size_t namesz)
{
	return name_is(name, namesz, "user") || name_is(name, namesz, "users") ||
	       name_is(name, namesz, "owner") || name_is(name, namesz, "group");
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
		bool exec_too = name_is(name, namesz, "user") || name_is(name, namesz, "users");

		for (int i = exec_too ? 0 : 1; i < 3; i++)
			im->state[i] = NEGATIVE;
		return 0;
	}
	if (val)		/* "dev=x" is not the dev flag */
		return 0;
	for (int i = 0; i < 3; i++) {
		if (name_is(name, namesz, implied_pos[i]))
			im->state[i] = POSITIVE;
		else if (name_is(name, namesz, implied_neg[i]))
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
		if (remove_all(opts, implied_pos[i]) || remove_all(opts, implied_neg[i]))
			return -1;
		if (mnt_optstr_append_option(opts, im.state[i] == POSITIVE ?
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

static int append_n(char **out, const char *name, size_t namesz,
		    const char *val, size_t valsz)
{
	char *n = strndup(name, namesz);
	char *v = val ? strndup(val, valsz) : NULL;
	int rc = (!n || (val && !v)) ? -1 : mnt_optstr_append_option(out, n, v);

	free(n);
	free(v);
	return rc ? -1 : 0;
}

static int user_merge_cb(const char *name, size_t namesz, const char *val,
			 size_t valsz, void *data)
{
	struct user_merge *m = data;

	if (opts_has_exact(m->fstab, name, namesz, val, valsz))
		return 0;			/* granted by fstab, already there */
	if (name_is(name, namesz, "user"))
		return 0;	/* mount(8)'s record of the grant: user=NAME below */
	if (name_is(name, namesz, "rw") && !val)
		return 0;			/* the default; fstab's ro wins */
	if ((name_is(name, namesz, "uid") || name_is(name, namesz, "gid")) ||
	    (is_restrictive(name, namesz) && !val)) {
		if (name_is(name, namesz, "ro") && remove_all(m->out, "rw"))
			goto oom;
		if (append_n(m->out, name, namesz, val, valsz))
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
	char *val;
	size_t valsz;

	*out = strdup(fstab_opts ? fstab_opts : "");
	if (!*out)
		return -1;
	if (opts_walk(argv_opts, user_merge_cb, &m) < 0 || m.rc)
		goto oom;
	if (argv_rdonly && !opts_has(*out, "ro") &&
	    (remove_all(out, "rw") || mnt_optstr_append_option(out, "ro", NULL)))
		goto oom;
	if (opts_resolve_user_implied(out))
		goto oom;
	if (username && mnt_optstr_get_option(*out, "user", &val, &valsz) == 0) {
		if (valsz == 0 && mnt_optstr_set_option(out, "user", username))
			goto oom;
	} else if (username && fstab_owner_group(fstab_opts) &&
		   opts_has_exact(argv_opts, "user", 4, NULL, 0) &&
		   mnt_optstr_append_option(out, "user", username)) {
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
		if (name_is(name, namesz, names[i]))
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
	if (!val && name_is(name, namesz, "ro"))
		*ro = true;
	else if (!val && name_is(name, namesz, "rw"))
		*ro = false;
	return 0;
}

static int user_argv_cb(const char *name, size_t namesz, const char *val,
			size_t valsz, void *data)
{
	struct user_argv *u = data;

	if (name_is(name, namesz, "users") || name_is(name, namesz, "user"))
		u->user_mount = true;
	/* mount(8) passes rw for an "ro" entry only to a request it refuses (-w) */
	if (name_is(name, namesz, "rw") && !val && u->fstab_ro)
		goto refuse;
	if (opts_has_exact(u->fstab, name, namesz, val, valsz) ||
	    is_user_mount_default(name, namesz, val))
		return 0;
	/* owner and group do not imply noexec: with the "user" that records
	 * their grant, mount(8) spells "exec" out */
	if (name_is(name, namesz, "exec") && !val && fstab_owner_group(u->fstab))
		return 0;
	/* mount(8) passes "user" for user, owner and group entries; older
	 * versions "user=NAME" */
	if (name_is(name, namesz, "user") &&
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

const char *opts_passthrough(const char *opts)
{
	static const char *const names[] = {
		"remount", "bind", "rbind", "move",
		"shared", "rshared", "slave", "rslave", "private", "rprivate",
		"unbindable", "runbindable",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (opts_has(opts, names[i]))
			return names[i];
	return NULL;
}

int opts_drop_loop(char **opts)
{
	static const char *const names[] = { "loop", "offset", "sizelimit", "encryption" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (remove_all(opts, names[i]))
			return -1;
	return 0;
}
