// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy.c - /etc/extown.conf: strict parser and loader. See extown.conf(5).
 *
 *	# comment
 *	enabled = yes | no
 *	idmap-fallback = yes | no
 *	allow-uuid = 0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6b	(repeatable)
 *	deny-uuid = ...						(repeatable)
 *	allow-group = plugdev | 46				(repeatable)
 *	default-owner = alice | alice:users | 1000:1000
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "policy.h"

#define LINE_MAX_LEN	1024

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
	p->idmap_fallback = true;
}

void policy_init_closed(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = false;
	p->broken = true;
}

static bool is_uuid(const char *s)
{
	static const char pattern[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (strlen(s) != POLICY_UUID_LEN)
		return false;
	for (size_t i = 0; i < POLICY_UUID_LEN; i++) {
		if (pattern[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

bool policy_uuid_listed(const char list[][POLICY_UUID_LEN + 1], size_t n,
			const char *uuid)
{
	if (!uuid || !*uuid)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(list[i], uuid) == 0)
			return true;
	return false;
}

/* decimal id below 2^32-1, no sign, no spaces */
static bool parse_id(const char *s, uint32_t *id)
{
	uint64_t v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* user and group names as useradd(8) accepts them (portable subset) */
static bool is_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32 || s[0] == '-' || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.' &&
		    !(c == '$' && i == n - 1))
			return false;
	}
	return true;
}

static int parse_group(const char *v, const struct policy_names *names, gid_t *gid,
		       unsigned lineno, char *why, size_t whysz)
{
	uint32_t id;

	if (parse_id(v, &id)) {
		*gid = id;
		return 0;
	}
	if (!is_name(v))
		return fail(why, whysz, "line %u: '%s' is not a group name or gid", lineno, v);
	if (!names || !names->group || names->group(v, gid) != 0)
		return fail(why, whysz, "line %u: no such group '%s'", lineno, v);
	return 0;
}

static int parse_owner(struct policy *p, char *v, const struct policy_names *names,
		       unsigned lineno, char *why, size_t whysz)
{
	char *colon = strchr(v, ':');
	uint32_t id;
	gid_t primary = 0;

	if (colon)
		*colon = '\0';
	if (parse_id(v, &id)) {
		if (!colon)
			return fail(why, whysz, "line %u: default-owner with a numeric "
				    "uid needs a gid too (UID:GID)", lineno);
		p->default_uid = id;
	} else if (is_name(v)) {
		if (!names || !names->user || names->user(v, &p->default_uid, &primary) != 0)
			return fail(why, whysz, "line %u: no such user '%s'", lineno, v);
	} else {
		return fail(why, whysz, "line %u: '%s' is not a user name or uid", lineno, v);
	}
	if (colon) {
		if (strchr(colon + 1, ':'))
			return fail(why, whysz, "line %u: default-owner has more than one ':'",
				    lineno);
		if (parse_group(colon + 1, names, &p->default_gid, lineno, why, whysz))
			return -1;
	} else {
		p->default_gid = primary;
	}
	p->has_default_owner = true;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* the keys that may be given once */
enum { SEEN_ENABLED = 1, SEEN_IDMAP = 2 };

static int parse_yes_no(bool *dst, const char *key, const char *val, unsigned bit,
			unsigned *seen, unsigned lineno, char *why, size_t whysz)
{
	if (*seen & bit)
		return fail(why, whysz, "line %u: '%s' given twice", lineno, key);
	*seen |= bit;
	if (strcmp(val, "yes") == 0)
		*dst = true;
	else if (strcmp(val, "no") == 0)
		*dst = false;
	else
		return fail(why, whysz, "line %u: %s must be 'yes' or 'no', not '%s'",
			    lineno, key, val);
	return 0;
}

static int parse_line(struct policy *p, char *line, unsigned lineno,
		      const struct policy_names *names, unsigned *seen,
		      char *why, size_t whysz)
{
	char *eq, *key, *val;

	line = trim(line);
	if (*line == '\0' || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return fail(why, whysz, "line %u: expected 'key = value'", lineno);
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (*val == '\0')
		return fail(why, whysz, "line %u: '%s' has no value", lineno, key);
	for (char *c = val; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '#' || !isprint((unsigned char)*c))
			return fail(why, whysz, "line %u: one value per line, no spaces "
				    "or comments after it", lineno);

	if (strcmp(key, "enabled") == 0) {
		return parse_yes_no(&p->enabled, key, val, SEEN_ENABLED, seen, lineno,
				    why, whysz);
	} else if (strcmp(key, "idmap-fallback") == 0) {
		return parse_yes_no(&p->idmap_fallback, key, val, SEEN_IDMAP, seen, lineno,
				    why, whysz);
	} else if (strcmp(key, "allow-uuid") == 0 || strcmp(key, "deny-uuid") == 0) {
		bool allow = key[0] == 'a';
		size_t *n = allow ? &p->n_allow_uuid : &p->n_deny_uuid;
		char (*list)[POLICY_UUID_LEN + 1] = allow ? p->allow_uuid : p->deny_uuid;

		if (!is_uuid(val))
			return fail(why, whysz, "line %u: '%s' is not a filesystem UUID "
				    "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", lineno, val);
		if (*n >= POLICY_LIST_MAX)
			return fail(why, whysz, "line %u: more than %d %s lines", lineno,
				    POLICY_LIST_MAX, key);
		memcpy(list[(*n)++], val, POLICY_UUID_LEN + 1);
	} else if (strcmp(key, "allow-group") == 0) {
		if (p->n_allow_group >= POLICY_LIST_MAX)
			return fail(why, whysz, "line %u: more than %d allow-group lines",
				    lineno, POLICY_LIST_MAX);
		if (parse_group(val, names, &p->allow_group[p->n_allow_group], lineno,
				why, whysz))
			return -1;
		p->n_allow_group++;
	} else if (strcmp(key, "default-owner") == 0) {
		if (p->has_default_owner)
			return fail(why, whysz, "line %u: 'default-owner' given twice", lineno);
		return parse_owner(p, val, names, lineno, why, whysz);
	} else {
		return fail(why, whysz, "line %u: unknown key '%s'", lineno, key);
	}
	return 0;
}

int policy_parse(struct policy *p, const char *text,
		 const struct policy_names *names, char *why, size_t whysz)
{
	char line[LINE_MAX_LEN + 1];
	unsigned seen = 0, lineno = 0;
	const char *s = text;

	policy_init(p);
	/* a UTF-8 byte order mark, as some editors write one */
	if (s && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		lineno++;
		if (len > LINE_MAX_LEN) {
			fail(why, whysz, "line %u: longer than %d characters", lineno,
			     LINE_MAX_LEN);
			goto bad;
		}
		if (memchr(s, '\0', len)) {
			fail(why, whysz, "line %u: contains a NUL byte", lineno);
			goto bad;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		if (parse_line(p, line, lineno, names, &seen, why, whysz))
			goto bad;
		s = nl ? nl + 1 : s + len;
	}
	return 0;
bad:
	policy_init(p);
	return -1;
}

/* root owns it and nobody else may change it (a sticky directory may be
 * writable by all: its root-owned entries stay root's) */
static bool trusted_stat(const struct stat *st)
{
	if (st->st_uid != 0)
		return false;
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return true;
	return !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Every directory from / down to the file REAL (a canonical path) and the
 * file itself are trusted, and the file is the one FD holds.
 */
static int check_trusted_path(const char *real, const struct stat *fdst,
			      char *why, size_t whysz)
{
	char path[PATH_MAX];
	struct stat st;
	size_t len = strlen(real);

	if (len >= sizeof(path))
		return fail(why, whysz, "path too long");
	memcpy(path, real, len + 1);
	for (char *slash = path + len; ; ) {
		if (lstat(*path ? path : "/", &st) != 0)
			return fail(why, whysz, "cannot stat %s: %s", *path ? path : "/",
				    strerror(errno));
		if (!trusted_stat(&st))
			return fail(why, whysz, "not trusted: %s must be owned by root "
				    "and writable only by root", *path ? path : "/");
		if (slash == path + len && (st.st_dev != fdst->st_dev ||
					    st.st_ino != fdst->st_ino))
			return fail(why, whysz, "changed while being read");
		if (slash == path)
			break;
		slash = strrchr(path, '/');
		*slash = '\0';
	}
	return 0;
}

static int read_all(int fd, size_t size, char **out, char *why, size_t whysz)
{
	size_t len = 0;
	ssize_t got;
	char *buf = malloc(size + 1);

	if (!buf)
		return fail(why, whysz, "out of memory");
	while (len < size && (got = read(fd, buf + len, size - len)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return fail(why, whysz, "cannot read: %s", strerror(errno));
		}
		len += (size_t)got;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		free(buf);
		return fail(why, whysz, "contains a NUL byte");
	}
	*out = buf;
	return 0;
}

int policy_load(struct policy *p, const char *path,
		const struct policy_names *names, char *why, size_t whysz)
{
	char *buf = NULL, *real = NULL;
	struct stat st;
	int fd, rc = -1;

	policy_init(p);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && lstat(path, &st) != 0 && errno == ENOENT)
			return 1;
		fail(why, whysz, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		fail(why, whysz, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(why, whysz, "not a regular file");
		goto out;
	}
	real = realpath(path, NULL);
	if (!real) {
		fail(why, whysz, "cannot resolve the path: %s", strerror(errno));
		goto out;
	}
	if (check_trusted_path(real, &st, why, whysz))
		goto out;
	if (st.st_size > POLICY_FILE_MAX) {
		fail(why, whysz, "larger than %d bytes", POLICY_FILE_MAX);
		goto out;
	}
	if (read_all(fd, (size_t)st.st_size, &buf, why, whysz))
		goto out;
	rc = policy_parse(p, buf, names, why, whysz);
out:
	if (rc)
		policy_init_closed(p);
	free(buf);
	free(real);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int system_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static int system_group(const char *name, gid_t *gid)
{
	struct group *gr = getgrnam(name);

	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}

const struct policy_names policy_system_names = { system_user, system_group };
