// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mounter.c - perform the mount with libmount, helpers disabled; or, for
 * the idmapped-mount fallback, with the kernel's mount API and libmount
 * only for the preparation and /run/mount/utab.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libmount.h>

#include "idmap.h"
#include "mountapi.h"
#include "mounter.h"
#include "msg.h"
#include "optstr.h"

/* the context of a mount.<type> helper for PLAN, with type FSTYPE; 0 or -1 */
static int setup_context(struct libmnt_context *cxt, const struct mount_plan *p,
			 const char *fstype)
{
	/* as a mount.<type> helper does: no helpers (no recursion), and the
	 * options are ours alone, not merged again with fstab */
	int rc = mnt_context_init_helper(cxt, MNT_ACT_MOUNT, 0);

	if (!rc)
		rc = mnt_context_set_optsmode(cxt, MNT_OMODE_IGNORE);
	if (!rc)
		rc = mnt_context_set_source(cxt, p->source);
	if (!rc)
		rc = mnt_context_set_target(cxt, p->target);
	if (!rc)
		rc = mnt_context_set_fstype(cxt, fstype);
	if (!rc && p->options && *p->options)
		rc = mnt_context_set_options(cxt, p->options);
	if (!rc && p->sloppy)
		rc = mnt_context_helper_setopt(cxt, 's', NULL);
	if (!rc && p->fake)
		rc = mnt_context_helper_setopt(cxt, 'f', NULL);
	if (!rc && p->nomtab)
		rc = mnt_context_helper_setopt(cxt, 'n', NULL);
	if (!rc && p->ns)
		rc = mnt_context_helper_setopt(cxt, 'N', (char *)p->ns);
	return rc ? -1 : 0;
}

static struct libmnt_context *new_context(const struct mount_plan *p, const char *fstype,
					  const char *progname, int *ex)
{
	struct libmnt_context *cxt = mnt_new_context();

	*ex = MNT_EX_SUCCESS;
	if (!cxt) {
		fprintf(stderr, "%s: %s: out of memory\n", progname, p->source);
		*ex = MNT_EX_SYSERR;
	} else if (setup_context(cxt, p, fstype)) {
		fprintf(stderr, "%s: %s: cannot set up the mount: %s\n", progname,
			p->source, "invalid argument or out of memory");
		mnt_free_context(cxt);
		cxt = NULL;
		*ex = MNT_EX_USAGE;
	}
	return cxt;
}

/* whether the libmount we (and so mount(8)) run with has FEATURE */
static bool libmount_has(const char *feature)
{
	const char **features = NULL;
	int n = mnt_get_library_features(&features);

	for (int i = 0; i < n && features && features[i]; i++)
		if (strcmp(features[i], feature) == 0)
			return true;
	return false;
}

bool mounter_libmount_idmaps(void)
{
	return libmount_has("idmapping");
}

/* mount(8)'s status for RC, with its message (worded like mount(8)) */
static int report(struct libmnt_context *cxt, int rc, const struct mount_plan *p,
		  const char *progname)
{
	char buf[BUFSIZ] = "";
	int ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));

	if (*buf)
		fprintf(stderr, "%s: %s: %s\n", progname, p->target, buf);
	else if (ex != MNT_EX_SUCCESS)
		fprintf(stderr, "%s: %s: mount failed\n", progname, p->target);
	return ex;
}

/* the NAME of user=NAME in the plan's options (a new string), or NULL */
static char *plan_user(const struct mount_plan *p)
{
	const char *name;
	size_t namesz;

	if (opts_get(p->options, "user", &name, &namesz) != 0 || !name || !namesz)
		return NULL;
	return strndup(name, namesz);
}

/* whether FS's utab options hold user=USER */
static bool fs_has_user(struct libmnt_fs *fs, const char *user)
{
	char *have;
	size_t havesz;

	return mnt_optstr_get_option(mnt_fs_get_user_options(fs), "user", &have, &havesz) == 0 &&
	       havesz == strlen(user) && strncmp(have, user, havesz) == 0;
}

/*
 * How many mounts on TARGET carry user=USER as libmount merges mountinfo
 * and utab, or -errno. utab entries without a mount ID (libmount 2.38's,
 * ours) go to the topmost mount of the same source, target and root that
 * has none yet, so a second mount stacked on the first takes the first
 * one's entry: only the count tells whether one was written for it.
 */
