// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * benchtool - the timed workloads of bench/run.sh and the few system calls
 * the benchmark guest needs that busybox and util-linux 2.38 lack.
 *
 *   benchtool [-u UID:GID] walk DIR             lstat every entry below DIR
 *   benchtool [-u UID:GID] create DIR N         mkdir DIR, N files of 100
 *                                               bytes, fsync(DIR)
 *   benchtool [-u UID:GID] write FILE MIB       MIB MiB in 1 MiB writes + fsync
 *   benchtool [-u UID:GID] read FILE            read FILE in 1 MiB reads
 *   benchtool timeexec CMD [ARG...]             fork+exec+wait of CMD
 *   benchtool idmap SRC DST FROM TO             idmapped bind mount of SRC on
 *                                               DST, on-disk id FROM shown as TO
 *                                               (uid and gid), through
 *                                               open_tree/mount_setattr/move_mount
 *   benchtool mktree DIR FILES UID GID          DIR/aNN/bNN/fNNNN: FILES empty
 *                                               files, 1000 per leaf directory,
 *                                               dirs 0755 files 0644, owned UID:GID
 *
 * -u drops to UID:GID (no supplementary groups) before the clock starts.
 * Timed commands print one line "seconds=S key=value...": the wall time
 * (CLOCK_MONOTONIC) of the work alone, without exec or set-up.
 * walk also prints entries=N and the owner of the first file it met, so
 * that the caller can check what the mount presented.
 *
 * Exit status: 0 on success, 1 on a failed system call (message on
 * stderr), 2 on usage errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1024 * 1024)

