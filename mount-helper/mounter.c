// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mounter.c - perform the mount with libmount, helpers disabled; or, for
 * the idmapped-mount fallback, with the kernel's mount API and libmount
 * only for the preparation and /run/mount/utab.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libmount.h>

#include "idmap.h"
#include "idmount.h"
#include "mounter.h"

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

int mounter_mount(const struct mount_plan *p, const char *progname)
{
	struct libmnt_context *cxt;
	int ex;

	cxt = new_context(p, p->fstype, progname, &ex);
	if (!cxt)
		return ex;
	ex = report(cxt, mnt_context_mount(cxt), p, progname);
	mnt_free_context(cxt);
	return ex;
}

/* Which ids to swap; false (and why) when there is nothing to map. */
static bool choose_map(const struct idmap_owner *own, const struct idmap_plan *ip,
		       bool *uid, bool *gid, char *why, size_t whysz)
{
	*uid = ip->map_uid && own->found_uid && ip->uid != 0 && own->id.uid != ip->uid;
	*gid = ip->map_gid && own->found_gid && ip->gid != 0 && own->id.gid != ip->gid;
	if (*uid || *gid)
		return true;
	if (!own->found_uid && !own->found_gid)
		snprintf(why, whysz, "no owner other than root on the filesystem");
	else
		snprintf(why, whysz, "its owner %u:%u is already the one asked for",
			 own->id.uid, own->id.gid);
	return false;
}

/* MFD idmapped: SHOWN's ids swapped with the stick owner's; 0 or -1, errno */
static int apply_idmap(int mfd, const struct idmap_owner *own, bool uid, bool gid,
		       const struct idmap_plan *ip)
{
	char umap[IDMAP_MAP_LEN], gmap[IDMAP_MAP_LEN];
	int nsfd, rc, err;

	if (idmap_map_text(umap, sizeof(umap), own->id.uid, uid ? ip->uid : own->id.uid) ||
	    idmap_map_text(gmap, sizeof(gmap), own->id.gid, gid ? ip->gid : own->id.gid)) {
		errno = EOVERFLOW;
		return -1;
	}
	nsfd = idmap_userns_fd(umap, gmap);
	if (nsfd < 0)
		return -1;
	rc = idmount_set_idmap(mfd, nsfd);
	err = errno;
	close(nsfd);
	errno = err;
	return rc;
}

static void say_mapped(const struct mount_plan *p, const struct idmap_owner *own,
		       bool uid, bool gid, const struct idmap_plan *ip,
		       const char *progname)
{
	char u[64] = "", g[64] = "";

	if (uid)
		snprintf(u, sizeof(u), "uid %u shown as %u", own->id.uid, (unsigned)ip->uid);
	if (gid)
		snprintf(g, sizeof(g), "gid %u shown as %u", own->id.gid, (unsigned)ip->gid);
	fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support for %s; "
		"idmapped mount instead: %s%s%s (and the other way round), other owners "
		"as they are, new files written as %u:%u%s\n", progname, p->source,
		p->fstype, u, uid && gid ? ", " : "", g, own->id.uid, own->id.gid,
		strcmp(p->fstype, "ext4") ? " (mounted with the ext4 driver, as type ext4)" : "");
}

/* the mount API part; MOUNTER_PLAIN, or mount(8)'s status */
static int idmapped(struct libmnt_context *cxt, const struct mount_plan *p,
		    const struct idmap_plan *ip, const char *progname)
{
	struct idmap_owner own;
	unsigned long mflags = 0;
	bool ro, uid, gid;
	char why[512] = "";
	const char *src = mnt_context_get_source(cxt);
	int mfd;

	mnt_context_get_mflags(cxt, &mflags);
	mfd = idmount_create(src, "ext4", mnt_fs_get_fs_options(mnt_context_get_fs(cxt)),
			     mflags, &ro, why, sizeof(why));
	if (mfd < 0 && errno == ENOSYS) {
		fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support for "
			"%s, nor the new mount API; mounting without an owner\n", progname,
			src, p->fstype);
		return MOUNTER_PLAIN;
	}
	if (mfd < 0) {
		/* no ext4 driver, or it refuses this filesystem or an option:
		 * the mount as it would be without us says what is wrong, if
		 * anything is */
		fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support for "
			"%s, and the ext4 driver cannot mount it for an idmapped mount: "
			"%s; mounting without an owner\n", progname, src, p->fstype,
			*why ? why : strerror(errno));
		return MOUNTER_PLAIN;
	}
	if (idmap_scan_owner(mfd, &own)) {
		snprintf(why, sizeof(why), "cannot read its root directory: %s", strerror(errno));
		uid = gid = false;
	} else if (!choose_map(&own, ip, &uid, &gid, why, sizeof(why))) {
		;
	} else if (apply_idmap(mfd, &own, uid, gid, ip)) {
		snprintf(why, sizeof(why), "the kernel cannot idmap this mount: %s",
			 strerror(errno));
		uid = gid = false;
	}
	if (!uid && !gid) {
		close(mfd);	/* detached, never attached: unmounted */
		fprintf(stderr, "%s: %s: the running kernel has no uid=/gid= support for "
			"%s, and no idmapped mount is made: %s; mounting without an owner\n",
			progname, src, p->fstype, why);
		return MOUNTER_PLAIN;
	}
	if (idmount_attach(mfd, p->target)) {
		fprintf(stderr, "%s: %s: cannot attach the mount: %s\n", progname,
			p->target, strerror(errno));
		close(mfd);
		return MNT_EX_FAIL;
	}
	close(mfd);
	say_mapped(p, &own, uid, gid, ip, progname);
	if (ro)
		fprintf(stderr, "%s: %s: WARNING: source write-protected, mounted "
			"read-only.\n", progname, p->target);
	return MNT_EX_SUCCESS;
}

int mounter_mount_idmapped(const struct mount_plan *p, const struct idmap_plan *ip,
			   const char *progname)
{
	struct libmnt_context *cxt;
	int ex, rc;

	/* only the ext4 type may be idmapped (FS_ALLOW_IDMAP); its driver
	 * serves ext2 and ext3 filesystems as well */
	cxt = new_context(p, "ext4", progname, &ex);
	if (!cxt)
		return ex;
	rc = mnt_context_prepare_mount(cxt);
	if (rc) {
		ex = report(cxt, rc, p, progname);
	} else {
		ex = idmapped(cxt, p, ip, progname);
		if (ex == MNT_EX_SUCCESS) {
			/* /run/mount/utab: user=, uhelper= as for any mount */
			mnt_context_set_syscall_status(cxt, 0);
			rc = mnt_context_finalize_mount(cxt);
			if (rc)
				fprintf(stderr, "%s: %s: mounted, but /run/mount/utab was "
					"not updated: %s\n", progname, p->target,
					strerror(rc < 0 ? -rc : rc));
		}
	}
	mnt_free_context(cxt);
	return ex;
}
