// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the policy file parser (mount-helper/policy.c), then
 * the owner decision (owner.c) under the parsed policy.
 *
 * Input: the text of /etc/extown.conf.
 *
 * Properties beyond memory safety: a refused file leaves the defaults
 * (enabled, no lists, no default owner); list lengths stay within
 * POLICY_LIST_MAX; whatever the file says, an unprivileged caller is only
 * ever given its own uid and primary gid (default-owner is for root's
 * mounts only), and an added owner comes with nosuid and nodev.
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

static int fake_user(const char *name, uid_t *uid, gid_t *gid)
{
	if (!strcmp(name, "alice")) {
		*uid = 1000;
		*gid = 1000;
		return 0;
	}
	if (!strcmp(name, "root")) {
		*uid = 0;
		*gid = 0;
		return 0;
	}
	return -1;
}

static int fake_group(const char *name, gid_t *gid)
{
	if (!strcmp(name, "plugdev")) {
		*gid = 46;
		return 0;
	}
	if (!strcmp(name, "users")) {
		*gid = 100;
		return 0;
	}
	return -1;
}

static const struct policy_names names = { fake_user, fake_group };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), why[256];
	struct policy *p = malloc(sizeof(*p));
	const gid_t groups[] = { FUZZ_GID, FUZZ_GROUP2 };
	const char *uuids[] = { NULL, "", "6a6b0e00-0000-4000-8000-000000000004",
				"6A6B0E00-0000-4000-8000-000000000004" };

	if (!p)
		abort();
	if (policy_parse(p, text, &names, why, sizeof(why))) {
		if (!p->enabled || p->n_allow_uuid || p->n_deny_uuid ||
		    p->n_allow_group || p->has_default_owner)
			fuzz_violation("a refused policy file left non-default settings", text);
		if (!memchr(why, '\0', sizeof(why)))
			fuzz_violation("why is not terminated", text);
	}
	if (p->n_allow_uuid > POLICY_LIST_MAX || p->n_deny_uuid > POLICY_LIST_MAX ||
	    p->n_allow_group > POLICY_LIST_MAX)
		fuzz_violation("list longer than POLICY_LIST_MAX", text);

	for (int priv = 0; priv < 2; priv++) {
		for (size_t u = 0; u < sizeof(uuids) / sizeof(uuids[0]); u++) {
			char *opts = strdup("rw,noexec,suid,dev,user=alice");
			struct owner_input in = {
				.privileged = priv, .uid = priv ? 0 : FUZZ_UID,
				.gid = priv ? 0 : FUZZ_GID, .groups = groups,
				.ngroups = priv ? 0 : 2, .options = opts,
				.removable = true, .fs_uuid = uuids[u],
				.kernel_support = true, .policy = p,
			};
			struct owner_decision d;
			struct notes notes = { 0 };

			if (!opts)
				abort();
			owner_decide(&in, &d);
			if (!priv && d.action == OWNER_ADD &&
			    (d.uid != FUZZ_UID || d.gid != FUZZ_GID))
				fuzz_violation("the policy gave a user somebody else's owner", text);
			if (d.action == OWNER_ADD && d.kernel_missing)
				fuzz_violation("owner added although the kernel lacks support", text);
			if (!opts_apply_owner(&opts, &d, &notes) && d.action == OWNER_ADD)
				check_nosuid_nodev(opts);
			free(opts);
		}
	}
	free(p);
	free(text);
	return 0;
}