static int user_mounts(const char *target, const char *user)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_cache *cache = mnt_new_cache();
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int n = -ENOMEM;

	if (tb && cache && itr && mnt_table_set_cache(tb, cache) == 0) {
		n = mnt_table_parse_mtab(tb, NULL);
		while (n >= 0 && mnt_table_next_fs(tb, itr, &fs) == 0)
			if (mnt_fs_match_target(fs, target, cache) && fs_has_user(fs, user))
				n++;
	}
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	mnt_unref_cache(cache);
	return n;
}

int mounter_pretend(const struct mount_plan *p, const char *progname)
{
	struct libmnt_context *cxt = mnt_new_context();
	int rc = -ENOMEM, ex;

	if (!cxt) {
		fprintf(stderr, "%s: %s: out of memory\n", progname, p->target);
		return MNT_EX_SYSERR;
	}
	if (!mnt_context_force_unrestricted(cxt) && !mnt_context_disable_helpers(cxt, 1) &&
	    !mnt_context_enable_fake(cxt, 1) && !mnt_context_enable_verbose(cxt, p->verbose) &&
	    !mnt_context_set_source(cxt, p->source) && !mnt_context_set_target(cxt, p->target) &&
	    !mnt_context_set_fstype(cxt, p->fstype) &&
	    (!p->options || !mnt_context_set_options(cxt, p->options)))
		rc = mnt_context_mount(cxt);
	ex = report(cxt, rc, p, progname);
	mnt_free_context(cxt);
	return ex;
}

/* the user=NAME mounts on P's target now, for record_user; 0 without -f,
 * -n, -N or user=NAME (nothing to record then) */
static int user_mounts_before(const struct mount_plan *p)
{
	char *user = p->fake || p->nomtab || p->ns || !p->target ? NULL : plan_user(p);
	int n = user ? user_mounts(p->target, user) : 0;

	free(user);
	return n;
}

/*
 * The user=NAME of the final options in /run/mount/utab, so that NAME can
 * umount. libmount 2.38 writes it there from within a helper; libmount
 * 2.40+ keeps a user=NAME given to a helper out of utab (mount(8) 2.40+
 * adds it itself once the helper has exited, unless utab has an entry of
 * the same source and target with every option already), so a helper run
 * without mount(8) would leave a mount its user cannot unmount, and a
 * second mount stacked on the first none at all. Whatever the libmount:
 * when the mounts on the target with user=NAME are no more than BEFORE
 * (user_mounts_before), write an entry with libmount's update API (the new
 * mount's own entry modified, or one added). 0, or -errno / a libmount
 * error.
 */
static int record_user(struct libmnt_context *cxt, const struct mount_plan *p, int before)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_update *upd = NULL;
	struct libmnt_fs *fs, *entry = NULL;
	const char *target = mnt_context_get_target(cxt);
	char *user = NULL, *opt = NULL;
	const char *uopts;
	bool own;
	int rc;

	/* -f, -n: no utab; -N: the entry is the other namespace's */
	if (p->fake || p->nomtab || p->ns || !target || !p->target || !(user = plan_user(p)))
		return 0;
	rc = before < 0 ? before : user_mounts(p->target, user);
	if (rc < 0 || rc > before) {
		free(user);
		return rc < 0 ? rc : 0;	/* > before: libmount 2.38 wrote it */
	}
	tb = mnt_new_table();
	rc = !tb ? -ENOMEM : mnt_table_parse_mtab(tb, NULL);
	if (rc)
		goto out;
	fs = mnt_table_find_target(tb, target, MNT_ITER_BACKWARD);
	if (!fs) {
		rc = -ENOENT;
		goto out;
	}
	/*
	 * Source, target, root and the user options: no mount ID, which
	 * mount(8) 2.39+ changes when it idmaps the mount (X-mount.idmap=,
	 * a new mount moved in place) after the helper; utab entries without
	 * one are matched by source, target and root, as 2.38 writes them.
	 * The entry libmount wrote for this mount (uhelper=, x-..., no user=)
	 * gets user= beside the rest (MS_REMOUNT: its options replaced);
	 * else a new entry: the one the top mount shows may be a lower
	 * mount's that it took.
	 */
	uopts = mnt_fs_get_user_options(fs);
	own = uopts && mnt_optstr_get_option(uopts, "user", NULL, NULL) == 1;
	entry = mnt_new_fs();
	upd = mnt_new_update();
	if (!entry || !upd || opts_append(&opt, "user", user) ||
	    mnt_fs_set_source(entry, mnt_fs_get_source(fs)) ||
	    mnt_fs_set_target(entry, mnt_fs_get_target(fs)) ||
	    mnt_fs_set_root(entry, mnt_fs_get_root(fs)) ||
	    mnt_fs_set_fstype(entry, mnt_fs_get_fstype(fs)) ||
	    (own && mnt_fs_set_options(entry, uopts)) ||
	    mnt_fs_append_options(entry, opt)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = mnt_update_set_fs(upd, own ? MS_REMOUNT : 0, NULL, entry);
	if (rc == 1)
		rc = 0;		/* no writable utab: none is kept anywhere */
	else if (rc == 0)
		rc = mnt_update_table(upd, NULL);
out:
	mnt_free_update(upd);
	mnt_unref_fs(entry);
	mnt_unref_table(tb);
	free(opt);
	free(user);
	return rc;
}

