// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount.ext4 (also mount.ext3, mount.ext2) - extown's mount helper.
 *
 * mount(8) runs it for every ext2/3/4 mount. It mounts with exactly the
 * options given, except on a device tagged removable by extown's udev rules
 * (EXTOWN_REMOVABLE=1) mounted for an unprivileged user, where it adds
 * uid=<user>,gid=<user's primary group>,nosuid,nodev.
 *
 * For fstab "user" mounts mount(8) runs helpers with the user's own uid, so
 * this program is installed setuid root. For a caller whose real uid is not
 * 0 it trusts nothing but /etc/fstab: see docs/threat-model.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <libmount.h>

#include "device.h"
#include "fstab.h"
#include "mounter.h"
#include "owner.h"
#include "policy.h"
#include "request.h"

#ifndef EXTOWN_CONF
#define EXTOWN_CONF "/etc/extown.conf"
#endif
#define FSTAB_PATH	"/etc/fstab"
#define SYSFS_ROOT	"/sys"
#define SAFE_PATH	"/usr/sbin:/usr/bin:/sbin:/bin"
#define MAX_GROUPS	256

/* Who runs us, read once from the kernel and the passwd database. */
struct caller {
	uid_t uid;
	gid_t gid;			/* primary gid from passwd */
	bool privileged;		/* real uid 0 */
	bool setuid_root;		/* effective uid 0 while real uid is not */
	char name[64];
	gid_t groups[MAX_GROUPS + 2];	/* real gid, primary gid, supplementary */
	size_t ngroups;
};

/* fds 0-2 must be open before anything is opened in a setuid program */
static int sanitize_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			int n = open("/dev/null", O_RDWR);

			if (n != fd)
				return -1;
		}
	}
	return 0;
}

static int caller_init(struct caller *c, char *why, size_t whysz)
{
	struct passwd *pw;
	gid_t sup[MAX_GROUPS];
	int n;

	memset(c, 0, sizeof(*c));
	c->uid = getuid();
	c->privileged = c->uid == 0;
	c->setuid_root = !c->privileged && geteuid() == 0;
	pw = getpwuid(c->uid);
	if (!pw) {
		if (c->privileged) {
			snprintf(c->name, sizeof(c->name), "root");
			return 0;
		}
		return fail(why, whysz, "uid %lu has no passwd entry",
			    (unsigned long)c->uid);
	}
	c->gid = pw->pw_gid;
	snprintf(c->name, sizeof(c->name), "%s", pw->pw_name);
	c->groups[c->ngroups++] = getgid();
	c->groups[c->ngroups++] = c->gid;
	n = getgroups(MAX_GROUPS, sup);
	for (int i = 0; i < n; i++)
		c->groups[c->ngroups++] = sup[i];
	return 0;
}

/* Setuid: run the checks with the caller's own ids; root again only to mount. */
static int drop_effective(const struct caller *c)
{
	if (!c->setuid_root)
		return 0;
	return (setegid(getgid()) || seteuid(c->uid)) ? -1 : 0;
}

static int become_root(const struct caller *c)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	if (!c->setuid_root)
		return 0;
	if (seteuid(0) || setgroups(0, NULL) || setresgid(0, 0, 0) ||
	    setresuid(0, 0, 0))
		return -1;
	/* the caller's limits must not truncate utab */
	setrlimit(RLIMIT_FSIZE, &unlimited);
	return 0;
}

static void print_notes(const char *prog, const char *what, const struct notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		fprintf(stderr, "%s: %s: %s\n", prog, what, n->line[i]);
}

