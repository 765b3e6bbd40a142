// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * randops - a reproducible random file-system workload for the extown
 * reliability tests, run inside the test VM on a uid=N:M,gid=N:M mount.
 *
 *   randops [-u UID] [-g GID] [-p PRESENTED_UID:PRESENTED_GID] [-q]
 *           DIR SEED NOPS
 *
 * -u/-g drop to that uid/gid (no supplementary groups) before the first
 * operation (the saved uid stays 0, so half the chown tries are made as
 * root, who must be refused too); -p is the owner every inode must show (stat) on this mount;
 * -q prints no progress. NOPS 0 runs until killed (the power-cut test).
 *
 * The operations, drawn with a fixed-seed xorshift generator so that one
 * SEED gives the same sequence on every run: create, write, truncate,
 * rename, link, symlink, unlink, chmod, chown (to the presented owner: must
 * succeed; to any other id: must fail with EPERM), setxattr, mkdir, rmdir,
 * fsync (file or directory), sync. The program keeps a model of the tree
 * (names, inodes, sizes, link counts) and checks every result against it;
 * inodes that existed before (found in DIR at start) are written, truncated,
 * renamed, linked, chmod'ed and given xattrs, but never unlinked or renamed
 * over, so the host can find each of them again by inode number.
 *
 * Output (stdout), one "KEY VALUE" per line at the end:
 *   ops N, errors N, chown_eperm N, chown_self_ok N, created N, ...
 * and up to 20 "error: ..." lines describing unexpected results.
 * Exit status 0 when no unexpected result was seen, 1 otherwise, 2 on usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_OBJS	4096
#define MAX_NAMES	8192
#define MAX_LIVE_FILES	400	/* bounds the space used on a 64 MiB image */
#define MAX_DIRS	64
#define MAX_DEPTH	3
#define PATH_LEN	512
#define MAX_SIZE	(96 * 1024)

enum otype { O_REG, O_DIR, O_OTHER };

struct obj {
	enum otype type;
	bool old;		/* existed before the workload */
	bool alive;
	off_t size;		/* regular files */
	int nlink;		/* names in the model (dirs: 1) */
	ino_t ino;
};

struct name {
	bool alive;
	int obj;
	int parent;		/* name index of the directory, -1 for the root */
	char path[PATH_LEN];	/* relative to DIR, "" for the root */
	int children;		/* directories: live names inside */
	int depth;
};

static struct obj objs[MAX_OBJS];
static struct name names[MAX_NAMES];
static int nobjs, nnames;
static uint64_t rng_state;
static bool quiet;
static uid_t shown_uid = (uid_t)-1;
static gid_t shown_gid = (gid_t)-1;

static uid_t run_uid = (uid_t)-1;
static unsigned long n_ops, n_errors, n_chown_eperm, n_chown_eperm_root, n_chown_self, n_created,
	n_unlinked, n_renamed, n_linked, n_written, n_truncated, n_chmod,
	n_xattr, n_xattr_unsupported, n_mkdir, n_rmdir, n_fsync, n_sync,
	n_owner_checked;
