/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal test harness: each test is a function that returns 0, or -1 with
 * the reason in why. RUN() prints exactly one line per test:
 *	PASS <name>
 *	FAIL <name>: <why>
 *	SKIP <name>: <why>
 * and no summary (tests/run counts the lines). The exit status of a test
 * program is 0 even when tests fail; a crash (sanitizer) is caught by run.sh.
 */
#ifndef EXTOWN_TAP_H
#define EXTOWN_TAP_H

#include <stdio.h>
#include <string.h>

#define WHY_LEN 512

/* a test returns 0, -1 (failed) or TAP_SKIP (could not run here; why says why) */
#define TAP_SKIP 77

typedef int (*test_fn)(char *why);

static inline void tap_run(const char *name, test_fn fn)
{
	char why[WHY_LEN] = "";

	int rc = fn(why);

	if (rc == 0)
		printf("PASS %s\n", name);
	else if (rc == TAP_SKIP)
		printf("SKIP %s: %s\n", name, why);
	else
		printf("FAIL %s: %s\n", name, *why ? why : "(no reason given)");
	fflush(stdout);
}

#define RUN(name, fn) tap_run(name, fn)

/* CHECK(cond, fmt, ...): on false, fill why and return -1 */
#define CHECK(cond, ...) do { \
		if (!(cond)) { \
			snprintf(why, WHY_LEN, __VA_ARGS__); \
			return -1; \
		} \
	} while (0)

/* option string helpers for assertions */
static inline int count_opt(const char *opts, const char *opt)
{
	/* how many comma-separated items of OPTS equal OPT exactly */
	size_t n = strlen(opt);
	int count = 0;

	for (const char *p = opts; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, opt, n) == 0)
			count++;
		p = e ? e + 1 : p + len;
	}
	return count;
}

#endif
