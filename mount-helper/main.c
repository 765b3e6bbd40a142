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
 * 0 it trusts nothing but /etc/fstab and grants nothing mount(8) itself
 * would refuse: see docs/threat-model.md.
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

#include "bootfs.h"
#include "device.h"
#include "fstab.h"
#include "kernel-support.h"
#include "loopdev.h"
#include "mounter.h"
#include "optstr.h"
#include "owner.h"
#include "policy.h"
#include "process.h"
#include "request.h"
#include "restricted.h"

#ifndef EXTOWN_CONF
#define EXTOWN_CONF "/etc/extown.conf"
#endif
#define FSTAB_PATH	"/etc/fstab"
#define USER_NAME_MAX	255

/* Who runs us, read once from the kernel and the passwd database. */
struct caller {
	uid_t uid;
	gid_t gid;			/* primary gid from passwd */
	bool privileged;		/* real uid 0 */
	bool setuid_root;		/* effective uid 0 while real uid is not */
	char *name;
	gid_t *groups;			/* real gid, primary gid, supplementary */
	size_t ngroups;
};

/*
 * What is mounted, and with what, once the caller's request is checked:
 * the plan mounter.c carries out (its options are opts, set last).
 */
struct mount_request {
	struct mount_plan plan;
	char *opts;
	struct fstab_grant grant;	/* users: the fstab entry */
	int loop_fd;			/* users: the loop device held open, or -1 */
	struct notes warnings;
};

/*
 * The name goes into /run/mount/utab as user=NAME, an option string: it
 * must fit and must not carry option syntax.
 */
static bool name_fits_utab(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > USER_NAME_MAX)
		return false;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c <= ' ' || *c == 0x7f || strchr(",\"'=\\", *c))
			return false;
	return true;
}

static int caller_groups(struct caller *c, char *why, size_t whysz)
{
	int n = getgroups(0, NULL);

	if (n < 0)
		return fail(why, whysz, "cannot read the caller's groups: %s", strerror(errno));
	c->groups = calloc((size_t)n + 2, sizeof(*c->groups));
	if (!c->groups)
		return fail(why, whysz, "out of memory");
	c->groups[0] = getgid();
	c->groups[1] = c->gid;
	n = getgroups(n, c->groups + 2);
	if (n < 0)
		return fail(why, whysz, "cannot read the caller's groups: %s", strerror(errno));
	c->ngroups = (size_t)n + 2;
	return 0;
}

/* -1: refused (why), -2: system error (why) */
static int caller_init(struct caller *c, char *why, size_t whysz)
{
	struct passwd *pw;

	memset(c, 0, sizeof(*c));
	c->uid = getuid();
	c->privileged = c->uid == 0;
	c->setuid_root = !c->privileged && geteuid() == 0;
	errno = 0;
	pw = getpwuid(c->uid);
	if (pw) {
		c->gid = pw->pw_gid;
		c->name = strdup(pw->pw_name);
	} else if (c->privileged) {
		c->name = strdup("root");
	} else {
		return fail(why, whysz, "uid %lu has no passwd entry%s%s",
			    (unsigned long)c->uid, errno ? ": " : "",
			    errno ? strerror(errno) : "");
	}
	if (!c->name) {
		fail(why, whysz, "out of memory");
		return -2;
	}
	if (caller_groups(c, why, whysz))
		return -2;
	if (!c->privileged && !name_fits_utab(c->name))
		return fail(why, whysz, "user name '%.64s' cannot be recorded in "
			    "/run/mount/utab (too long, or has one of , \" ' = \\ or "
			    "blanks)", c->name);
	return 0;
}

static void caller_free(struct caller *c)
{
	free(c->name);
	free(c->groups);
}

/* Setuid: run the checks with the caller's own ids; root again only to mount. */
static int drop_effective(const struct caller *c)
{
	if (!c->setuid_root)
		return 0;
	return (setegid(getgid()) || seteuid(c->uid)) ? -1 : 0;
}

/*
 * Root for good: from here the caller cannot signal us any more (uids all
 * 0), and the terminal's signals are held until the process ends, so the
 * mount and its utab entry are never parted.
 */
