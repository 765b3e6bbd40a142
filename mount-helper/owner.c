// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * owner.c - decide who owns the files of a mount, and rewrite the options.
 *
 * Pure except kernel_supports_override(), which only looks whether sysfs
 * files exist.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libmount.h>

#include "owner.h"
#include "request.h"

static bool in_groups(const struct owner_input *in, gid_t gid)
{
	if (in->gid == gid)
		return true;
	for (size_t i = 0; i < in->ngroups; i++)
		if (in->groups[i] == gid)
			return true;
	return false;
}

/*
 * NULL when an owner is to be added (d->uid, d->gid, d->why filled), else
 * the reason why the options stay as they are.
 */
static const char *decide(const struct owner_input *in, struct owner_decision *d)
{
	const struct policy *p = in->policy;
	char *val;
	size_t valsz;

	if (in->options &&
	    mnt_optstr_get_option(in->options, "uhelper", &val, &valsz) == 0 &&
	    valsz == strlen("udisks2") && strncmp(val, "udisks2", valsz) == 0)
		return "udisks chose the options (uhelper=udisks2)";
	if (!p->enabled)
		return "disabled by the policy file (enabled = no)";
	if (!in->removable)
		return "device not tagged removable (no EXTOWN_REMOVABLE=1)";
	if (policy_uuid_listed(p->deny_uuid, p->n_deny_uuid, in->fs_uuid))
		return "filesystem UUID listed in deny-uuid";
	if (p->n_allow_uuid &&
	    !policy_uuid_listed(p->allow_uuid, p->n_allow_uuid, in->fs_uuid))
		return "filesystem UUID not listed in allow-uuid";

	if (in->privileged) {
		if (opts_has(in->options, "uid") || opts_has(in->options, "gid"))
			return "root gave uid= or gid= already";
		if (!p->has_default_owner)
			return "mounted by root and the policy names no default-owner";
		d->uid = p->default_uid;
		d->gid = p->default_gid;
		snprintf(d->why, sizeof(d->why),
			 "tagged removable, mounted by root, policy default-owner %lu:%lu",
			 (unsigned long)d->uid, (unsigned long)d->gid);
		return NULL;
	}

	if (p->n_allow_group) {
		bool member = false;

		for (size_t i = 0; !member && i < p->n_allow_group; i++)
			member = in_groups(in, p->allow_group[i]);
		if (!member)
			return "caller is in no allow-group of the policy file";
	}
	d->uid = in->uid;
	d->gid = in->gid;
	snprintf(d->why, sizeof(d->why),
		 "tagged removable (EXTOWN_REMOVABLE=1), mounted by uid %lu",
		 (unsigned long)in->uid);
	return NULL;
}

void owner_decide(const struct owner_input *in, struct owner_decision *d)
{
	const char *stay;

	memset(d, 0, sizeof(*d));
	stay = decide(in, d);
	if (!stay && !in->kernel_support) {
		d->kernel_missing = true;	/* H6: the caller says so once */
		stay = "the kernel does not support uid=/gid= for this filesystem";
	}
	if (stay) {
		d->action = OWNER_LEAVE;
		snprintf(d->why, sizeof(d->why), "%s", stay);
	} else {
		d->action = OWNER_ADD;
	}
}

/* append NAME[=VALUE] to *opts and to the list of what was added */
static int add_opt(char **opts, char *added, size_t addedsz, const char *name,
		   const char *value)
{
	size_t len = strlen(added);

	if (mnt_optstr_append_option(opts, name, value))
		return -1;
	snprintf(added + len, addedsz - len, "%s%s%s%s", len ? "," : "", name,
		 value ? "=" : "", value ? value : "");
	return 0;
}

/* remove every NAME; -1 on error, else how many were removed */
static int remove_all(char **opts, const char *name)
{
	int rc, n = 0;

	while ((rc = mnt_optstr_remove_option(opts, name)) == 0)
		n++;
	return rc < 0 ? -1 : n;
}

int opts_apply_owner(char **opts, const struct owner_decision *d,
		     struct notes *notes)
{
	char num[2][24], added[128] = "";
	int n;

	if (d->action != OWNER_ADD)
		return 0;

	snprintf(num[0], sizeof(num[0]), "%lu", (unsigned long)d->uid);
	snprintf(num[1], sizeof(num[1]), "%lu", (unsigned long)d->gid);
	if (!opts_has(*opts, "uid") &&
	    add_opt(opts, added, sizeof(added), "uid", num[0]))
		return -1;
	if (!opts_has(*opts, "gid") &&
	    add_opt(opts, added, sizeof(added), "gid", num[1]))
		return -1;

	n = remove_all(opts, "suid");
	if (n < 0)
		return -1;
	if (n)
		notes_add(notes, "removed 'suid': files presented as the user's "
			  "must not run setuid");
	n = remove_all(opts, "dev");
	if (n < 0)
		return -1;
	if (n)
		notes_add(notes, "removed 'dev': device nodes presented as the "
			  "user's would give raw device access");
	if (!opts_has(*opts, "nosuid") &&
	    add_opt(opts, added, sizeof(added), "nosuid", NULL))
		return -1;
	if (!opts_has(*opts, "nodev") &&
	    add_opt(opts, added, sizeof(added), "nodev", NULL))
		return -1;

	if (*added)
		notes_add(notes, "added %s: %s", added, d->why);
	else
		notes_add(notes, "nothing added, all present: %s", d->why);
	return 0;
}

static bool exists(const char *sysroot, const char *rel)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", sysroot, rel) >= sizeof(path))
		return false;
	return access(path, F_OK) == 0;
}

bool kernel_supports_override(const char *sysroot, const char *fstype)
{
	if (strcmp(fstype, "ext2") == 0) {
		if (exists(sysroot, "fs/ext2/features/uid_gid_override"))
			return true;
		/* a separate ext2 driver (patched or not) serves ext2 */
		if (exists(sysroot, "fs/ext2") || exists(sysroot, "module/ext2"))
			return false;
	} else if (strcmp(fstype, "ext3") != 0 && strcmp(fstype, "ext4") != 0) {
		return false;
	}
	return exists(sysroot, "fs/ext4/features/uid_gid_override");
}