int main(int argc, char *argv[])
{
	struct request rq;
	struct caller caller;
	struct policy policy;
	struct fstab_grant grant = { 0 };
	struct device_info dev = { 0 };
	struct owner_input in;
	struct owner_decision d;
	struct notes notes = { 0 }, warnings = { 0 };
	struct mount_plan plan;
	struct stat st;
	const char *prog, *source, *target, *fstype;
	char why[512] = "", *opts = NULL;
	int ex = MNT_EX_SUCCESS;

	prog = request_progname(argc > 0 ? argv[0] : NULL);
	if (getuid() != 0) {
		/* nothing from the caller's environment is used (LIBMOUNT_*,
		 * locale, PATH): util-linux's setuid programs do the same */
		if (sanitize_fds() != 0 || clearenv() != 0 ||
		    setenv("PATH", SAFE_PATH, 1) != 0) {
			fprintf(stderr, "%s: cannot set up a safe environment\n", prog);
			return MNT_EX_SYSERR;
		}
		umask(022);
	}
	if (caller_init(&caller, why, sizeof(why)) || drop_effective(&caller)) {
		fprintf(stderr, "%s: %s\n", prog, *why ? why : "cannot drop privileges");
		return MNT_EX_USAGE;
	}
	if (request_parse(&rq, argc, argv, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		return MNT_EX_USAGE;
	}

	switch (policy_load(&policy, EXTOWN_CONF, &policy_system_names, why, sizeof(why))) {
	case -1:
		fprintf(stderr, "%s: %s: %s; ignoring the file\n", prog, EXTOWN_CONF, why);
		break;
	default:
		break;
	}

	if (caller.privileged) {
		/* root, udisks, systemd: the command line is the request */
		source = rq.source;
		target = rq.target;
		fstype = rq.fstype;
		opts = strdup(rq.options ? rq.options : "");
		if (rq.rdonly && opts && mnt_optstr_append_option(&opts, "ro", NULL))
			opts = NULL;
		if (rq.rdwrite && opts && mnt_optstr_append_option(&opts, "rw", NULL))
			opts = NULL;
	} else {
		/* a user: only what /etc/fstab grants */
		if (rq.ns) {
			fprintf(stderr, "%s: %s: -N is for root only\n", prog, rq.target);
			return MNT_EX_USAGE;
		}
		if (fstab_user_grant(FSTAB_PATH, rq.source, rq.target, caller.uid,
				     caller.groups, caller.ngroups, &grant,
				     why, sizeof(why))) {
			fprintf(stderr, "%s: %s: %s\n", prog, rq.target, why);
			return MNT_EX_USAGE;
		}
		/* H4: uid=/gid= that are not the caller's own and not in fstab */
		if (opts_check_ids(rq.options, grant.options, caller.uid,
				   caller.groups, caller.ngroups, why, sizeof(why))) {
			fprintf(stderr, "%s: %s: %s\n", prog, rq.target, why);
			fstab_grant_free(&grant);
			return MNT_EX_USAGE;
		}
		source = grant.source;
		target = grant.target;
		fstype = grant.fstype ? grant.fstype : rq.fstype;
		if (opts_for_user_mount(grant.options, rq.options, rq.rdonly,
					caller.name, &opts, &warnings))
			opts = NULL;
	}
	if (!opts) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, rq.target);
		ex = MNT_EX_SYSERR;
		goto out;
	}
	print_notes(prog, target, &warnings);

	/* H2: only a block device udev tagged removable can get an owner */
	if (stat(source, &st) == 0 && S_ISBLK(st.st_mode))
		device_lookup(st.st_rdev, &dev);

	in = (struct owner_input) {
		.privileged = caller.privileged,
		.uid = caller.uid,
		.gid = caller.gid,
		.groups = caller.groups,
		.ngroups = caller.ngroups,
		.options = opts,
		.removable = dev.removable,
		.fs_uuid = dev.fs_uuid,
		.kernel_support = kernel_supports_override(SYSFS_ROOT, fstype),
		.policy = &policy,
	};
	owner_decide(&in, &d);
	if (d.kernel_missing)		/* H6: once, whether -v or not */
		fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support "
			"for %s; mounting without the ownership override\n",
			prog, source, fstype);
	/* what the helper adds or a user mount relies on must reach the kernel */
	if ((d.action == OWNER_ADD || !caller.privileged) &&
	    !opts_quotes_balanced(opts)) {
		fprintf(stderr, "%s: %s: unbalanced '\"' in the mount options '%s': "
			"nosuid, nodev, uid= and gid= after it would be lost; "
			"not mounting\n", prog, source, opts);
		ex = MNT_EX_USAGE;
		goto out;
	}
	if (opts_apply_owner(&opts, &d, &notes)) {
		fprintf(stderr, "%s: %s: out of memory\n", prog, rq.target);
		ex = MNT_EX_SYSERR;
		goto out;
	}
	if (d.action == OWNER_LEAVE)
		notes_add(&notes, "options unchanged: %s", d.why);
	if (rq.verbose) {
		print_notes(prog, source, &notes);
		fprintf(stderr, "%s: mounting %s on %s type %s options '%s'\n",
			prog, source, target, fstype, opts);
	}

	if (!caller.privileged && !caller.setuid_root && !rq.fake) {
		fprintf(stderr, "%s: %s: only root can mount it: %s is not installed "
			"setuid root\n", prog, target, prog);
		ex = MNT_EX_USAGE;
		goto out;
	}
	if (become_root(&caller)) {
		fprintf(stderr, "%s: %s: cannot regain root privileges\n", prog, target);
		ex = MNT_EX_SYSERR;
		goto out;
	}
	plan = (struct mount_plan) {
		.source = source,
		.target = target,
		.fstype = fstype,
		.options = opts,
		.ns = rq.ns,
		.sloppy = rq.sloppy,
		.fake = rq.fake,
		.nomtab = rq.nomtab,
		.verbose = rq.verbose,
	};
	ex = mounter_mount(&plan, prog);
out:
	free(opts);
	fstab_grant_free(&grant);
	return ex;
}