/* as mount(8) says it when the mount is made but utab is not written */
static int report_utab(int rc, const struct mount_plan *p, const char *progname)
{
	if (!rc)
		return MNT_EX_SUCCESS;
	fprintf(stderr, "%s: %s: filesystem was mounted, but failed to update userspace "
		"mount table (user= not recorded: %s).\n", progname, p->target,
		strerror(rc < 0 ? -rc : rc));
	return MNT_EX_FILEIO;
}

int mounter_mount(const struct mount_plan *p, const char *progname)
{
	struct libmnt_context *cxt;
	int ex, before;

	cxt = new_context(p, p->fstype, progname, &ex);
	if (!cxt)
		return ex;
	before = user_mounts_before(p);
	ex = report(cxt, mnt_context_mount(cxt), p, progname);
	if (ex == MNT_EX_SUCCESS)
		ex = report_utab(record_user(cxt, p, before), p, progname);
	mnt_free_context(cxt);
	return ex;
}

/* what the fallback did, said once the mount is complete */
struct idmapped {
	struct idmap_owner own;
	bool uid, gid;		/* which of the two are mapped */
	bool ro;		/* write-protected: retried read-only */
};

/* why one id asked for (KIND: "uid" or "gid") is not mapped, added to WHY */
static void why_unmapped(char *why, size_t whysz, const char *kind, bool found,
			 uint32_t owner, unsigned long asked)
{
	size_t len = strlen(why);
	const char *sep = len ? ", " : "";

	if (!found)
		snprintf(why + len, whysz - len, "%sno owner other than root on the "
			 "filesystem for the %s", sep, kind);
	else if (asked == 0)
		snprintf(why + len, whysz - len, "%s%s 0 is never mapped", sep, kind);
	else
		snprintf(why + len, whysz - len, "%sits owner %s %u is already the one "
			 "asked for", sep, kind, owner);
}

/* Which ids to map; false (and why) when there is nothing to map. */
static bool choose_map(const struct idmap_owner *own, const struct idmap_plan *ip,
		       bool *uid, bool *gid, char *why, size_t whysz)
{
	*uid = ip->map_uid && own->found_uid && ip->uid != 0 && own->id.uid != ip->uid;
	*gid = ip->map_gid && own->found_gid && ip->gid != 0 && own->id.gid != ip->gid;
	if (*uid || *gid)
		return true;
	*why = '\0';
	if (!own->found_uid && !own->found_gid) {
		snprintf(why, whysz, "no owner other than root on the filesystem");
		return false;
	}
	if (ip->map_uid)
		why_unmapped(why, whysz, "uid", own->found_uid, own->id.uid, ip->uid);
	if (ip->map_gid)
		why_unmapped(why, whysz, "gid", own->found_gid, own->id.gid, ip->gid);
	return false;
}

/* MFD idmapped: the stick owner's ids shown as PLAN's; 0, or -1 with why */
static int apply_idmap(int mfd, const struct idmapped *r, const struct idmap_plan *ip,
		       char *why, size_t whysz)
{
	char umap[IDMAP_MAP_LEN], gmap[IDMAP_MAP_LEN];
	int nsfd, rc;

	if (idmap_map_text(umap, sizeof(umap), r->own.id.uid,
			   r->uid ? ip->uid : r->own.id.uid) ||
	    idmap_map_text(gmap, sizeof(gmap), r->own.id.gid,
			   r->gid ? ip->gid : r->own.id.gid))
		return fail(why, whysz, "the idmapping does not fit");
	nsfd = idmap_userns_fd(umap, gmap, why, whysz);
	if (nsfd < 0)
		return -1;
	rc = mountapi_set_idmap(mfd, nsfd);
	if (rc)
		fail(why, whysz, "the kernel cannot idmap this mount: %s", strerror(errno));
	close(nsfd);
	return rc;
}

/*
 * One line: what is shown as whom, what nobody owns on this mount, and what
 * a new file of the shown owner is written as on disk (checked against
 * debugfs by tests/privilege).
 */
