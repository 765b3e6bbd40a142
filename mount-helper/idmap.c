// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idmap.c - the stick's owner, the swap maps and their user namespace, for
 * the idmapped-mount fallback (see idmap.h and docs/mount-helper.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idmap.h"

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
	/* each line: the on-disk id (first), the id shown for it, how many */
	if (extent(buf, bufsz, &len, 0, 0, a) ||
	    extent(buf, bufsz, &len, a, b, 1) ||
	    extent(buf, bufsz, &len, a + 1, a + 1, b - a - 1) ||
	    extent(buf, bufsz, &len, b, a, 1) ||
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

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, text, len);	/* the kernel wants all lines in one write */
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)len ? 0 : -1;
}

/* in the parent: the child PID is in its new namespace; map it and take it */
static int map_child(pid_t pid, const char *uid_map, const char *gid_map)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	if (write_file(path, uid_map))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	if (write_file(path, gid_map))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int idmap_userns_fd(const char *uid_map, const char *gid_map)
{
	int ready[2], hold[2], fd = -1, err = 0;
	char c = 0;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -1;
	if (pipe2(hold, O_CLOEXEC)) {
		err = errno;
		goto close_ready;
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		goto close_hold;
	}
	if (pid == 0) {
		/* the child only lives in the namespace until the parent has it */
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) == 0 && write(ready[1], "1", 1) == 1)
			(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	ready[1] = -1;
	close(hold[0]);
	hold[0] = -1;
	if (read(ready[0], &c, 1) != 1)
		err = EPERM;		/* unshare(CLONE_NEWUSER) failed in the child */
	else if ((fd = map_child(pid, uid_map, gid_map)) < 0)
		err = errno;
	close(hold[1]);
	hold[1] = -1;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
close_hold:
	if (hold[0] >= 0)
		close(hold[0]);
	if (hold[1] >= 0)
		close(hold[1]);
close_ready:
	close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	errno = err;
	return err ? -1 : fd;
}
