// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * optstr.c - read and compose option strings.
 *
 * Pure: no I/O, no privileges, no global state. Option strings are handled
 * with libmount's optstr functions only, and only in this file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmount.h>

#include "optstr.h"

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

/*
 * Is the last option of OPTS, as the linked libmount reads OPTS, exactly
 * NAME[=VAL] (VAL NULL: without '=')? False when libmount cannot read OPTS.
 */
static bool last_option_is(const char *opts, const char *name, const char *val)
{
	char *copy, *next, *n, *v, *last = NULL, *lastval = NULL;
	size_t nsz, vsz, lastsz = 0, lastvalsz = 0;
	bool ok = false;
	int rc;

	copy = strdup(opts);
	if (!copy)
		return false;
	next = copy;
	while ((rc = mnt_optstr_next_option(&next, &n, &nsz, &v, &vsz)) == 0) {
		last = n;
		lastsz = nsz;
		lastval = v;
		lastvalsz = vsz;
	}
	if (rc == 1 && last && opts_name_is(last, lastsz, name) &&
	    (lastval != NULL) == (val != NULL))
		ok = !val || (lastvalsz == strlen(val) && strncmp(lastval, val, lastvalsz) == 0);
	free(copy);
	return ok;
}

/* a probe no option string carries: only its read-back matters */
#define APPEND_PROBE "x-extown-probe"

bool opts_appendable(const char *opts)
{
	char *copy = strdup(opts ? opts : "");
	bool ok;

	if (!copy)
		return false;
	ok = mnt_optstr_append_option(&copy, APPEND_PROBE, NULL) == 0 &&
	     last_option_is(copy, APPEND_PROBE, NULL);
	free(copy);
	return ok;
}

bool opts_has(const char *opts, const char *name)
{
	char *val;
	size_t valsz;

	return opts && mnt_optstr_get_option(opts, name, &val, &valsz) == 0;
}

int opts_get(const char *opts, const char *name, const char **val, size_t *valsz)
{
	char *v = NULL;
	int rc;

	*val = NULL;
	*valsz = 0;
	if (!opts)
		return 1;
	rc = mnt_optstr_get_option(opts, name, &v, valsz);
	if (rc == 0)
		*val = v;
	return rc;
}

bool opts_name_is(const char *name, size_t namesz, const char *want)
{
	return namesz == strlen(want) && strncmp(name, want, namesz) == 0;
}

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

bool opts_has_exact(const char *opts, const char *name, size_t namesz,
		    const char *val, size_t valsz)
{
	struct find_exact f = { name, val, namesz, valsz, false };

	opts_walk(opts, find_exact_cb, &f);
	return f.found;
}

int opts_parse_id(const char *s, size_t n, uint32_t *id)
{
	uint64_t v = 0;

	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	/* (uid_t)-1 is invalid */
	if (v >= UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
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

	if (!opts_name_is(name, namesz, l->name))
		return 0;
	colon = val ? memchr(val, ':', valsz) : NULL;
	if (colon)
		valsz = (size_t)(colon - val);
	l->rc = val && opts_parse_id(val, valsz, &l->id) == 0 ? 1 : -1;
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

int opts_append(char **opts, const char *name, const char *val)
{
	char *copy = strdup(*opts ? *opts : "");

	if (!copy)
		return -1;
	/* written by libmount, and read back by it as written: an option
	 * before it that runs on (an unpaired '"'; a trailing backslash,
	 * which makes the ',' an escaped one for libmount 2.40 and later)
	 * would swallow it */
	if (mnt_optstr_append_option(&copy, name, val) ||
	    !last_option_is(copy, name, val)) {
		free(copy);
		errno = EINVAL;
		return -1;
	}
	free(*opts);
	*opts = copy;
	return 0;
}

int opts_append_n(char **opts, const char *name, size_t namesz,
		  const char *val, size_t valsz)
{
	char *n = strndup(name, namesz);
	char *v = val ? strndup(val, valsz) : NULL;
	int rc = (!n || (val && !v)) ? -1 : opts_append(opts, n, v);

	free(n);
	free(v);
	return rc;
}

int opts_set(char **opts, const char *name, const char *val)
{
	const char *got;
	size_t gotsz;

	if (mnt_optstr_set_option(opts, name, val))
		return -1;
	/* read back: the first NAME carries VAL, as libmount reads it */
	if (opts_get(*opts, name, &got, &gotsz) != 0 || (got != NULL) != (val != NULL) ||
	    (val && (gotsz != strlen(val) || strncmp(got, val, gotsz) != 0))) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int opts_remove_all(char **opts, const char *name)
{
	int rc, n = 0;

	while ((rc = mnt_optstr_remove_option(opts, name)) == 0)
		n++;
	return rc < 0 ? -1 : n;
}

int opts_from_command_line(const char *opts, bool rdonly, bool rdwrite, char **out)
{
	*out = strdup(opts ? opts : "");
	if (*out && rdonly && opts_append(out, "ro", NULL))
		return -1;
	if (*out && rdwrite && opts_append(out, "rw", NULL))
		return -1;
	return *out ? 0 : -1;
}

int opts_drop_loop(char **opts)
{
	static const char *const names[] = { "loop", "offset", "sizelimit", "encryption" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (opts_remove_all(opts, names[i]) < 0)
			return -1;
	return 0;
}

/* opts_drop_x_mount(): the first X-mount.* / x-mount.* name, copied to DATA */
static int first_x_mount(const char *name, size_t namesz, const char *val, size_t valsz,
			 void *data)
{
	char **found = data;

	(void)val;
	(void)valsz;
	if (namesz <= 8 || (strncmp(name, "X-mount.", 8) && strncmp(name, "x-mount.", 8)))
		return 0;
	*found = strndup(name, namesz);
	return *found ? 1 : -ENOMEM;
}

int opts_drop_x_mount(char **opts)
{
	int n = 0;

	for (;;) {
		char *name = NULL;
		int rc = opts_walk(*opts, first_x_mount, &name), gone;

		if (rc < 0)
			return -1;
		if (!name)
			return n;
		gone = opts_remove_all(opts, name);
		free(name);
		if (gone <= 0)
			return -1;	/* libmount would not remove what it read */
		n += gone;
	}
}

int opts_force_nosuid_nodev(char **opts, struct notes *notes)
{
	int n;

	n = opts_remove_all(opts, "suid");
	if (n < 0)
		return -1;
	if (n)
		notes_add(notes, "removed 'suid': files presented as the user's "
			  "must not run setuid");
	n = opts_remove_all(opts, "dev");
	if (n < 0)
		return -1;
	if (n)
		notes_add(notes, "removed 'dev': device nodes presented as the "
			  "user's would give raw device access");
	if (!opts_has(*opts, "nosuid") && opts_append(opts, "nosuid", NULL))
		return -1;
	if (!opts_has(*opts, "nodev") && opts_append(opts, "nodev", NULL))
		return -1;
	return 0;
}