static void say_mapped(const struct mount_plan *p, const struct idmapped *r,
		       const struct idmap_plan *ip, const char *progname)
{
	char shown[96] = "", hidden[64] = "", who[32], disk[64];
	const char *both = r->uid && r->gid ? ", " : "";

	if (r->uid)
		snprintf(shown, sizeof(shown), "uid %u shown as %lu", r->own.id.uid,
			 (unsigned long)ip->uid);
	if (r->gid)
		snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown),
			 "%sgid %u shown as %lu", both, r->own.id.gid, (unsigned long)ip->gid);
	if (r->uid)
		snprintf(hidden, sizeof(hidden), "uid %lu", (unsigned long)ip->uid);
	if (r->gid)
		snprintf(hidden + strlen(hidden), sizeof(hidden) - strlen(hidden),
			 "%sgid %lu", r->uid ? " or " : "", (unsigned long)ip->gid);
	if (r->uid)
		snprintf(who, sizeof(who), "uid %lu", (unsigned long)ip->uid);
	else
		snprintf(who, sizeof(who), "gid %lu", (unsigned long)ip->gid);
	if (r->uid && r->gid)
		snprintf(disk, sizeof(disk), "uid %u, gid %u", r->own.id.uid, r->own.id.gid);
	else if (r->uid)
		snprintf(disk, sizeof(disk), "uid %u, their own gid", r->own.id.uid);
	else
		snprintf(disk, sizeof(disk), "their own uid, gid %u", r->own.id.gid);
	msg_no_kernel_support(progname, p->source, p->fstype, "; idmapped mount instead: "
			      "%s, other owners as they are; files of %s on the "
			      "filesystem show as the overflow id (nobody); new files "
			      "of %s are written as %s%s", shown, hidden, who, disk,
			      strcmp(p->fstype, "ext4") ?
			      " (mounted with the ext4 driver, as type ext4)" : "");
}

/* mount(8)'s status and message for a failed system call ERR on the target */
static int report_syscall(struct libmnt_context *cxt, int err, const struct mount_plan *p,
			  const char *progname)
{
	mnt_context_set_syscall_status(cxt, -err);
	return report(cxt, -err, p, progname);
}

/*
 * The lock that makes "is it mounted there already?" and the attach one
 * step for every run of the fallback (mount(2) does both under the
 * kernel's namespace lock; move_mount() does not check at all). Root's
 * own file: no user can open it. The descriptor, or -1.
 */
static int lock_attach(void)
{
	int fd;

	if (mkdir("/run/mount", 0755) && errno != EEXIST)
		return -1;
	fd = open("/run/mount/extown.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/*
 * The mount point, opened as the path libmount canonicalised and records
 * in utab, with no symbolic link on the way: the place mounted is the
 * place recorded. The descriptor, or -1 with errno.
 */
static int open_target(const char *target)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, target, &how, sizeof(how));
}

/*
 * mount(2)'s EBUSY: the mount point (TFD: whatever is mounted on top of it)
 * is already the root of a mount of the device DEV.
 */
