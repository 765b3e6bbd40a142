// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: mount(8)'s helper command line (mount-helper/request.c)
 * and an unprivileged user's options (restricted.c), then the owner
 * rewriting of owner.c on the result, as main.c chains them for a user
 * mount.
 *
 * Input: NUL-separated strings. The first is the fstab entry's options
 * (what root granted), the rest are argv (argv[0] = program name).
 *
 * Properties beyond memory safety (oracle.h): when opts_check_ids()
 * accepts the command line, no uid=/gid= the 6.1 kernel would parse from
 * the final option string belongs to anybody but the caller (uid 1000,
 * groups 1000 and 100) unless fstab names it verbatim; when an owner is
 * added, libmount mounts with nosuid and nodev; once the user's command
 * line passed opts_check_user_argv() (H8), the final string holds only the
 * fstab entry's options and what mount(8) and the owner rule add.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "owner.h"
#include "policy.h"
#include "optstr.h"
#include "request.h"
#include "restricted.h"

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_strndup(data, size), *argv[MAX_ARGS + 1];
	const char *fstab_opts = buf;
	size_t off = strlen(buf) + 1;
	int argc = 0;
	struct request rq;
	char why[256], *out = NULL;
	const gid_t gids[] = { FUZZ_GID, FUZZ_GROUP2 };
	struct notes notes = { 0 };

	while (off <= size && argc < MAX_ARGS) {
		argv[argc++] = buf + off;
		off += strlen(buf + off) + 1;
	}
	argv[argc] = NULL;
	if (argc == 0)
		goto done;
	(void)request_progname(argv[0]);
	if (request_parse(&rq, argc, argv, why, sizeof(why)))
		goto done;
	(void)opts_has(rq.options, "uid");

	/* the caller's own -o, as main.c checks it for a user */
	if (opts_check_ids(rq.options, fstab_opts, FUZZ_UID, gids, 2, why, sizeof(why)))
		goto done;
	if (!opts_appendable(rq.options) ||
	    opts_check_user_argv(rq.options, fstab_opts, "alice", why, sizeof(why)))
		goto done;
	if (opts_for_user_mount(fstab_opts, rq.options, rq.rdonly, "alice", &out, &notes))
		goto done;
	check_kernel_ids(out, fstab_opts);
	check_user_tokens(out, fstab_opts);
	if (opts_resolve_user_implied(&out))
		goto done;
	check_kernel_ids(out, fstab_opts);

	/* a tagged removable device: the user's own owner is added */
	struct policy pol;
	struct owner_input in = {
		.privileged = false, .uid = FUZZ_UID, .gid = FUZZ_GID,
		.groups = gids, .ngroups = 2, .options = out, .removable = true,
		.fs_uuid = "6a6b0e00-0000-4000-8000-000000000004",
		.kernel_support = true, .policy = &pol,
	};
	struct owner_decision d;

	policy_init(&pol);
	owner_decide(&in, &d);
	if (d.action == OWNER_ADD && (d.uid != FUZZ_UID || d.gid != FUZZ_GID))
		fuzz_violation("a user's mount got somebody else's owner", out);
	if (opts_apply_owner(&out, &d, &notes))
		goto done;
	check_kernel_ids(out, fstab_opts);
	check_user_tokens(out, fstab_opts);
	/* what would swallow an appended option made opts_apply_owner() fail */
	if (d.action == OWNER_ADD)
		check_nosuid_nodev(out);
done:
	free(out);
	free(buf);
	return 0;
}
