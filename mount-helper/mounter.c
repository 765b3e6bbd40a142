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
#include <time.h>
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

#ifdef EXTOWN_TEST_HOOKS
/*
 * Test builds only (tests/privilege builds one beside the installed helper;
 * the installed one has no such code): at POINT, when the FIFO
 * /run/extown-test/POINT exists, create /run/extown-test/POINT.here and
 * wait until the test writes to the FIFO, so that the test can act in a
 * window that is otherwise a few microseconds wide.
 */
static void test_hook(const char *point)
{
	char path[128], here[160];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/run/extown-test/%s", point);
	if (lstat(path, &st) || !S_ISFIFO(st.st_mode))
		return;
	snprintf(here, sizeof(here), "%s.here", path);
	fd = open(here, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c;

		(void)!read(fd, &c, 1);
		close(fd);
	}
}
#else
static void test_hook(const char *point)
{
	(void)point;
}
#endif

/*
 * libmount before 2.39 writes user=NAME to utab itself from within a helper
 * (the "saved user" of fix_optstr()) and keeps no mount ID there; 2.39+
 * keeps a user=NAME given to a helper out of utab (evaluate_permissions()).
 */
static bool libmount_records_user(void)
{
	const char *v = NULL;
	int major = 0, minor = 0;

	if (mnt_get_library_version(&v) < 0 || !v || sscanf(v, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 2 || (major == 2 && minor < 39);
}

/* record_user(): the new mount has no known ID */
#define RECORD_NO_ID	1

#define UTAB_PATH	"/run/mount/utab"
#define UTAB_LOCK	"/run/mount/utab.lock"

/* libmount's own lock of utab (lock.c: flock() of utab.lock); fd or -1 */
static int utab_lock(void)
{
	int fd;

	if (mkdir("/run/mount", 0755) && errno != EEXIST)
		return -1;
	fd = open(UTAB_LOCK, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, S_IRUSR | S_IWUSR);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
	}
	return fd;
}

/* S with utab's escapes (libmount's mangle(): space, tab, newline, backslash) */
static int put_mangled(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (strchr(" \t\n\\", *s)) {
			if (fprintf(f, "\\%03o", (unsigned char)*s) < 0)
				return -1;
		} else if (fputc(*s, f) == EOF) {
			return -1;
		}
	}
	return 0;
}

/*
 * The mount with ID in this namespace's mountinfo, with its table (to
 * unref); NULL when it is not there. mountinfo read while other mounts
 * come and go can skip an entry (a seq_file: an entry removed before the
 * reader's position shifts the rest), so a mount is taken as gone only
 * when several reads in a row miss it.
 */
static struct libmnt_fs *mount_by_id(int id, struct libmnt_table **tb)
{
	struct libmnt_fs *fs = NULL;

	*tb = NULL;
	for (int tries = 0; tries < 8 && !fs; tries++) {
		struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
		struct libmnt_fs *f;

		mnt_unref_table(*tb);
		*tb = mnt_new_table();
		if (!*tb || !itr || mnt_table_parse_file(*tb, "/proc/self/mountinfo")) {
			mnt_free_iter(itr);
			break;
		}
		while (!fs && mnt_table_next_fs(*tb, itr, &f) == 0)
			if (mnt_fs_get_id(f) == id)
				fs = f;
		mnt_free_iter(itr);
	}
	return fs;
}

/* whether the utab LINE is of mount ID ("ID=N " first, as libmount writes it) */
static bool line_has_id(const char *line, int id)
{
	char *end;
	long v;

	if (strncmp(line, "ID=", 3))
		return false;
	errno = 0;
	v = strtol(line + 3, &end, 10);
	return !errno && v == id && (*end == ' ' || *end == '\n' || !*end);
}

