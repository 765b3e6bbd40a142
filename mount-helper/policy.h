/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy file (H7), /etc/extown.conf by default. See extown.conf(5).
 * Parsing is strict and pure. A file that exists but cannot be used (unread-
 * able, untrusted, malformed, a name that does not resolve) fails closed: the
 * policy then adds no owner for anyone (H10), and the caller says so once.
 */
#ifndef EXTOWN_POLICY_H
#define EXTOWN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define POLICY_LIST_MAX	64
#define POLICY_UUID_LEN	36	/* 8-4-4-4-12 hex digits and dashes */
#define POLICY_FILE_MAX	(64 * 1024)

struct policy {
	bool enabled;
	bool broken;		/* the file exists but could not be used (H10) */
	bool idmap_fallback;	/* idmapped mount where the kernel lacks uid= */
	size_t n_allow_uuid, n_deny_uuid, n_allow_group;
	char allow_uuid[POLICY_LIST_MAX][POLICY_UUID_LEN + 1];
	char deny_uuid[POLICY_LIST_MAX][POLICY_UUID_LEN + 1];
	gid_t allow_group[POLICY_LIST_MAX];
	bool has_default_owner;
	uid_t default_uid;
	gid_t default_gid;
};

/* Name look-ups, passed in so that the parser stays pure (tests fake them). */
struct policy_names {
	/* 0 and the uid and primary gid of user NAME, or -1 */
	int (*user)(const char *name, uid_t *uid, gid_t *gid);
	/* 0 and the gid of group NAME, or -1 */
	int (*group)(const char *name, gid_t *gid);
};

/* The behaviour without a file: enabled, idmap-fallback, no lists, no default owner. */
void policy_init(struct policy *p);

/*
 * Parse the text of a policy file. 0, or -1 with "line N: ..." in why and
 * *p set to the defaults.
 */
int policy_parse(struct policy *p, const char *text,
		 const struct policy_names *names, char *why, size_t whysz);

/* What policy_load() leaves after an error: broken, adds no owner. */
void policy_init_closed(struct policy *p);

/*
 * Read and parse PATH (the helper calls it while still root). 1 when the
 * file does not exist (defaults), 0 when parsed, -1 (policy_init_closed(),
 * why says what) when it cannot be opened or read, is too large or
 * malformed, or is not trusted: the file must be a regular file owned by
 * root and writable by nobody else, and so must every directory on the way
 * to it (a directory writable by others only when sticky). A symbolic link
 * is followed; the file it reaches is held to the same rules.
 */
int policy_load(struct policy *p, const char *path,
		const struct policy_names *names, char *why, size_t whysz);

/* The look-ups through getpwnam(3) and getgrnam(3). */
extern const struct policy_names policy_system_names;

/* Is UUID (any case) in the list? */
bool policy_uuid_listed(const char list[][POLICY_UUID_LEN + 1], size_t n,
			const char *uuid);

#endif
