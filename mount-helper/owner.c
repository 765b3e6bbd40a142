// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * owner.c - decide who owns the files of a mount, and rewrite the options
 * accordingly (through optstr.h).
 *
 * Pure: no I/O, no privileges, no global state.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "optstr.h"
#include "owner.h"

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
	const char *val;
	size_t valsz;

	if (in->passthrough)
		return "not a new mount (remount, bind, move or propagation change)";
	if (in->options &&
	    opts_get(in->options, "uhelper", &val, &valsz) == 0 &&
	    valsz == strlen("udisks2") && strncmp(val, "udisks2", valsz) == 0)
		return "udisks chose the options (uhelper=udisks2)";
	if (p->broken)
		return "the policy file cannot be used";
	if (!p->enabled)
		return "disabled by the policy file (enabled = no)";
	if (!in->removable)
		return "device not tagged removable (no EXTOWN_REMOVABLE=1)";
	if (in->boot_fs)
		return "the filesystem holds / or is mounted at boot from /etc/fstab";
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

static bool fallback_allowed(const struct policy *p)
{
	return !p->broken && p->idmap_fallback;
}

/* uid=/gid= given, the kernel has none: idmap them, or leave them out */
static void given_ids(const struct owner_input *in, struct owner_decision *d)
{
	uint32_t uid = 0, gid = 0;
	int ru = opts_last_id(in->options, "uid", &uid);
	int rg = opts_last_id(in->options, "gid", &gid);

	d->action = OWNER_LEAVE;
	if (ru < 0 || rg < 0) {
		snprintf(d->why, sizeof(d->why), "malformed uid= or gid=: left as given");
		return;
	}
	d->strip_ids = true;
	if (in->mount8_idmaps) {
		d->mount8_idmap = true;
		snprintf(d->why, sizeof(d->why), "uid=/gid= removed; the fstab entry's "
			 "X-mount.idmap= gives the idmapped mount (mount(8) makes it)");
		return;
	}
	if (!fallback_allowed(in->policy)) {
		d->kernel_missing = true;
		snprintf(d->why, sizeof(d->why), "uid=/gid= removed, no idmapped mount "
			 "either (%s)", in->policy->broken ? "the policy file cannot be used" :
			 "idmap-fallback = no");
		return;
	}
	d->action = OWNER_IDMAP;
	d->map_uid = ru == 1;
	d->uid = uid;
	d->map_gid = rg == 1;
	d->gid = gid;
	snprintf(d->why, sizeof(d->why), "uid=/gid= given, given instead through an "
		 "idmapped mount");
}

/* the action: leave, add, or idmap (d->why filled) */
static void decide_action(const struct owner_input *in, struct owner_decision *d)
{
	const char *stay;

	if (!in->passthrough && !in->kernel_support &&
	    (opts_has(in->options, "uid") || opts_has(in->options, "gid"))) {
		given_ids(in, d);
		return;
	}
	stay = decide(in, d);
	if (!stay && in->mount8_idmaps) {
		/*
		 * The entry's idmapping is its owner: mount(8) applies it after
		 * the helper. An idmapped mount of the helper's cannot be idmapped
		 * again, and under uid= every inode shows the caller, whom the
		 * entry's map does not name (nobody on top).
		 */
		d->mount8_idmap = true;
		stay = "the fstab entry's X-mount.idmap= gives the owner (mount(8) "
		       "idmaps the mount; the helper adds none)";
	} else if (!stay && !in->kernel_support) {
		if (fallback_allowed(in->policy)) {
			d->action = OWNER_IDMAP;
			d->helper_owner = d->map_uid = d->map_gid = true;
			return;
		}
		d->kernel_missing = true;	/* H6: the caller says so once */
		stay = "no idmapped mount either (idmap-fallback = no)";
	}
	if (stay) {
		d->action = OWNER_LEAVE;
		snprintf(d->why, sizeof(d->why), "%s", stay);
	} else {
		d->action = OWNER_ADD;
	}
}

/*
 * The one decision on nosuid,nodev: a presented owner with device nodes or
 * setuid files would give the user access beyond the stick. So whenever the
 * helper chose the owner, and on a user's mount whose files show an owner
 * root granted in fstab (uid=/gid=), or an idmapped one.
 */