static int become_root(const struct caller *c)
{
	if (!c->setuid_root)
		return 0;
	if (seteuid(0) || setgroups(0, NULL) || setresgid(0, 0, 0) ||
	    setresuid(0, 0, 0))
		return -1;
	return process_hold_signals();
}

/* Take effective uid 0 for one call; *euid is the one to go back to. */
static int euid_root(uid_t *euid)
{
	*euid = geteuid();
	return (*euid != 0 && seteuid(0) != 0) ? -1 : 0;
}

/* Go back, errno kept; failing that, end: nothing may run as root by accident. */
static void euid_back(uid_t euid)
{
	int err = errno;

	if (euid != 0 && seteuid(euid) != 0) {
		fprintf(stderr, "mount.ext4: cannot drop privileges again\n");
		_exit(MNT_EX_SYSERR);
	}
	errno = err;
}

/* stat(2) as root, for a path root wrote into /etc/fstab */
static int stat_as_root(const char *path, struct stat *st)
{
	uid_t euid;
	int rc;

	if (euid_root(&euid))
		return stat(path, st);
	rc = stat(path, st);
	euid_back(euid);
	return rc;
}

/* open a loop device as root (users cannot open /dev/loopN themselves) */
static int loop_open_as_root(const char *path, struct loop_backing *b)
{
	uid_t euid;
	int fd;

	if (euid_root(&euid))
		return -1;
	fd = loopdev_open(path, b);
	euid_back(euid);
	return fd;
}

static void print_notes(const char *prog, const char *what, const struct notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		fprintf(stderr, "%s: %s: %s\n", prog, what, n->line[i]);
}

/*
 * OPTS, to which the helper is about to append, must not run on into what
 * is appended, as the linked libmount reads them (opts_appendable()): 0, or
 * the message and MNT_EX_USAGE.
 */
static int refuse_run_on(const char *prog, const char *what, const char *opts,
			 const char *appended)
{
	if (opts_appendable(opts))
		return MNT_EX_SUCCESS;
	fprintf(stderr, "%s: %s: the mount options '%s' end in an unbalanced '\"' or "
		"a backslash: libmount would read %s after them into their last "
		"option; not mounting\n", prog, what, opts, appended);
	return MNT_EX_USAGE;
}

/* root, udisks, systemd: the command line is the request */
static int request_from_root(const char *prog, const struct request *rq,
			     struct mount_request *mr)
{
	mr->plan.source = rq->source;
	mr->plan.target = rq->target;
	mr->plan.fstype = rq->fstype;
	/* -r and -w are appended as ro and rw */
	if ((rq->rdonly || rq->rdwrite) && refuse_run_on(prog, rq->target, rq->options,
						      rq->rdonly ? "ro" : "rw"))
		return MNT_EX_USAGE;
	if (opts_from_command_line(rq->options, rq->rdonly, rq->rdwrite, &mr->opts))
		return MNT_EX_SYSERR;
	return MNT_EX_SUCCESS;
}

/* a user: refused outright, before /etc/fstab is even read; 0 or -1 */
static int user_flags_refused(const struct request *rq, char *why, size_t whysz)
{
	const char *pass = opts_passthrough(rq->options);

	if (rq->ns)
		return fail(why, whysz, "-N is for root only");
	if (rq->nomtab)
		return fail(why, whysz, "-n is for root only (mount(8) refuses it to "
			    "users too)");
	if (pass)
		return fail(why, whysz, "'%s' is for root only (mount(8) refuses it to "
			    "users too)", pass);
	/* libmount would read what follows as part of the last option (an
	 * unpaired quote; a trailing backslash for libmount 2.40+) */
	if (!opts_appendable(rq->options))
		return fail(why, whysz, "the options '%s' end in an unbalanced '\"' or a "
			    "backslash: libmount would read what follows into their last "
			    "option", rq->options);
	return 0;
}

/*
 * -f from a user: mount(8) drops its setuid for it (libmount then runs the
 * helper with -f, as the user); mount(8) alone then makes libmount's fake
 * mount as the user. So does the helper, root's ids dropped for good: the
 * same status and message (2.38: utab cannot be written, 16 or 32; 2.41:
 * 0), nothing mounted.
 */
