/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal test harness: each test is a function, defined with
 *	TEST(t_name, "helper.LABEL.what") { ... }
 * that returns 0, or -1 with the reason in why (CHECK() fills it). Each
 * selected test prints exactly one line:
 *	PASS <name>
 *	FAIL <name>: <why>
 *	SKIP <name>: <why>
 * and no summary (tests/run counts the lines).
 *
 * A test program is run as
 *	test-NAME [PATTERN...]
 * and runs only the tests whose full name contains one of the PATTERNs, a
 * PATTERN read as a glob (fnmatch(3) of "*PATTERN*" on the name: "H4"
 * selects helper.H4.malformed_ids_refused, "H6.*idmap" globs), the way
 * tests/run reads EXTOWN_TEST_FILTER. No PATTERN: every test.
 *
 * Exit status (tap_status()), as automake's test driver reads it: 1 when a
 * test FAILed, else 0 when one PASSed, else 77 (all skipped, or none
 * selected). Anything else is a crash or a sanitizer's exit code.
 *
 * main() is "return tap_main(argc, argv);", or, with set-up of its own,
 * tap_init(), the set-up, tap_run_all() and tap_status().
 */
#ifndef EXTOWN_TAP_H
#define EXTOWN_TAP_H

#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHY_LEN 512

/* a test returns 0, -1 (failed) or TAP_SKIP (could not run here; why says why) */
#define TAP_SKIP 77

typedef int (*test_fn)(char *why);

struct tap {
	char *const *pattern;	/* argv[1..]: the name filters */
	int npattern;
	int passed, failed, skipped;
	char why[WHY_LEN];	/* the running test's reason */
};

static inline struct tap tap_init(int argc, char *const argv[])
{
	struct tap t = { .pattern = argc > 1 ? argv + 1 : NULL,
			 .npattern = argc > 1 ? argc - 1 : 0 };

	return t;
}

/* Does NAME contain one of the patterns (as a glob)? No pattern: yes. */
static inline bool tap_selected(const struct tap *t, const char *name)
{
	char glob[WHY_LEN];

	if (t->npattern == 0)
		return true;
	for (int i = 0; i < t->npattern; i++) {
		const char *p = t->pattern[i];

		if ((size_t)snprintf(glob, sizeof(glob), "*%s*", p) >= sizeof(glob)) {
			if (strstr(name, p))	/* too long to glob: plain text */
				return true;
		} else if (fnmatch(glob, name, 0) == 0) {
			return true;
		}
	}
	return false;
}

static inline void tap_run(struct tap *t, const char *name, test_fn fn)
{
	char *why = t->why;
	int rc;

	if (!tap_selected(t, name))
		return;
	*why = '\0';
	rc = fn(why);
	if (rc == 0) {
		printf("PASS %s\n", name);
		t->passed++;
	} else if (rc == TAP_SKIP) {
		printf("SKIP %s: %s\n", name, why);
		t->skipped++;
	} else {
		printf("FAIL %s: %s\n", name, *why ? why : "(no reason given)");
		t->failed++;
	}
	fflush(stdout);
}

/*
 * The program's own set-up failed: a FAIL line whatever the selection (no
 * filter may hide it), counted as a failure.
 */
static inline void tap_setup_fail(struct tap *t, const char *name, const char *why)
{
	printf("FAIL %s: %s\n", name, why);
	fflush(stdout);
	t->failed++;
}

/* the exit status: 1 (a test failed), 0 (one passed), 77 (none ran) */
static inline int tap_status(const struct tap *t)
{
	if (t->failed)
		return 1;
	return t->passed ? 0 : TAP_SKIP;
}

/*
 * TEST(fn, "name") { ... } defines a test: the function fn (its argument is
 * why, the reason buffer) registered under name before main runs, as
 * kselftest's harness does. tap_run_all() runs the registered tests in the
 * order they are defined; tap_main() is a main that does only that.
 */
#define TAP_MAX_TESTS 128

struct tap_case {
	const char *name;
	test_fn fn;
};

static struct tap_case tap_cases[TAP_MAX_TESTS];
static int tap_ncases;

static inline void tap_register(const char *name, test_fn fn)
{
	if (tap_ncases == TAP_MAX_TESTS) {
		fprintf(stderr, "tap.h: more than %d tests: raise TAP_MAX_TESTS\n", TAP_MAX_TESTS);
		abort();
	}
	tap_cases[tap_ncases++] = (struct tap_case){ name, fn };
}

#define TEST(fn, name) \
	static int fn(char *why); \
	__attribute__((constructor)) static void fn##_register(void) \
	{ \
		tap_register(name, fn); \
	} \
	static int fn(char *why)

static inline void tap_run_all(struct tap *t)
{
	for (int i = 0; i < tap_ncases; i++)
		tap_run(t, tap_cases[i].name, tap_cases[i].fn);
}

static inline int tap_main(int argc, char *const argv[])
{
	struct tap t = tap_init(argc, argv);

	tap_run_all(&t);
	return tap_status(&t);
}

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
