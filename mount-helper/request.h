/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The request: mount(8)'s helper command line turned into one plain struct
 * (H1). The options it carries are read with optstr.h, a user's checked
 * with restricted.h.
 */
#ifndef EXTOWN_REQUEST_H
#define EXTOWN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "msg.h"

#define REQUEST_UNKNOWN_MAX	8

/*
 * mount(8) runs a helper as
 *	mount.TYPE SPEC DIR [-s] [-f] [-n] [-v] [-o OPTS] [-t TYPE.SUBTYPE] [-N NS]
 * (libmount exec_helper(), util-linux 2.38). -r and -w are accepted too, as
 * mount(8) itself does, so the helper can be run by hand.
 */
struct request {
	const char *progname;	/* "mount.ext4", "mount.ext3" or "mount.ext2" */
	const char *fstype;	/* "ext4", "ext3" or "ext2" */
	const char *source;
	const char *target;
	const char *options;	/* -o, NULL when absent */
	const char *ns;		/* -N, NULL when absent */
	bool sloppy, fake, nomtab, verbose, rdonly, rdwrite;
	/*
	 * Flags this helper does not know (a later libmount may pass new
	 * ones): ignored, each named once in a warning. Stored as the
	 * argv words that held them.
	 */
	const char *unknown[REQUEST_UNKNOWN_MAX];
	size_t nunknown;
};

/*
 * The program name used in messages and the default filesystem type. Only the
 * three names the helper is installed under are believed; anything else in
 * argv[0] (which the caller of a setuid program controls) gives "mount.ext4".
 */
const char *request_progname(const char *argv0);

/*
 * Parse argv; 0, or -1 with a usage message in why. Keeps pointers into argv.
 * Unknown flags are not errors: they are listed in rq->unknown.
 */
int request_parse(struct request *rq, int argc, char *const argv[],
		  char *why, size_t whysz);

#endif