static int user_pretends(const char *prog, const struct request *rq)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid) || geteuid() != uid) {
		fprintf(stderr, "%s: %s: cannot drop privileges\n", prog, rq->target);
		return MNT_EX_SYSERR;
	}
	return mounter_pretend(&(struct mount_plan) {
		.source = rq->source,
		.target = rq->target,
		.fstype = rq->fstype,
		.options = rq->options,
		.verbose = rq->verbose,
	}, prog);
}

/*
 * X-mount.mkdir (x-mount.mkdir) for a mount point that does not exist:
 * libmount creates it, but refuses to for a user (restricted mount(8):
 * EPERM, "operation permitted for root only", exit 1; 2.38 and 2.41
 * alike). So does the helper, before anything is created: with the
 * option dropped (decide_owner()) its own libmount would not create it,
 * and the mount would fail on the missing directory instead.
 */
static int refuse_mkdir(const char *prog, const struct mount_request *mr)
{
	struct stat st;

	if ((!opts_has(mr->opts, "X-mount.mkdir") && !opts_has(mr->opts, "x-mount.mkdir")) ||
	    stat_as_root(mr->plan.target, &st) == 0)
		return MNT_EX_SUCCESS;
	fprintf(stderr, "%s: %s: operation permitted for root only\n", prog, mr->plan.target);
	return MNT_EX_USAGE;
}

