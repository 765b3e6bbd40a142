// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the owner decision and option rewriting
 * (mount-helper/owner.c) on arbitrary option strings and udev UUIDs.
 *
 * Input: one flag byte (bit 0 privileged, 1 removable, 2 kernel support,
 * 3 policy disabled, 4 a deny-uuid, 5 an allow-uuid, 6 a default-owner),
 * then the options, a NUL, then the filesystem UUID udev reported.
 *
 * Properties beyond memory safety: uhelper=udisks2, a disabled policy, an
 * untagged device or a kernel without support leave the options exactly as
 * they were; an unprivileged caller only gets its own owner; whenever an
 * owner is added, the linked libmount reads nosuid and nodev in the final
 * string and mounts with them, and the uid=/gid= the kernel sees are the
 * decided ones or were in the input already.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "owner.h"
#include "policy.h"
#include "optstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *opts, *orig;
	const char *uuid;
	uint8_t f;
	struct policy *p;
	const gid_t groups[] = { FUZZ_GID, FUZZ_GROUP2 };
	struct owner_decision d;
	struct notes notes = { 0 };

	if (size < 1)
		return 0;
	f = data[0];
	buf = fuzz_strndup(data + 1, size - 1);
	uuid = buf + strlen(buf) + 1 <= buf + size - 1 ? buf + strlen(buf) + 1 : NULL;
	opts = strdup(buf);
	orig = strdup(buf);
	p = malloc(sizeof(*p));
	if (!opts || !orig || !p)
		abort();
	policy_init(p);
	p->enabled = !(f & 8);
	if (f & 16)
		strcpy(p->deny_uuid[p->n_deny_uuid++], "6a6b0e00-0000-4000-8000-000000000004");
	if (f & 32)
		strcpy(p->allow_uuid[p->n_allow_uuid++], "6a6b0e00-0000-4000-8000-000000000002");
	if (f & 64) {
		p->has_default_owner = true;
		p->default_uid = 1234;
		p->default_gid = 1235;
	}

	struct owner_input in = {
		.privileged = f & 1, .uid = (f & 1) ? 0 : FUZZ_UID,
		.gid = (f & 1) ? 0 : FUZZ_GID, .groups = groups, .ngroups = 2,
		.options = opts, .removable = f & 2, .fs_uuid = uuid,
		.kernel_support = f & 4, .policy = p,
	};
	owner_decide(&in, &d);
	if (!(f & 1) && d.action == OWNER_ADD && (d.uid != FUZZ_UID || d.gid != FUZZ_GID))
		fuzz_violation("a user's mount got somebody else's owner", orig);
	if (d.action == OWNER_ADD && (!(f & 2) || (f & 8) || !(f & 4)))
		fuzz_violation("owner added for an untagged device, a disabled policy or an unsupporting kernel", orig);
	if (opts_apply_owner(&opts, &d, &notes))
		goto done;
	if (d.action == OWNER_LEAVE && strcmp(opts, orig))
		fuzz_violation("OWNER_LEAVE changed the options", orig);
	if (d.action == OWNER_ADD) {
		char granted[160];

		/* whatever the input: an option string that would swallow
		 * what is appended (an unpaired '"', a trailing backslash for
		 * libmount 2.40+) makes opts_apply_owner() fail, never succeed
		 * without nosuid,nodev */
		check_nosuid_nodev(opts);
		/* what the kernel sees: the decided ids, or what was there */
		snprintf(granted, sizeof(granted), "%s,uid=%lu,gid=%lu", orig,
			 (unsigned long)d.uid, (unsigned long)d.gid);
		if (strlen(orig) < 100 && !(f & 1))
			check_kernel_ids(opts, granted);
	}
done:
	free(opts);
	free(orig);
	free(p);
	free(buf);
	return 0;
}