static bool mounted_there(int tfd, dev_t dev)
{
	struct statx stx;

	if (statx(tfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx))
		return false;
	return (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	       (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
	       makedev(stx.stx_dev_major, stx.stx_dev_minor) == dev;
}

/* the owner read and the idmapping applied on the detached mount MFD */
static bool map_detached(int mfd, const struct idmap_plan *ip, struct idmapped *r,
			 char *why, size_t whysz)
{
	if (idmap_scan_owner(mfd, &r->own)) {
		snprintf(why, whysz, "cannot read its root directory: %s", strerror(errno));
		return false;
	}
	if (!choose_map(&r->own, ip, &r->uid, &r->gid, why, whysz))
		return false;
	if (apply_idmap(mfd, r, ip, why, whysz)) {
		r->uid = r->gid = false;
		return false;
	}
	return true;
}

/*
 * The mount API part, with the attach lock held: MOUNTER_PLAIN, or
 * mount(8)'s status; with MNT_EX_SUCCESS the mount is attached at TFD.
 */
static int idmapped_locked(struct libmnt_context *cxt, const struct mount_plan *p,
			   const struct idmap_plan *ip, int tfd, struct idmapped *r,
			   const char *progname)
{
	unsigned long mflags = 0;
	char why[512] = "";
	const char *src = mnt_context_get_source(cxt);
	struct stat st;
	int mfd;

	/* mount(2), which libmount mounts with up to 2.38, refuses the same
	 * filesystem twice on one mount point (mount(8): "already mounted");
	 * move_mount(2), which our attach is and libmount's fd-based mount
	 * (2.39+) too, stacks it: the caller's mount(8) decides */
	if (!libmount_has("fd-based-mount") && stat(src, &st) == 0 && S_ISBLK(st.st_mode) &&
	    mounted_there(tfd, st.st_rdev))
		return report_syscall(cxt, EBUSY, p, progname);
	mnt_context_get_mflags(cxt, &mflags);
	mfd = mountapi_create(src, "ext4", mnt_fs_get_fs_options(mnt_context_get_fs(cxt)),
			     mflags, &r->ro, why, sizeof(why));
	if (mfd < 0 && errno == ENOSYS) {
		msg_no_kernel_support(progname, src, p->fstype, ", nor the new mount "
				      "API; mounting without an owner");
		return MOUNTER_PLAIN;
	}
	if (mfd < 0) {
		/* no ext4 driver, or it refuses this filesystem or an option:
		 * the mount as it would be without us says what is wrong, if
		 * anything is */
		msg_no_kernel_support(progname, src, p->fstype, ", and the ext4 driver "
				      "cannot mount it for an idmapped mount: %s; mounting "
				      "without an owner", *why ? why : strerror(errno));
		return MOUNTER_PLAIN;
	}
	if (!map_detached(mfd, ip, r, why, sizeof(why))) {
		close(mfd);	/* detached, never attached: unmounted */
		msg_no_kernel_support(progname, src, p->fstype, ", and no idmapped mount "
				      "is made: %s; mounting without an owner", why);
		return MOUNTER_PLAIN;
	}
	if (mountapi_attach(mfd, tfd)) {
		int err = errno;

		close(mfd);
		return report_syscall(cxt, err, p, progname);
	}
	close(mfd);
	return MNT_EX_SUCCESS;
}

/* the target first (nothing is mounted for a target that cannot take it) */
static int idmapped(struct libmnt_context *cxt, const struct mount_plan *p,
		    const struct idmap_plan *ip, struct idmapped *r, const char *progname)
{
	const char *target = mnt_context_get_target(cxt);
	int tfd, lockfd, ex;

	tfd = open_target(target ? target : p->target);
	if (tfd < 0 && errno == ENOSYS) {
		msg_no_kernel_support(progname, p->source, p->fstype, ", nor the new "
				      "mount API; mounting without an owner");
		return MOUNTER_PLAIN;
	}
	if (tfd < 0)
		return report_syscall(cxt, errno, p, progname);
	lockfd = lock_attach();
	if (lockfd < 0) {
		msg_no_kernel_support(progname, p->source, p->fstype, ", and no idmapped "
				      "mount is made: cannot lock /run/mount/extown.lock: %s; "
				      "mounting without an owner", strerror(errno));
		close(tfd);
		return MOUNTER_PLAIN;
	}
	ex = idmapped_locked(cxt, p, ip, tfd, r, progname);
	close(lockfd);
	close(tfd);
	return ex;
}

int mounter_mount_idmapped(const struct mount_plan *p, const struct idmap_plan *ip,
			   const char *progname)
{
	struct libmnt_context *cxt;
	struct idmapped r = { 0 };
	int ex, rc, before;

	if (p->fake || p->ns) {
		msg_no_kernel_support(progname, p->source, p->fstype, ", and no idmapped "
				      "mount is made with -%c; mounting without an owner",
				      p->fake ? 'f' : 'N');
		return MOUNTER_PLAIN;
	}
	/* only the ext4 type may be idmapped (FS_ALLOW_IDMAP); its driver
	 * serves ext2 and ext3 filesystems as well */
	cxt = new_context(p, "ext4", progname, &ex);
	if (!cxt)
		return ex;
	rc = mnt_context_prepare_mount(cxt);
	if (rc) {
		ex = report(cxt, rc, p, progname);
		goto out;
	}
	before = user_mounts_before(p);
	ex = idmapped(cxt, p, ip, &r, progname);
	if (ex != MNT_EX_SUCCESS)
		goto out;
	/* /run/mount/utab (user=, uhelper= as for any mount) before a word is
	 * written: a stderr that blocks or is closed cannot leave a mount
	 * without its entry */
	mnt_context_set_syscall_status(cxt, 0);
	rc = mnt_context_finalize_mount(cxt);
	if (!rc)
		rc = record_user(cxt, p, before);
	say_mapped(p, &r, ip, progname);
	if (r.ro)
		fprintf(stderr, "%s: %s: WARNING: source write-protected, mounted "
			"read-only.\n", progname, p->target);
	if (rc)
		fprintf(stderr, "%s: %s: mounted, but /run/mount/utab was not updated: %s\n",
			progname, p->target, strerror(rc < 0 ? -rc : rc));
out:
	mnt_free_context(cxt);
	return ex;
}