/* a user: only what /etc/fstab grants, as restricted mount(8) would pass it */
static int request_from_user(const char *prog, const struct request *rq,
			     const struct caller *c, struct mount_request *mr)
{
	struct loop_backing backing;
	char why[512] = "";

	if (user_flags_refused(rq, why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", prog, rq->target, why);
		return MNT_EX_USAGE;
	}
	if (loopdev_name(rq->source))
		mr->loop_fd = loop_open_as_root(rq->source, &backing);
	if (fstab_user_grant(FSTAB_PATH, rq->source, rq->target, c->uid, c->groups,
			     c->ngroups, mr->loop_fd >= 0 ? &backing : NULL,
			     stat_as_root, &mr->grant, why, sizeof(why)) ||
	    /* H4: a uid=/gid= that is not the caller's own, named as such */
	    opts_check_ids(rq->options, mr->grant.options, c->uid, c->groups,
			   c->ngroups, why, sizeof(why)) ||
	    opts_check_user_argv(rq->options, mr->grant.options, c->name,
				 why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", prog, rq->target, why);
		return MNT_EX_USAGE;
	}
	mr->plan.source = mr->grant.source;
	mr->plan.target = mr->grant.target;
	mr->plan.fstype = mr->grant.fstype ? mr->grant.fstype : rq->fstype;
	/* the entry's options (root's) get the implied ones and user=NAME */
	if (refuse_run_on(prog, mr->plan.target, mr->grant.options,
			  "noexec, nosuid, nodev and user="))
		return MNT_EX_USAGE;
	if (opts_for_user_mount(mr->grant.options, rq->options, rq->rdonly,
				c->name, &mr->opts, &mr->warnings))
		return MNT_EX_SYSERR;
	/* the source is the loop device already: no second one on top */
	if (mr->grant.loop && opts_drop_loop(&mr->opts))
		return MNT_EX_SYSERR;
	return refuse_mkdir(prog, mr);
}

/*
 * K10 for FSTYPE, with effective uid 0 for the fsopen(2) probe (which needs
 * CAP_SYS_ADMIN and touches no device); without it, the sysfs files tell.
 */
static bool kernel_supports(const char *fstype)
{
	uid_t euid;
	bool ret;

	if (euid_root(&euid))
		return kernel_supports_override_running(fstype);
	ret = kernel_supports_override_running(fstype);
	euid_back(euid);
	return ret;
}

/* H2, H3, H5-H7, H9: who owns the files; *opts rewritten accordingly */
static int decide_owner(const char *prog, const struct caller *c,
			const struct policy *policy, struct mount_request *mr,
			struct owner_decision *d, struct notes *notes)
{
	struct device_info dev = { 0 };
	struct owner_input in;
	struct stat st;
	bool boot = false;

	bool ids = opts_has(mr->opts, "uid") || opts_has(mr->opts, "gid");
	/* X-mount.idmap= (libmount 2.39+): mount(8) idmaps the mount itself */
	bool mount8_idmaps = opts_has(mr->opts, "X-mount.idmap") && mounter_libmount_idmaps();

	if (stat(mr->plan.source, &st) == 0 && S_ISBLK(st.st_mode)) {
		device_lookup(st.st_rdev, &dev);
		if (dev.removable)
			boot = bootfs_holds(st.st_rdev, "/", FSTAB_PATH);
	}
	in = (struct owner_input) {
		.privileged = c->privileged,
		.uid = c->uid,
		.gid = c->gid,
		.groups = c->groups,
		.ngroups = c->ngroups,
		.options = mr->opts,
		.removable = dev.removable,
		.fs_uuid = dev.fs_uuid,
		.boot_fs = boot,
		.passthrough = opts_passthrough(mr->opts),
		/* only a tagged device can get an owner, and given uid=/gid=
		 * may need the fallback: the module lists are read for nothing
		 * else */
		.kernel_support = (dev.removable || ids) &&
				  kernel_supports(mr->plan.fstype),
		.mount8_idmaps = mount8_idmaps,
		.policy = policy,
	};
	owner_decide(&in, d);
	/* a user's options are the fstab entry's, which mount(8) keeps to
	 * itself (X-* never reach a helper): its X-mount.idmap= is mount(8)'s
	 * to apply after the helper, once; the helper's libmount would idmap
	 * first and mount(8)'s second idmap fail (EPERM) */
	if (mount8_idmaps && !c->privileged) {
		if (opts_remove_all(&mr->opts, "X-mount.idmap") < 0)
			return MNT_EX_SYSERR;
		notes_add(notes, "X-mount.idmap= left to mount(8), which applies it "
			  "after the helper");
		/* mount(8) replaces the mount by an idmapped one (a new mount
		 * ID): the utab entry is its own to write */
		mr->plan.utab_to_mount8 = true;
	}
	/* X-mount.* are mount(8)'s (it never passes them to a helper, and
	 * acts on those it knows itself, as restricted mount(8) allows): the
	 * helper's unrestricted libmount would act on them as root */
	if (!c->privileged) {
		int n = opts_drop_x_mount(&mr->opts);

		if (n < 0)
			return MNT_EX_SYSERR;
		if (n)
			notes_add(notes, "X-mount.* options of the fstab entry left to "
				  "mount(8): the helper does not act on them for a user");
	}
	if (d->kernel_missing)		/* H6: once, whether -v or not */
		msg_no_kernel_support(prog, mr->plan.source, mr->plan.fstype, ", %s; mounting "
				      "without the ownership override", d->why);
	/* what the helper adds or a user mount relies on must reach the kernel */
	if ((d->action != OWNER_LEAVE || !c->privileged) &&
	    refuse_run_on(prog, mr->plan.source, mr->opts,
			  "nosuid, nodev, uid= and gid="))
		return MNT_EX_USAGE;
	if (opts_apply_owner(&mr->opts, d, notes))
		return MNT_EX_SYSERR;
	if (d->action == OWNER_LEAVE) {
		/* a user's owner root granted in fstab (owner_decide() says) */
		if (d->nosuid_nodev && opts_force_nosuid_nodev(&mr->opts, notes))
			return MNT_EX_SYSERR;
		notes_add(notes, "options unchanged: %s", d->why);
	}
	return MNT_EX_SUCCESS;
}

/* The policy is read while still root (a 0600 file is the administrator's
 * right); a file that exists but cannot be used adds no owner (H10). */
static void load_policy(const char *prog, struct policy *policy)
{
	char why[512] = "";

	if (policy_load(policy, EXTOWN_CONF, &policy_system_names, why, sizeof(why)) < 0)
		fprintf(stderr, "%s: %s: %s; adding no owner to any mount until it is "
			"fixed\n", prog, EXTOWN_CONF, why);
}

/* the mount itself, idmapped where the decision says so and it can be */
static int do_mount(const char *prog, const struct mount_plan *plan,
		    const struct owner_decision *d)
{
	int ex;

	if (d->action != OWNER_IDMAP)
		return mounter_mount(plan, prog);
	ex = mounter_mount_idmapped(plan, &(struct idmap_plan) {
		.map_uid = d->map_uid,
		.map_gid = d->map_gid,
		.uid = d->uid,
		.gid = d->gid,
	}, prog);
	return ex == MOUNTER_PLAIN ? mounter_mount(plan, prog) : ex;
}

static int run(const char *prog, int argc, char *argv[])
{
	struct request rq;
	struct caller caller;
	struct policy policy;
	struct owner_decision d;
	struct notes notes = { 0 };
	struct mount_request mr = { .loop_fd = -1 };
	char why[512] = "";
	int ex, rc;

	load_policy(prog, &policy);
	rc = caller_init(&caller, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, why);
		ex = rc == -2 ? MNT_EX_SYSERR : MNT_EX_USAGE;
		goto out;
	}
	if (drop_effective(&caller)) {
		fprintf(stderr, "%s: cannot drop privileges\n", prog);
		ex = MNT_EX_SYSERR;
		goto out;
	}
	if (request_parse(&rq, argc, argv, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", prog, why);
		ex = MNT_EX_USAGE;
		goto out;
	}
	for (size_t i = 0; i < rq.nunknown; i++)
		fprintf(stderr, "%s: ignoring unknown option '%s'\n", prog, rq.unknown[i]);

	if (!caller.privileged && rq.fake) {
		ex = user_pretends(prog, &rq);
		goto out;
	}
	ex = caller.privileged ? request_from_root(prog, &rq, &mr) :
		request_from_user(prog, &rq, &caller, &mr);
	if (ex == MNT_EX_SUCCESS) {
		print_notes(prog, mr.plan.target, &mr.warnings);
		ex = decide_owner(prog, &caller, &policy, &mr, &d, &notes);
	}
	if (ex == MNT_EX_SYSERR)
		fprintf(stderr, "%s: %s: out of memory\n", prog, rq.target);
	if (ex != MNT_EX_SUCCESS)
		goto out;
	if (rq.verbose) {
		print_notes(prog, mr.plan.source, &notes);
		fprintf(stderr, "%s: mounting %s on %s type %s options '%s'\n",
			prog, mr.plan.source, mr.plan.target, mr.plan.fstype, mr.opts);
	}
	if (!caller.privileged && !caller.setuid_root) {
		fprintf(stderr, "%s: %s: only root can mount it: %s is not installed "
			"setuid root\n", prog, mr.plan.target, prog);
		ex = MNT_EX_USAGE;
		goto out;
	}
	if (become_root(&caller)) {
		fprintf(stderr, "%s: %s: cannot regain root privileges\n", prog, mr.plan.target);
		ex = MNT_EX_SYSERR;
		goto out;
	}
	mr.plan.options = mr.opts;
	mr.plan.ns = rq.ns;
	mr.plan.sloppy = rq.sloppy;
	mr.plan.fake = rq.fake;
	mr.plan.nomtab = rq.nomtab;
	mr.plan.verbose = rq.verbose;
	ex = do_mount(prog, &mr.plan, &d);
out:
	if (mr.loop_fd >= 0)
		close(mr.loop_fd);
	free(mr.opts);
	fstab_grant_free(&mr.grant);
	caller_free(&caller);
	return ex;
}

int main(int argc, char *argv[])
{
	const char *prog = request_progname(argc > 0 ? argv[0] : NULL);

	/* a user's: nothing inherited is trusted (signals, limits, timers,
	 * descriptors, environment, umask); see process.h */
	if (getuid() != 0) {
		char why[256] = "";

		if (process_sanitize(why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", prog, why);
			return MNT_EX_SYSERR;
		}
	}
	return run(prog, argc, argv);
}