/* the value of utab field KEY ("SRC=") of LINE, unmangled (a new string) */
static char *line_field(const char *line, const char *key)
{
	size_t keylen = strlen(key);
	const char *p = line;
	char *out, *o;

	while (p && *p) {
		if (!strncmp(p, key, keylen))
			break;
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NULL;
	p += keylen;
	out = o = malloc(strcspn(p, " \n") + 1);
	if (!out)
		return NULL;
	while (*p && *p != ' ' && *p != '\n') {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* whether the utab LINE names the mount FS: source and target as mountinfo says */
static bool line_is_of(const char *line, struct libmnt_fs *fs)
{
	char *src = line_field(line, "SRC="), *tgt = line_field(line, "TARGET=");
	bool same = src && tgt && mnt_fs_get_source(fs) && mnt_fs_get_target(fs) &&
		    !strcmp(src, mnt_fs_get_source(fs)) && !strcmp(tgt, mnt_fs_get_target(fs));

	free(src);
	free(tgt);
	return same;
}

/*
 * LINE (an entry of this mount) with user=USER in its OPTS, written to OUT;
 * the other fields as they are.
 */
static int put_with_user(FILE *out, const char *line, const char *user)
{
	size_t len = strcspn(line, "\n");
	const char *opts = strstr(line, " OPTS=");
	char *o = NULL;
	int rc;

	if (!opts || (size_t)(opts - line) >= len)
		return fprintf(out, "%.*s OPTS=user=%s\n", (int)len, line, user) < 0 ? -1 : 0;
	opts += 6;
	o = strndup(opts, strcspn(opts, " \n"));
	if (!o || mnt_optstr_set_option(&o, "user", user)) {
		free(o);
		return -1;
	}
	rc = fprintf(out, "%.*s%s%s\n", (int)(opts - line), line, o,
		     opts + strcspn(opts, " \n") < line + len ? opts + strcspn(opts, " \n") : "");
	free(o);
	return rc < 0 ? -1 : 0;
}

/* a new entry for the mount FS: its ID, source, target, root; user=USER */
static int put_new(FILE *out, struct libmnt_fs *fs, const char *user)
{
	if (fprintf(out, "ID=%d SRC=", mnt_fs_get_id(fs)) < 0 ||
	    put_mangled(out, mnt_fs_get_source(fs)) || fputs(" TARGET=", out) == EOF ||
	    put_mangled(out, mnt_fs_get_target(fs)) || fputs(" ROOT=", out) == EOF ||
	    put_mangled(out, mnt_fs_get_root(fs)) ||
	    fprintf(out, " OPTS=user=%s\n", user) < 0)
		return -1;
	return 0;
}

/*
 * utab rewritten (a new file renamed over it, as libmount does) with the
 * entry of the mount FS, and that one alone, carrying user=USER, as the
 * last line: the last entry with its ID and its source and target (the
 * one libmount wrote for it) with user=USER added to its options, or a
 * new one; every other entry with that ID is a dead mount's whose ID the
 * kernel gave again, and goes. 0 or -errno; the caller holds the utab
 * lock.
 */
static int utab_set_user(struct libmnt_fs *fs, const char *user)
{
	char tmp[] = "/run/mount/utab.XXXXXX";
	char **lines = NULL, *line = NULL;
	size_t n = 0, cap = 0, linesz = 0;
	ssize_t keep = -1;
	int id = mnt_fs_get_id(fs), fd, rc = 0;
	FILE *in, *out = NULL;

	in = fopen(UTAB_PATH, "re");
	if (!in && errno != ENOENT)
		return -errno;
	while (in && getline(&line, &linesz, in) > 0) {
		if (n == cap) {
			char **more = realloc(lines, (cap = cap ? 2 * cap : 16) * sizeof(*lines));

			if (!more) {
				rc = -ENOMEM;
				goto out;
			}
			lines = more;
		}
		if (!(lines[n] = strdup(line))) {
			rc = -ENOMEM;
			goto out;
		}
		if (line_has_id(line, id) && line_is_of(line, fs))
			keep = (ssize_t)n;
		n++;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	out = fdopen(fd, "w");
	if (!out) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++)
		if (!line_has_id(lines[i], id))
			rc = fputs(lines[i], out) == EOF ? -1 : 0;
	/* last, where libmount appends: umount(8) removes the last entry
	 * of a target, which must be the one of the mount on top */
	if (!rc)
		rc = keep >= 0 ? put_with_user(out, lines[keep], user) : put_new(out, fs, user);
	if (!rc && (fflush(out) || fchmod(fd, 0644) || fsync(fd)))
		rc = -1;
	if (fclose(out) && !rc)
		rc = -1;
	if (!rc && rename(tmp, UTAB_PATH))
		rc = -1;
	if (rc) {
		rc = -(errno ? errno : EIO);
		unlink(tmp);
	}
out:
	if (in)
		fclose(in);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(line);
	return rc;
}

/*
 * The user=NAME of the final options in /run/mount/utab for the mount with
 * the mount ID ID (0: not known), so that NAME can umount it. libmount
 * before 2.39 writes it itself from within a helper: nothing is done. 2.39+
 * keeps it out of utab (mount(8) 2.40+ adds it once the helper has exited,
 * so a helper run without mount(8) would leave a mount its user cannot
 * unmount): the entry of that mount ID, and that one alone, gets it, under
 * libmount's utab lock (utab_set_user()). A mount gone by then (its user's
 * umount came first) gets nothing. No ID: nothing can be told for sure,
 * RECORD_NO_ID. 0 or -errno.
 */
static int record_user(const struct mount_plan *p, int id, const char *target)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_fs *fs;
	struct stat st;
	char *user;
	int lockfd, rc;

	/* -f, -n: no utab; -N: the entry is the other namespace's */
	if (p->fake || p->nomtab || p->ns || p->utab_to_mount8 || libmount_records_user() ||
	    !(user = plan_user(p)))
		return 0;
	/* no utab kept here (libmount's mnt_has_regular_utab()): libmount
	 * writes none either */
	if (lstat(UTAB_PATH, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(user);
		return 0;
	}
	if (id <= 0) {
		free(user);
		return RECORD_NO_ID;
	}
	test_hook("before-record");
	lockfd = utab_lock();
	if (lockfd < 0) {
		rc = -errno;
		free(user);
		return rc;
	}
	fs = mount_by_id(id, &tb);
	/* the ID is the new mount's own; a mount with it elsewhere would
	 * mean it is not: nothing is written for another mount */
	if (fs && (!target || !mnt_fs_get_target(fs) || strcmp(mnt_fs_get_target(fs), target)))
		rc = RECORD_NO_ID;
	else
		rc = fs ? utab_set_user(fs, user) : 0;
	mnt_unref_table(tb);
	close(lockfd);
	free(user);
	return rc;
}

/*
 * report() for a fake mount (-f): libmount 2.38's fails after the pretended
 * mount(2) (utab, which the user cannot write) and words it "filesystem was
 * mounted, but ...": mount(8)'s status, and the truth
 */
static int report_fake(struct libmnt_context *cxt, int rc, const struct mount_plan *p,
		       const char *progname)
{
	static const char mounted[] = "filesystem was mounted, but ";
	char buf[BUFSIZ] = "";
	int ex = mnt_context_get_excode(cxt, rc, buf, sizeof(buf));

	if (!strncmp(buf, mounted, sizeof(mounted) - 1))
		fprintf(stderr, "%s: %s: nothing was mounted (-f), but %s\n", progname,
			p->target, buf + sizeof(mounted) - 1);
	else if (*buf)
		fprintf(stderr, "%s: %s: %s\n", progname, p->target, buf);
	else if (ex != MNT_EX_SUCCESS)
		fprintf(stderr, "%s: %s: mount failed\n", progname, p->target);
	return ex;
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
	ex = report_fake(cxt, rc, p, progname);
	mnt_free_context(cxt);
	return ex;
}

/* as mount(8) says it when the mount is made but utab is not written */
static int report_utab(int rc, const struct mount_plan *p, const char *progname)
{
	if (!rc)
		return MNT_EX_SUCCESS;
	fprintf(stderr, "%s: %s: filesystem was mounted, but failed to update userspace "
		"mount table (user= not recorded: %s).\n", progname, p->target,
		rc == RECORD_NO_ID ? "no mount ID known for the new mount" :
		rc <= -MNT_ERR_NOFSTAB ? "libmount error" : strerror(rc < 0 ? -rc : rc));
	return MNT_EX_FILEIO;
}

int mounter_mount(const struct mount_plan *p, const char *progname)
{
	struct libmnt_context *cxt;
	int ex;

	cxt = new_context(p, p->fstype, progname, &ex);
	if (!cxt)
		return ex;
	if (p->utab_to_mount8 && mnt_context_disable_mtab(cxt, 1)) {
		mnt_free_context(cxt);
		fprintf(stderr, "%s: %s: out of memory\n", progname, p->source);
		return MNT_EX_SYSERR;
	}
	test_hook("before-mount");
	ex = report(cxt, mnt_context_mount(cxt), p, progname);
	/* the mount's ID: libmount 2.39+ reads it from the fsmount() fd, the
	 * new mount itself (statx(STATX_MNT_ID)), never from the target */
	if (ex == MNT_EX_SUCCESS)
		ex = report_utab(record_user(p, mnt_fs_get_id(mnt_context_get_fs(cxt)),
					     mnt_context_get_target(cxt)), p, progname);
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

#ifndef EXTOWN_ATTACH_LOCK_SECONDS
#define EXTOWN_ATTACH_LOCK_SECONDS	10
#endif

/*
 * The lock that makes "is it mounted there already?" and the attach one
 * step for every run of the fallback (mount(2) does both under the
 * kernel's namespace lock; move_mount() does not check at all). Root's
 * own file: no user can open it. Held for the check and move_mount()
 * alone (the filesystem is mounted, detached, before), and waited for
 * EXTOWN_ATTACH_LOCK_SECONDS at most. The descriptor, or -1 with errno
 * (ETIMEDOUT: still held when the time was up).
 */
static int lock_attach(void)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	int fd, err;

	if (mkdir("/run/mount", 0755) && errno != EEXIST)
		return -1;
	fd = open("/run/mount/extown.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	for (long waited = 0; flock(fd, LOCK_EX | LOCK_NB); waited += 10) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			goto fail;
		if (waited >= EXTOWN_ATTACH_LOCK_SECONDS * 1000L) {
			errno = ETIMEDOUT;
			goto fail;
		}
		nanosleep(&tick, NULL);
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
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
 * mount(2)'s EBUSY: the mount point TARGET, looked up now (what is mounted
 * on top of it then: a descriptor opened earlier still shows what was
 * there when it was opened), is already the root of a mount of DEV.
 */
static bool mounted_there(const char *target, dev_t dev)
{
	struct statx stx;
	int fd = open_target(target);
	bool there;

	if (fd < 0)
		return false;
	there = !statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) &&
		(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
		makedev(stx.stx_dev_major, stx.stx_dev_minor) == dev;
	close(fd);
	return there;
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
 * The mount API part: the filesystem mounted detached (its I/O: the
 * superblock read, the journal replayed), its owner read and the idmapping
 * applied, then, with the attach lock held for these two steps only, the
 * check and the attach. MOUNTER_PLAIN, or mount(8)'s status; with
 * MNT_EX_SUCCESS the mount is attached at TFD and *ID is its mount ID.
 */
static int idmapped_at(struct libmnt_context *cxt, const struct mount_plan *p,
		       const struct idmap_plan *ip, const char *target, int tfd,
		       struct idmapped *r, int *id, const char *progname)
{
	unsigned long mflags = 0;
	char why[512] = "";
	const char *src = mnt_context_get_source(cxt);
	struct statx stx;
	struct stat st;
	int mfd, lockfd, err = 0;
	/* mount(2), which libmount mounts with up to 2.38, refuses the same
	 * filesystem twice on one mount point (mount(8): "already mounted");
	 * move_mount(2), which our attach is and libmount's fd-based mount
	 * (2.39+) too, stacks it: the caller's mount(8) decides. Asked before
	 * anything is mounted, and again under the lock. */
	bool once = !libmount_has("fd-based-mount") && stat(src, &st) == 0 &&
		    S_ISBLK(st.st_mode);

	if (once && mounted_there(target, st.st_rdev))
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
	/* the new mount's own ID, which move_mount() keeps */
	if (statx(mfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) || !(stx.stx_mask & STATX_MNT_ID)) {
		err = errno ? errno : ENOSYS;
		close(mfd);
		return report_syscall(cxt, err, p, progname);
	}
	*id = (int)stx.stx_mnt_id;
	test_hook("before-lock");
	lockfd = lock_attach();
	if (lockfd < 0) {
		err = errno;
		close(mfd);
		if (err == ETIMEDOUT) {
			fprintf(stderr, "%s: %s: locking failed: /run/mount/extown.lock held "
				"by another mount for %d s\n", progname, p->target,
				EXTOWN_ATTACH_LOCK_SECONDS);
			return MNT_EX_FILEIO;
		}
		fprintf(stderr, "%s: %s: locking failed: /run/mount/extown.lock: %s\n",
			progname, p->target, strerror(err));
		return MNT_EX_FILEIO;
	}
	if (once && mounted_there(target, st.st_rdev)) {
		err = EBUSY;
	} else {
		test_hook("before-attach");
		if (mountapi_attach(mfd, tfd))
			err = errno;
	}
	close(lockfd);
	close(mfd);
	return err ? report_syscall(cxt, err, p, progname) : MNT_EX_SUCCESS;
}

/* the target first (nothing is mounted for a target that cannot take it) */
static int idmapped(struct libmnt_context *cxt, const struct mount_plan *p,
		    const struct idmap_plan *ip, struct idmapped *r, int *id,
		    const char *progname)
{
	const char *target = mnt_context_get_target(cxt) ? mnt_context_get_target(cxt) : p->target;
	int tfd, ex;

	tfd = open_target(target);
	if (tfd < 0 && errno == ENOSYS) {
		msg_no_kernel_support(progname, p->source, p->fstype, ", nor the new "
				      "mount API; mounting without an owner");
		return MOUNTER_PLAIN;
	}
	if (tfd < 0)
		return report_syscall(cxt, errno, p, progname);
	ex = idmapped_at(cxt, p, ip, target, tfd, r, id, progname);
	close(tfd);
	return ex;
}

/*
 * libmount 2.39+: the utab entry libmount writes for the mount with ID
 * (its options as the context has them: uhelper=, x-*), with that ID:
 * mnt_context_finalize_mount() would write it without (the mount was not
 * libmount's), and an entry without an ID goes to whatever mount of the
 * same source, target and root is on top. 0 or a negative libmount error.
 */
static int libmount_entry(struct libmnt_context *cxt, int id)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_fs *mounted = mount_by_id(id, &tb), *fs = NULL;
	struct libmnt_update *upd = NULL;
	const char *uopts = mnt_fs_get_user_options(mnt_context_get_fs(cxt));
	int rc = -ENOMEM;

	if (!mounted) {
		rc = 0;		/* gone already: nothing to record */
		goto out;
	}
	fs = mnt_copy_fs(NULL, mounted);
	upd = mnt_new_update();
	if (!fs || !upd || (uopts && *uopts && mnt_fs_append_options(fs, uopts)))
		goto out;
	rc = mnt_update_set_fs(upd, 0, NULL, fs);
	if (rc == 1)
		rc = 0;		/* no entry needed, or no writable utab */
	else if (rc == 0)
		rc = mnt_update_table(upd, NULL);
out:
	mnt_free_update(upd);
	mnt_unref_fs(fs);
	mnt_unref_table(tb);
	return rc;
}

int mounter_mount_idmapped(const struct mount_plan *p, const struct idmap_plan *ip,
			   const char *progname)
{
	struct libmnt_context *cxt;
	struct idmapped r = { 0 };
	int ex, rc, id = 0;

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
	test_hook("before-mount");
	ex = idmapped(cxt, p, ip, &r, &id, progname);
	if (ex != MNT_EX_SUCCESS)
		goto out;
	/*
	 * /run/mount/utab (user=, uhelper= as for any mount) before a word is
	 * written: a stderr that blocks or is closed cannot leave a mount
	 * without its entry. libmount before 2.39 writes the entry, user=
	 * included and no ID; 2.39+ would write it without the ID, so it is
	 * written here with it (libmount_entry()), and user= added to it.
	 */
	mnt_context_set_syscall_status(cxt, 0);
	if (!libmount_records_user() && !p->nomtab)
		mnt_context_disable_mtab(cxt, 1);
	rc = mnt_context_finalize_mount(cxt);
	if (!rc && !libmount_records_user() && !p->nomtab)
		rc = libmount_entry(cxt, id);
	/* libmount's failure as mount(8) words it (the mount is made: "filesystem
	 * was mounted, but ..."), the helper's own as on the plain path */
	if (rc)
		ex = report(cxt, rc, p, progname);
	else
		ex = report_utab(record_user(p, id, mnt_context_get_target(cxt)), p, progname);
	say_mapped(p, &r, ip, progname);
	if (r.ro)
		fprintf(stderr, "%s: %s: WARNING: source write-protected, mounted "
			"read-only.\n", progname, p->target);
out:
	mnt_free_context(cxt);
	return ex;
}
