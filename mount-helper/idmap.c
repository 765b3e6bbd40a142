// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idmap.c - the stick's owner, the swap maps and their user namespace, for
 * the idmapped-mount fallback (see idmap.h and docs/mount-helper.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idmap.h"
#include "msg.h"

#define ID_LAST		4294967294U	/* (uint32_t)-1 is no id */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* the most frequent non-0 value of V (sorted in place), ties to the smaller */
static bool most_frequent(uint32_t *v, size_t n, uint32_t *out)
{
	size_t best = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (v[i] != 0 && j - i > best) {
			best = j - i;
			*out = v[i];
		}
	}
	return best > 0;
}

void idmap_pick_owner(const struct idmap_ids *root, const struct idmap_ids *entries,
		      size_t n, struct idmap_owner *out)
{
	uint32_t *v = NULL;

	memset(out, 0, sizeof(*out));
	out->found_uid = root->uid != 0;
	out->id.uid = root->uid;
	out->found_gid = root->gid != 0;
	out->id.gid = root->gid;
	if ((out->found_uid && out->found_gid) || n == 0)
		return;
	v = malloc(n * sizeof(*v));
	if (!v)
		return;		/* no owner found: a plain mount, never a wrong one */
	if (!out->found_uid) {
		for (size_t i = 0; i < n; i++)
			v[i] = entries[i].uid;
		out->found_uid = most_frequent(v, n, &out->id.uid);
	}
	if (!out->found_gid) {
		for (size_t i = 0; i < n; i++)
			v[i] = entries[i].gid;
		out->found_gid = most_frequent(v, n, &out->id.gid);
	}
	free(v);
}

static int extent(char *buf, size_t bufsz, size_t *len, uint32_t in, uint32_t out,
		  uint32_t count)
{
	int n;

	if (count == 0)
		return 0;
	n = snprintf(buf + *len, bufsz - *len, "%u %u %u\n", in, out, count);
	if (n < 0 || (size_t)n >= bufsz - *len)
		return -1;
	*len += (size_t)n;
	return 0;
}

int idmap_map_text(char *buf, size_t bufsz, uint32_t disk, uint32_t shown)
{
	uint32_t a = disk < shown ? disk : shown;
	uint32_t b = disk < shown ? shown : disk;
	size_t len = 0;

	if (bufsz == 0)
		return -1;
	buf[0] = '\0';
	if (a == b)
		return extent(buf, bufsz, &len, 0, 0, ID_LAST + 1);
	/*
	 * each line: the on-disk id (first), the id shown for it, how many;
	 * SHOWN as an on-disk id is left out: it has no line
	 */
	if (extent(buf, bufsz, &len, 0, 0, a) ||
	    (a == disk && extent(buf, bufsz, &len, disk, shown, 1)) ||
	    extent(buf, bufsz, &len, a + 1, a + 1, b - a - 1) ||
	    (b == disk && extent(buf, bufsz, &len, disk, shown, 1)) ||
	    (b < ID_LAST && extent(buf, bufsz, &len, b + 1, b + 1, ID_LAST - b)))
		return -1;
	return 0;
}

int idmap_scan_owner(int dirfd, struct idmap_owner *out)
{
	struct idmap_ids root, *ent;
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	DIR *d;
	int fd;

	if (fstat(dirfd, &st))
		return -1;
	root = (struct idmap_ids) { st.st_uid, st.st_gid };
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	ent = calloc(IDMAP_SCAN_MAX, sizeof(*ent));
	if (!ent) {
		closedir(d);
		errno = ENOMEM;
		return -1;
	}
	while (n < IDMAP_SCAN_MAX && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "lost+found"))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			ent[n++] = (struct idmap_ids) { st.st_uid, st.st_gid };
	}
	idmap_pick_owner(&root, ent, n, out);
	free(ent);
	closedir(d);
	return 0;
}

/* the whole of TEXT in one write to NAME in DIRFD (the kernel wants that) */
static int write_at(int dirfd, const char *name, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err;

	fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	err = errno;
	close(fd);
	errno = n < 0 ? err : EIO;
	return n == (ssize_t)len ? 0 : -1;
}

/* up to BUFSZ - 1 bytes of NAME in DIRFD, NUL-terminated; length or -1 */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t bufsz)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	while (len < bufsz - 1 && (n = read(fd, buf + len, bufsz - 1 - len)) > 0)
		len += (size_t)n;
	err = errno;
	close(fd);
	buf[len] = '\0';
	errno = err;
	return n < 0 ? -1 : (ssize_t)len;
}

