// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * msg.c - the notes -v prints, the "why" buffers of the pure functions, and
 * the helper's one line for a kernel without uid=/gid=.
 */
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

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

void msg_no_kernel_support(const char *prog, const char *source, const char *fstype,
			   const char *fmt, ...)
{
	char rest[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rest, sizeof(rest), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support for %s%s\n",
		prog, source, fstype, rest);
}
