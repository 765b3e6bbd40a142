// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * msg.c - the notes -v prints, the "why" buffers of the pure functions.
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