static void die(const char *what)
{
	fprintf(stderr, "benchtool: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int usage(void)
{
	fputs("usage: benchtool [-u UID:GID] walk DIR | create DIR N | write FILE MIB | read FILE\n"
	      "       benchtool timeexec CMD [ARG...] | idmap SRC DST FROM TO\n"
	      "       benchtool mktree DIR FILES UID GID\n",
	      stderr);
	return 2;
}

static double now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die("clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end) {
		fprintf(stderr, "benchtool: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

/* ---- walk ---------------------------------------------------------- */

struct walk_state {
	unsigned long entries;
	long first_uid;
	long first_gid;
};

static void walk_dir(int dfd, struct walk_state *ws)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct stat st;

	if (!d)
		die("fdopendir");
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				die("readdir");
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die(de->d_name);
		ws->entries++;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (sub < 0)
				die(de->d_name);
			walk_dir(sub, ws);
		} else if (ws->first_uid < 0) {
			ws->first_uid = (long)st.st_uid;
			ws->first_gid = (long)st.st_gid;
		}
	}
	closedir(d);
}

static int do_walk(const char *dir)
{
	struct walk_state ws = { 0, -1, -1 };
	double t0, t1;
	int fd;

	t0 = now();
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die(dir);
	walk_dir(fd, &ws);
	t1 = now();
	printf("seconds=%.6f entries=%lu uid=%ld gid=%ld\n", t1 - t0, ws.entries, ws.first_uid,
	       ws.first_gid);
	return 0;
}

/* ---- create -------------------------------------------------------- */

static int do_create(const char *dir, unsigned long n)
{
	static const char payload[100] = "extown bench small file\n";
	char name[32];
	double t0, t1;
	unsigned long i;
	int dfd, fd;

	t0 = now();
	if (mkdir(dir, 0755) < 0)
		die(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die(dir);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%06lu", i);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die(name);
		if (write(fd, payload, sizeof(payload)) != (ssize_t)sizeof(payload))
			die("write");
		if (close(fd) < 0)
			die("close");
	}
	if (fsync(dfd) < 0)
		die("fsync dir");
	t1 = now();
	close(dfd);
	printf("seconds=%.6f files=%lu\n", t1 - t0, n);
	return 0;
}

/* ---- sequential write / read ---------------------------------------- */

static char *chunk(void)
{
	char *buf = malloc(CHUNK);
	size_t i;

	if (!buf)
		die("malloc");
	for (i = 0; i < CHUNK; i++)
		buf[i] = (char)(i * 131 + 7);
	return buf;
}

static int do_write(const char *file, unsigned long mib)
{
	char *buf = chunk();
	double t0, t1;
	unsigned long i;
	int fd;

	t0 = now();
	fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die(file);
	for (i = 0; i < mib; i++) {
		size_t done = 0;

		while (done < CHUNK) {
			ssize_t w = write(fd, buf + done, CHUNK - done);

			if (w < 0)
				die("write");
			done += (size_t)w;
		}
	}
	if (fsync(fd) < 0)
		die("fsync");
	if (close(fd) < 0)
		die("close");
	t1 = now();
	free(buf);
	printf("seconds=%.6f mib=%lu mib_per_s=%.1f\n", t1 - t0, mib, (double)mib / (t1 - t0));
	return 0;
}

static int do_read(const char *file)
{
	char *buf = chunk();
	unsigned long long total = 0;
	double t0, t1;
	ssize_t r;
	int fd;

	t0 = now();
	fd = open(file, O_RDONLY);
	if (fd < 0)
		die(file);
	while ((r = read(fd, buf, CHUNK)) > 0)
		total += (unsigned long long)r;
	if (r < 0)
		die("read");
	close(fd);
	t1 = now();
	free(buf);
	printf("seconds=%.6f mib=%.1f mib_per_s=%.1f\n", t1 - t0, (double)total / CHUNK,
	       (double)total / CHUNK / (t1 - t0));
	return 0;
}

/* ---- timeexec ------------------------------------------------------- */

static int do_timeexec(char **argv)
{
	double t0, t1;
	pid_t pid;
	int status;

	t0 = now();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "benchtool: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	t1 = now();
	printf("seconds=%.6f status=%d\n", t1 - t0,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* ---- idmap ----------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	size_t len = strlen(text);

	if (fd < 0)
		die(path);
	if (write(fd, text, len) != (ssize_t)len)
		die(path);
	if (close(fd) < 0)
		die(path);
}

static int do_idmap(const char *src, const char *dst, unsigned long from, unsigned long to)
{
	struct mount_attr attr;
	char path[64], map[64];
	int pipefd[2], usernsfd, treefd;
	pid_t child;
	char c;

	/* A child in a new user namespace whose maps we write from here. */
	if (pipe(pipefd) < 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(pipefd[1]);
		if (unshare(CLONE_NEWUSER) < 0) {
			fprintf(stderr, "benchtool: unshare(CLONE_NEWUSER): %s\n", strerror(errno));
			_exit(1);
		}
		/* Wait until the parent closes the pipe. */
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	/* The child has unshared once its ns link differs from ours. */
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)child);
	for (int i = 0; i < 1000; i++) {
		struct stat a, b;

		if (stat("/proc/self/ns/user", &a) < 0 || stat(path, &b) < 0)
			die("stat ns/user");
		if (a.st_ino != b.st_ino)
			break;
		usleep(1000);
	}
	snprintf(map, sizeof(map), "%lu %lu 1\n", from, to);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)child);
	write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)child);
	write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)child);
	usernsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (usernsfd < 0)
		die(path);
	close(pipefd[1]);
	if (waitpid(child, NULL, 0) < 0)
		die("waitpid");

	treefd = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (treefd < 0)
		die("open_tree");
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_IDMAP;
	attr.userns_fd = (uint64_t)usernsfd;
	if (mount_setattr(treefd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		die("mount_setattr(MOUNT_ATTR_IDMAP)");
	if (move_mount(treefd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die("move_mount");
	close(treefd);
	close(usernsfd);
	return 0;
}

/* ---- mktree ---------------------------------------------------------- */

static void mkdir_owned(const char *path, uid_t uid, gid_t gid)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die(path);
	if (chown(path, uid, gid) < 0)
		die(path);
}

static int do_mktree(const char *dir, unsigned long files, uid_t uid, gid_t gid)
{
	char path[4096];
	unsigned long i;

	mkdir_owned(dir, uid, gid);
	for (i = 0; i < files; i++) {
		unsigned long leaf = i / 1000;
		int fd;

		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/a%02lu", dir, leaf / 10);
			mkdir_owned(path, uid, gid);
			snprintf(path, sizeof(path), "%s/a%02lu/b%02lu", dir, leaf / 10, leaf % 10);
			mkdir_owned(path, uid, gid);
		}
		snprintf(path, sizeof(path), "%s/a%02lu/b%02lu/f%04lu", dir, leaf / 10, leaf % 10,
			 i % 1000);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			die(path);
		if (fchown(fd, uid, gid) < 0)
			die(path);
		close(fd);
	}
	return 0;
}

/* ---- main ------------------------------------------------------------ */

static void drop_to(const char *spec)
{
	unsigned long uid, gid;
	char *colon = strchr(spec, ':');
	char buf[64];

	if (!colon || strlen(spec) >= sizeof(buf)) {
		fprintf(stderr, "benchtool: -u wants UID:GID\n");
		exit(2);
	}
	memcpy(buf, spec, (size_t)(colon - spec));
	buf[colon - spec] = '\0';
	uid = number(buf);
	gid = number(colon + 1);
	if (setgroups(0, NULL) < 0)
		die("setgroups");
	if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) < 0)
		die("setresgid");
	if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
		die("setresuid");
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 2 && strcmp(argv[1], "-u") == 0) {
		drop_to(argv[2]);
		i = 3;
	}
	argc -= i;
	argv += i;
	if (argc < 1)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[0], "walk") == 0 && argc == 2)
		return do_walk(argv[1]);
	if (strcmp(argv[0], "create") == 0 && argc == 3)
		return do_create(argv[1], number(argv[2]));
	if (strcmp(argv[0], "write") == 0 && argc == 3)
		return do_write(argv[1], number(argv[2]));
	if (strcmp(argv[0], "read") == 0 && argc == 2)
		return do_read(argv[1]);
	if (strcmp(argv[0], "timeexec") == 0 && argc >= 2)
		return do_timeexec(argv + 1);
	if (strcmp(argv[0], "idmap") == 0 && argc == 5)
		return do_idmap(argv[1], argv[2], number(argv[3]), number(argv[4]));
	if (strcmp(argv[0], "mktree") == 0 && argc == 5)
		return do_mktree(argv[1], number(argv[2]), (uid_t)number(argv[3]),
				 (gid_t)number(argv[4]));
	return usage();
}
