/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small shared message helpers: a fixed-size "why" buffer filled by the pure
 * functions, the list of notes that -v prints (what was added and why), and
 * the one wording of "no uid=/gid= in this kernel" (H6).
 */
#ifndef EXTOWN_MSG_H
#define EXTOWN_MSG_H

#include <stddef.h>

#define NOTES_MAX	8
#define NOTE_LEN	200

struct notes {
	size_t n;
	char line[NOTES_MAX][NOTE_LEN];
};

/* Append one note (silently dropped past NOTES_MAX). */
void notes_add(struct notes *notes, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* snprintf into why when why is not NULL; always returns -1 (for "return fail(...)"). */
int fail(char *why, size_t whysz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * H6: one line on standard error (one write) for a mount the running kernel
 * cannot give an owner through uid=/gid=: "PROG: SOURCE: the running kernel
 * has no uid=/gid= support for FSTYPE" followed by FMT: what is done
 * instead (an idmapped mount, or a mount without an owner, and why).
 */
void msg_no_kernel_support(const char *prog, const char *source, const char *fstype,
			   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
