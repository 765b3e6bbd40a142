// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * request.c - mount(8)'s helper command line.
 *
 * Pure: no I/O, no privileges, no global state.
 */
#include <string.h>

#include "request.h"

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