/*
 * The pid a /proc/PID/status text gives for its process in the process's own
 * pid namespace: the last number of "NSpid:" (the first is the number in
 * the namespace of that /proc), or "Pid:" on a kernel without pid
 * namespaces. -1 when there is none.
 */
long idmap_status_pid(const char *status)
{
	const char *line = strstr(status, "\nNSpid:");
	long pid = -1;
	char *end;

	if (!line)
		line = strstr(status, "\nPid:");
	if (!line)
		return -1;
	line = strchr(line, ':') + 1;
	for (;;) {
		long v;

		while (*line == ' ' || *line == '\t')
			line++;
		if (*line < '0' || *line > '9')
			break;
		errno = 0;
		v = strtol(line, &end, 10);
		if (errno || v <= 0)
			return -1;
		pid = v;
		line = end;
	}
	return pid;
}

int idmap_check_proc_dir(int procfd, pid_t pid, char *why, size_t whysz)
{
	char status[4096], map[16];
	struct statfs sfs;

	if (fstatfs(procfd, &sfs) || sfs.f_type != PROC_SUPER_MAGIC)
		return fail(why, whysz, "/proc/self of the namespace holder is not on a proc "
			    "filesystem");
	if (read_at(procfd, "status", status, sizeof(status)) < 0)
		return fail(why, whysz, "cannot read the namespace holder's status: %s",
			    strerror(errno));
	if (idmap_status_pid(status) != (long)pid)
		return fail(why, whysz, "/proc/self of the namespace holder is another "
			    "process");
	if (read_at(procfd, "uid_map", map, sizeof(map)) != 0 ||
	    read_at(procfd, "gid_map", map, sizeof(map)) != 0)
		return fail(why, whysz, "the namespace holder's user namespace is not new");
	return 0;
}

/* FD (or, when FD < 0, ERR alone) over SOCK; 0 or -1 */
static int send_fd(int sock, int fd, int err)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	if (fd >= 0) {
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(err) ? 0 : -1;
}

/* one descriptor from SOCK, or -1 with errno (the sender's, if it sent one) */
static int recv_fd(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	int err = 0, fd = -1;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	memset(&u, 0, sizeof(u));
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd >= 0 && n == (ssize_t)sizeof(err) && !(msg.msg_flags & MSG_CTRUNC))
		return fd;
	if (fd >= 0)
		close(fd);
	errno = n == (ssize_t)sizeof(err) && err > 0 ? err : EPROTO;
	return -1;
}

/*
 * The child: a new user namespace, and its own /proc directory handed to
 * the parent, which writes the maps through it; lives until the parent
 * closes its end of SOCK.
 */
static void __attribute__((noreturn)) ns_holder(int sock)
{
	int fd = -1, err = 0;
	char c;

	if (unshare(CLONE_NEWUSER))
		err = errno;
	else if ((fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		err = errno;
	if (send_fd(sock, fd, err) == 0)
		(void)!read(sock, &c, 1);
	_exit(0);
}

/* the maps written through the child's /proc directory, its namespace taken */
static int map_child(int sock, pid_t pid, const char *uid_map, const char *gid_map,
		     char *why, size_t whysz)
{
	int procfd, nsfd = -1;

	procfd = recv_fd(sock);
	if (procfd < 0)
		return fail(why, whysz, "no user namespace for the idmapping: %s%s",
			    errno == ENOENT ? "/proc is not this pid namespace's: " : "",
			    strerror(errno));
	if (idmap_check_proc_dir(procfd, pid, why, whysz))
		goto out;
	if (write_at(procfd, "uid_map", uid_map) || write_at(procfd, "gid_map", gid_map)) {
		fail(why, whysz, "cannot write the idmapping: %s", strerror(errno));
		goto out;
	}
	nsfd = openat(procfd, "ns/user", O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		fail(why, whysz, "cannot open the user namespace: %s", strerror(errno));
out:
	close(procfd);
	return nsfd;
}

int idmap_userns_fd(const char *uid_map, const char *gid_map, char *why, size_t whysz)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int sv[2], fd;
	pid_t pid;

	/* an inherited SIG_IGN would reap the child behind our back */
	if (sigaction(SIGCHLD, &dfl, &old))
		return fail(why, whysz, "cannot reset SIGCHLD: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		fd = fail(why, whysz, "cannot make a socket pair: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		ns_holder(sv[1]);
	}
	close(sv[1]);
	if (pid < 0)
		fd = fail(why, whysz, "cannot fork: %s", strerror(errno));
	else
		fd = map_child(sv[0], pid, uid_map, gid_map, why, whysz);
	close(sv[0]);		/* the child reads EOF and exits */
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
out:
	sigaction(SIGCHLD, &old, NULL);
	return fd;
}