static bool needs_nosuid_nodev(const struct owner_input *in,
			       const struct owner_decision *d)
{
	if (d->action == OWNER_ADD || (d->action == OWNER_IDMAP && d->helper_owner) ||
	    d->mount8_idmap)
		return true;
	return !in->privileged && (d->action == OWNER_IDMAP ||
				   opts_has(in->options, "uid") ||
				   opts_has(in->options, "gid"));
}

void owner_decide(const struct owner_input *in, struct owner_decision *d)
{
	memset(d, 0, sizeof(*d));
	decide_action(in, d);
	d->nosuid_nodev = needs_nosuid_nodev(in, d);
}

/* append NAME[=VALUE] to *opts and to the list of what was added */
static int add_opt(char **opts, char *added, size_t addedsz, const char *name,
		   const char *value)
{
	size_t len = strlen(added);

	if (opts_append(opts, name, value))
		return -1;
	snprintf(added + len, addedsz - len, "%s%s%s%s", len ? "," : "", name,
		 value ? "=" : "", value ? value : "");
	return 0;
}

/* say which ids an idmapped mount is for */
static void note_idmapped(const struct owner_decision *d, struct notes *notes)
{
	char ids[64] = "";

	if (d->map_uid)
		snprintf(ids, sizeof(ids), "uid %lu", (unsigned long)d->uid);
	if (d->map_gid)
		snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%sgid %lu",
			 d->map_uid ? ", " : "", (unsigned long)d->gid);
	notes_add(notes, "idmapped mount for %s%s: %s",
		  d->helper_owner ? "" : "the given ", ids, d->why);
}

/* OWNER_ADD: uid=, gid= unless present, listed in ADDED */
static int add_ids(char **opts, const struct owner_decision *d, char *added,
		   size_t addedsz)
{
	char num[2][24];

	snprintf(num[0], sizeof(num[0]), "%lu", (unsigned long)d->uid);
	snprintf(num[1], sizeof(num[1]), "%lu", (unsigned long)d->gid);
	if (!opts_has(*opts, "uid") && add_opt(opts, added, addedsz, "uid", num[0]))
		return -1;
	if (!opts_has(*opts, "gid") && add_opt(opts, added, addedsz, "gid", num[1]))
		return -1;
	return 0;
}

/* nosuid,nodev forced; those not there before listed in ADDED */
static int add_nosuid_nodev(char **opts, char *added, size_t addedsz,
			    struct notes *notes)
{
	bool had_nosuid = opts_has(*opts, "nosuid");
	bool had_nodev = opts_has(*opts, "nodev");

	if (opts_force_nosuid_nodev(opts, notes))
		return -1;
	if (!had_nosuid)
		snprintf(added + strlen(added), addedsz - strlen(added), "%snosuid",
			 *added ? "," : "");
	if (!had_nodev)
		snprintf(added + strlen(added), addedsz - strlen(added), "%snodev",
			 *added ? "," : "");
	return 0;
}

int opts_apply_owner(char **opts, const struct owner_decision *d,
		     struct notes *notes)
{
	char added[128] = "";

	if (d->strip_ids) {
		if (opts_remove_all(opts, "uid") < 0 || opts_remove_all(opts, "gid") < 0)
			return -1;
		notes_add(notes, "removed uid= and gid=: the kernel has none");
	}
	if (d->action == OWNER_LEAVE)
		return 0;
	if (d->action == OWNER_ADD && add_ids(opts, d, added, sizeof(added)))
		return -1;
	/* given ids: said before what a user's mount adds to them */
	if (d->action == OWNER_IDMAP && !d->helper_owner)
		note_idmapped(d, notes);
	if (d->nosuid_nodev && add_nosuid_nodev(opts, added, sizeof(added), notes))
		return -1;
	if (d->action == OWNER_IDMAP) {
		if (d->helper_owner)
			note_idmapped(d, notes);
	} else if (*added) {
		notes_add(notes, "added %s: %s", added, d->why);
	} else {
		notes_add(notes, "nothing added, all present: %s", d->why);
	}
	return 0;
}