static unsigned long name_counter;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int below(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error(const char *fmt, ...)
{
	va_list ap;

	n_errors++;
	if (n_errors > 20)
		return;
	printf("error: op %lu: ", n_ops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int new_obj(enum otype type, bool old, off_t size, ino_t ino)
{
	if (nobjs == MAX_OBJS)
		return -1;
	objs[nobjs] = (struct obj){ .type = type, .old = old, .alive = true,
				    .size = size, .nlink = 0, .ino = ino };
	return nobjs++;
}

static int new_name(int obj, int parent, const char *path)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (!names[i].alive)
			break;
	if (i == MAX_NAMES)
		return -1;
	if (i == nnames)
		nnames++;
	names[i] = (struct name){ .alive = true, .obj = obj, .parent = parent };
	snprintf(names[i].path, sizeof(names[i].path), "%s", path);
	names[i].depth = parent < 0 ? 0 : names[parent].depth + 1;
	objs[obj].nlink++;
	if (parent >= 0)
		names[parent].children++;
	return i;
}

static void drop_name(int i)
{
	names[i].alive = false;
	objs[names[i].obj].nlink--;
	if (names[i].parent >= 0)
		names[names[i].parent].children--;
	if (objs[names[i].obj].nlink == 0)
		objs[names[i].obj].alive = false;
}

/* A random live name matching the filter; -1 when there is none. */
enum pick { P_ANY_FILE, P_REG, P_DIR, P_NEW_FILE, P_NEW_EMPTY_DIR, P_XATTR };

static bool matches(int i, enum pick p)
{
	const struct name *n = &names[i];
	const struct obj *o = &objs[n->obj];

	if (!n->alive)
		return false;
	switch (p) {
	case P_ANY_FILE:
		return o->type != O_DIR;
	case P_REG:
		return o->type == O_REG;
	case P_DIR:
		return o->type == O_DIR;
	case P_NEW_FILE:
		return o->type != O_DIR && !o->old;
	case P_NEW_EMPTY_DIR:
		return o->type == O_DIR && !o->old && n->children == 0;
	case P_XATTR:
		return o->type == O_REG || o->type == O_DIR;
	}
	return false;
}

static int pick(enum pick p)
{
	int i, tries, count = 0, k;

	/* A few random probes first (cheap), then an exact draw. */
	for (tries = 0; tries < 8 && nnames > 0; tries++) {
		i = (int)below((unsigned int)nnames);
		if (matches(i, p))
			return i;
	}
	for (i = 0; i < nnames; i++)
		count += matches(i, p);
	if (count == 0)
		return -1;
	k = (int)below((unsigned int)count);
	for (i = 0; i < nnames; i++)
		if (matches(i, p) && k-- == 0)
			return i;
	return -1;
}

static int live_files(void)
{
	int i, n = 0;

	for (i = 0; i < nobjs; i++)
		n += objs[i].alive && objs[i].type != O_DIR && !objs[i].old;
	return n;
}

static int live_dirs(void)
{
	int i, n = 0;

	for (i = 0; i < nobjs; i++)
		n += objs[i].alive && objs[i].type == O_DIR;
	return n;
}

/* A fresh path inside directory name D. */
static void fresh_path(int d, char *out, size_t outsz, const char *prefix)
{
	name_counter++;
	if (d < 0 || names[d].path[0] == '\0')
		snprintf(out, outsz, "%s%lu", prefix, name_counter);
	else
		snprintf(out, outsz, "%s/%s%lu", names[d].path, prefix, name_counter);
}

static int pick_parent(void)
{
	int d = below(4) == 0 ? -1 : pick(P_DIR);

	if (d >= 0 && names[d].depth >= MAX_DEPTH)
		d = names[d].parent;
	return d;
}

static const char *path_of(int i)
{
	return names[i].path[0] ? names[i].path : ".";
}

static void check_owner(const char *path, const struct stat *st)
{
	n_owner_checked++;
	if ((shown_uid != (uid_t)-1 && st->st_uid != shown_uid) ||
	    (shown_gid != (gid_t)-1 && st->st_gid != shown_gid))
		error("%s shows owner %u:%u, expected %u:%u", path,
		      (unsigned int)st->st_uid, (unsigned int)st->st_gid,
		      (unsigned int)shown_uid, (unsigned int)shown_gid);
}

/* stat a name and compare with the model (type, inode, size, owner). */
static void verify(int i)
{
	struct stat st;
	const struct obj *o = &objs[names[i].obj];

	if (lstat(path_of(i), &st) < 0) {
		error("lstat %s: %s", path_of(i), strerror(errno));
		return;
	}
	check_owner(path_of(i), &st);
	if (o->ino && st.st_ino != o->ino)
		error("%s is inode %lu, model says %lu", path_of(i),
		      (unsigned long)st.st_ino, (unsigned long)o->ino);
	if (o->type == O_REG && st.st_size != o->size)
		error("%s has size %lld, model says %lld", path_of(i),
		      (long long)st.st_size, (long long)o->size);
	if (o->type != O_DIR && (nlink_t)o->nlink != st.st_nlink)
		error("%s has %lu links, model says %d", path_of(i),
		      (unsigned long)st.st_nlink, o->nlink);
}

static void expect_ok(int ret, const char *what, const char *path)
{
	if (ret < 0)
		error("%s %s: %s", what, path, strerror(errno));
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	check_owner(path, &st);
	return st.st_ino;
}

static void op_create(void)
{
	char p[PATH_LEN];
	int d, fd, o;

	if (live_files() >= MAX_LIVE_FILES)
		return;
	d = pick_parent();
	fresh_path(d, p, sizeof(p), "f");
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0) {
		error("create %s: %s", p, strerror(errno));
		return;
	}
	close(fd);
	o = new_obj(O_REG, false, 0, ino_of(p));
	if (o < 0 || new_name(o, d, p) < 0)
		return;
	n_created++;
}

static void op_symlink(void)
{
	char p[PATH_LEN];
	int d, o;

	if (live_files() >= MAX_LIVE_FILES)
		return;
	d = pick_parent();
	fresh_path(d, p, sizeof(p), "s");
	if (symlink("some/target", p) < 0) {
		error("symlink %s: %s", p, strerror(errno));
		return;
	}
	o = new_obj(O_OTHER, false, 0, ino_of(p));
	if (o < 0 || new_name(o, d, p) < 0)
		return;
	n_created++;
}

static void op_write(void)
{
	static char buf[8192];
	int i = pick(P_REG), fd;
	off_t off;
	size_t len, k;
	ssize_t w;

	if (i < 0)
		return;
	off = (off_t)below(MAX_SIZE - sizeof(buf));
	len = 1 + below(sizeof(buf));
	for (k = 0; k < len; k++)
		buf[k] = (char)('a' + below(26));
	fd = open(path_of(i), O_WRONLY | (below(4) == 0 ? O_APPEND : 0));
	if (fd < 0) {
		error("open for write %s: %s", path_of(i), strerror(errno));
		return;
	}
	if (!(fcntl(fd, F_GETFL) & O_APPEND) && lseek(fd, off, SEEK_SET) < 0) {
		error("lseek %s: %s", path_of(i), strerror(errno));
		close(fd);
		return;
	}
	if (fcntl(fd, F_GETFL) & O_APPEND) {
		off = objs[names[i].obj].size;
		if (off + (off_t)len > MAX_SIZE) {
			close(fd);
			return;
		}
	}
	w = write(fd, buf, len);
	if (w != (ssize_t)len)
		error("write %s: %s", path_of(i), w < 0 ? strerror(errno) : "short");
	else if (off + (off_t)len > objs[names[i].obj].size)
		objs[names[i].obj].size = off + (off_t)len;
	if (below(8) == 0) {
		expect_ok(fsync(fd), "fsync", path_of(i));
		n_fsync++;
	}
	close(fd);
	n_written++;
}

static void op_truncate(void)
{
	int i = pick(P_REG);
	off_t len = (off_t)below(MAX_SIZE);

	if (i < 0)
		return;
	if (truncate(path_of(i), len) < 0) {
		error("truncate %s: %s", path_of(i), strerror(errno));
		return;
	}
	objs[names[i].obj].size = len;
	n_truncated++;
}

static void op_rename(void)
{
	char p[PATH_LEN];
	int i, d, over, j;

	if (below(3) == 0) {
		/* an empty new directory to another parent */
		i = pick(P_NEW_EMPTY_DIR);
		if (i < 0)
			return;
		d = pick_parent();
		if (d == i || (d >= 0 && names[d].depth + 1 > MAX_DEPTH))
			return;
		fresh_path(d, p, sizeof(p), "r");
		if (rename(path_of(i), p) < 0) {
			error("rename dir %s %s: %s", path_of(i), p, strerror(errno));
			return;
		}
		j = names[i].obj;
		drop_name(i);
		objs[j].alive = true;
		new_name(j, d, p);
		n_renamed++;
		return;
	}
	i = pick(P_ANY_FILE);
	if (i < 0)
		return;
	over = below(3) == 0 ? pick(P_NEW_FILE) : -1;
	if (over == i || (over >= 0 && names[over].obj == names[i].obj))
		over = -1;
	if (over >= 0) {
		snprintf(p, sizeof(p), "%s", names[over].path);
		d = names[over].parent;
	} else {
		d = pick_parent();
		fresh_path(d, p, sizeof(p), "r");
	}
	if (rename(path_of(i), p) < 0) {
		error("rename %s %s: %s", path_of(i), p, strerror(errno));
		return;
	}
	j = names[i].obj;
	objs[j].nlink++;	/* keep it alive across drop_name */
	drop_name(i);
	if (over >= 0)
		drop_name(over);
	objs[j].nlink--;
	new_name(j, d, p);
	n_renamed++;
}

static void op_link(void)
{
	char p[PATH_LEN];
	int i = pick(P_ANY_FILE), d;

	if (i < 0 || objs[names[i].obj].nlink >= 8)
		return;
	d = pick_parent();
	fresh_path(d, p, sizeof(p), "l");
	if (link(path_of(i), p) < 0) {
		error("link %s %s: %s", path_of(i), p, strerror(errno));
		return;
	}
	new_name(names[i].obj, d, p);
	n_linked++;
}

static void op_unlink(void)
{
	int i = pick(P_NEW_FILE);

	if (i < 0)
		return;
	if (unlink(path_of(i)) < 0) {
		error("unlink %s: %s", path_of(i), strerror(errno));
		return;
	}
	drop_name(i);
	n_unlinked++;
}

static void op_chmod(void)
{
	int i = below(2) ? pick(P_REG) : pick(P_DIR);
	mode_t m;

	if (i < 0)
		return;
	m = (mode_t)below(01000);
	m |= objs[names[i].obj].type == O_DIR ? 0700 : 0600;
	expect_ok(chmod(path_of(i), m), "chmod", path_of(i));
	n_chmod++;
}

static void op_chown(void)
{
	int i = below(4) ? pick(P_ANY_FILE) : pick(P_DIR);
	uid_t u;
	gid_t g;
	int r, e;
	bool as_root;

	if (i < 0)
		return;
	switch (below(5)) {
	case 0: /* to the shown owner: a no-op that succeeds */
		r = lchown(path_of(i), shown_uid, shown_gid);
		if (r < 0)
			error("lchown %s to the shown owner %u:%u: %s", path_of(i),
			      (unsigned int)shown_uid, (unsigned int)shown_gid,
			      strerror(errno));
		else
			n_chown_self++;
		return;
	case 1: u = 0; g = (gid_t)-1; break;
	case 2: u = (uid_t)-1; g = 0; break;
	case 3: u = 1234; g = 1234; break;	/* the on-disk owner of the old files */
	default:
		u = (uid_t)(1 + below(100000));
		g = (gid_t)-1;
		if (u == shown_uid)
			u++;
		break;
	}
	/* as the workload's user, or as root (euid 0 kept in the saved uid):
	 * root, too, cannot give a file away on such a mount (K4) */
	as_root = run_uid != (uid_t)-1 && below(2) == 0;
	if (as_root && seteuid(0) < 0) {
		error("seteuid(0): %s", strerror(errno));
		return;
	}
	r = lchown(path_of(i), u, g);
	e = errno;
	if (as_root && seteuid(run_uid) < 0) {
		printf("randops: seteuid back to %u failed: %s\n",
		       (unsigned int)run_uid, strerror(errno));
		exit(2);
	}
	if (r == 0 || e != EPERM)
		error("lchown %s to %d:%d as %s: expected EPERM, got %s", path_of(i),
		      (int)u, (int)g, as_root ? "root" : "the user",
		      r == 0 ? "success" : strerror(e));
	else if (as_root)
		n_chown_eperm_root++;
	else
		n_chown_eperm++;
}

static void op_setxattr(void)
{
	int i = pick(P_XATTR);
	char val[64];
	int r;

	if (i < 0)
		return;
	snprintf(val, sizeof(val), "v%" PRIu64, rnd() % 1000000);
	r = lsetxattr(path_of(i), below(2) ? "user.extown" : "user.extown2",
		      val, strlen(val), 0);
	if (r < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		n_xattr_unsupported++;
	else if (r < 0)
		error("setxattr %s: %s", path_of(i), strerror(errno));
	else
		n_xattr++;
}

static void op_mkdir(void)
{
	char p[PATH_LEN];
	int d, o;

	if (live_dirs() >= MAX_DIRS)
		return;
	d = pick_parent();
	if (d >= 0 && names[d].depth >= MAX_DEPTH)
		return;
	fresh_path(d, p, sizeof(p), "d");
	if (mkdir(p, 0755) < 0) {
		error("mkdir %s: %s", p, strerror(errno));
		return;
	}
	o = new_obj(O_DIR, false, 0, ino_of(p));
	if (o >= 0)
		new_name(o, d, p);
	n_mkdir++;
}

static void op_rmdir(void)
{
	int i = pick(P_NEW_EMPTY_DIR);

	if (i < 0)
		return;
	if (rmdir(path_of(i)) < 0) {
		error("rmdir %s: %s", path_of(i), strerror(errno));
		return;
	}
	drop_name(i);
	n_rmdir++;
}

static void op_fsync(void)
{
	int i = below(2) ? pick(P_REG) : pick(P_DIR), fd;

	if (i < 0)
		return;
	fd = open(path_of(i), O_RDONLY | (objs[names[i].obj].type == O_DIR ? O_DIRECTORY : 0));
	if (fd < 0) {
		error("open for fsync %s: %s", path_of(i), strerror(errno));
		return;
	}
	expect_ok(below(2) ? fsync(fd) : fdatasync(fd), "fsync", path_of(i));
	close(fd);
	n_fsync++;
}

/* The tree as it is before the workload: every name is "old". */
static void scan(const char *rel, int parent, int depth)
{
	DIR *dir = opendir(rel[0] ? rel : ".");
	struct dirent *de;
	char p[PATH_LEN];
	struct stat st;
	int o, n;

	if (!dir) {
		error("opendir %s: %s", rel, strerror(errno));
		return;
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* lost+found is e2fsck's: left alone */
		if (!rel[0] && !strcmp(de->d_name, "lost+found"))
			continue;
		snprintf(p, sizeof(p), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (lstat(p, &st) < 0) {
			error("lstat %s: %s", p, strerror(errno));
			continue;
		}
		check_owner(p, &st);
		/* another name of an inode seen already: the same object */
		for (o = 0; o < nobjs; o++)
			if (objs[o].ino == st.st_ino)
				break;
		if (o == nobjs)
			o = new_obj(S_ISREG(st.st_mode) ? O_REG : S_ISDIR(st.st_mode) ? O_DIR : O_OTHER,
				    true, st.st_size, st.st_ino);
		if (o < 0)
			continue;
		n = new_name(o, parent, p);
		if (n >= 0 && S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
			scan(p, n, depth + 1);
	}
	closedir(dir);
}

static void usage(void)
{
	fprintf(stderr, "usage: randops [-u UID] [-g GID] [-p UID:GID] [-q] DIR SEED NOPS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long seed, nops, i;
	long uid = -1, gid = -1;
	unsigned int su, sg;
	int c, root, k;

	while ((c = getopt(argc, argv, "u:g:p:q")) != -1) {
		switch (c) {
		case 'u': uid = strtol(optarg, NULL, 10); break;
		case 'g': gid = strtol(optarg, NULL, 10); break;
		case 'p':
			if (sscanf(optarg, "%u:%u", &su, &sg) != 2)
				usage();
			shown_uid = su;
			shown_gid = sg;
			break;
		case 'q': quiet = true; break;
		default: usage();
		}
	}
	if (argc - optind != 3)
		usage();
	seed = strtoull(argv[optind + 1], NULL, 10);
	nops = strtoull(argv[optind + 2], NULL, 10);
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (chdir(argv[optind]) < 0) {
		perror("randops: chdir");
		return 2;
	}
	if (gid >= 0 && (setgroups(0, NULL) < 0 || setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) < 0)) {
		perror("randops: setresgid");
		return 2;
	}
	/* the saved uid stays 0 (when started as root) for the root chown tries */
	if (uid >= 0 && setresuid((uid_t)uid, (uid_t)uid, (uid_t)-1) < 0) {
		perror("randops: setresuid");
		return 2;
	}
	if (uid >= 0)
		run_uid = (uid_t)uid;
	umask(022);
	setvbuf(stdout, NULL, _IOLBF, 0);

	root = new_obj(O_DIR, true, 0, ino_of("."));
	objs[root].nlink = 0;
	scan("", -1, 1);
	(void)root;

	for (i = 0; nops == 0 || i < nops; i++) {
		n_ops++;
		k = (int)below(100);
		if (k < 14) op_create();
		else if (k < 30) op_write();
		else if (k < 37) op_truncate();
		else if (k < 45) op_rename();
		else if (k < 51) op_link();
		else if (k < 53) op_symlink();
		else if (k < 63) op_unlink();
		else if (k < 69) op_chmod();
		else if (k < 77) op_chown();
		else if (k < 83) op_setxattr();
		else if (k < 88) op_mkdir();
		else if (k < 91) op_rmdir();
		else if (k < 99) op_fsync();
		else { sync(); n_sync++; }
		/* check a random name against the model now and then */
		if (below(10) == 0) {
			int j = pick(below(2) ? P_ANY_FILE : P_DIR);

			if (j >= 0)
				verify(j);
		}
		if (!quiet && n_ops % 1000 == 0)
			fprintf(stderr, "randops: %lu ops\n", n_ops);
	}
	/* the whole model against the file system */
	for (k = 0; k < nnames; k++)
		if (names[k].alive)
			verify(k);

	printf("ops %lu\nerrors %lu\nchown_eperm %lu\nchown_eperm_root %lu\nchown_self_ok %lu\n"
	       "created %lu\nunlinked %lu\nrenamed %lu\nlinked %lu\nwritten %lu\n"
	       "truncated %lu\nchmod %lu\nsetxattr %lu\nsetxattr_unsupported %lu\n"
	       "mkdir %lu\nrmdir %lu\nfsync %lu\nsync %lu\nowner_checked %lu\n",
	       n_ops, n_errors, n_chown_eperm, n_chown_eperm_root, n_chown_self,
	       n_created, n_unlinked, n_renamed, n_linked, n_written, n_truncated, n_chmod,
	       n_xattr, n_xattr_unsupported, n_mkdir, n_rmdir, n_fsync, n_sync,
	       n_owner_checked);
	return n_errors ? 1 : 0;
}
