// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * policy-defaults FILE: read FILE with the helper's own policy loader
 * (mount-helper/policy.c, the code mount.ext4 runs) and say whether it gives
 * exactly the behaviour of no file at all. tests/package/run.sh runs it on
 * the /etc/extown.conf of the package. Exit 0 and nothing printed when it
 * does; else exit 1 and one line saying why.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "policy.h"

/* The helper's fail() (mount-helper/msg.c) is not built into this test;
 * the loader only needs this much of it. */
int fail(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct policy got, want;
	char why[512] = "";
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: policy-defaults FILE\n");
		return 2;
	}
	policy_init(&want);
	rc = policy_load(&got, argv[1], &policy_system_names, why, sizeof(why));
	if (rc != 0) {
		printf("policy_load returned %d: %s\n", rc, *why ? why : "file missing");
		return 1;
	}
	if (got.enabled != want.enabled || got.broken != want.broken ||
	    got.n_allow_uuid || got.n_deny_uuid || got.n_allow_group ||
	    got.has_default_owner != want.has_default_owner) {
		printf("parsed, but not the defaults: enabled=%d broken=%d allow-uuid=%zu "
		       "deny-uuid=%zu allow-group=%zu default-owner=%d\n",
		       got.enabled, got.broken, got.n_allow_uuid, got.n_deny_uuid,
		       got.n_allow_group, got.has_default_owner);
		return 1;
	}
	return 0;
}
