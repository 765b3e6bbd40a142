// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmtool - the few system calls the in-guest kernel tests need and busybox
 * does not offer, each reporting the exact errno name so that tests can
 * assert EPERM, EINVAL or EBUSY rather than "it failed".
 *
 *   vmtool mount SRC DIR TYPE OPTS      mount(2), prints OK or the errno name
 *   vmtool chown PATH UID GID           lchown(2), -1 leaves an id alone
 *   vmtool runas UID GID CMD [ARG...]   drop to UID/GID (no groups), exec CMD
 *   vmtool tmpfile DIR NAME             O_TMPFILE in DIR, then link it as NAME
 *   vmtool setxattr PATH NAME VALUE     setxattr(2)
 *   vmtool access PATH MODE             open PATH for r, w or rw
 *   vmtool defacl DIR UID               a default ACL on DIR with a named
 *                                       entry for UID (files created in DIR
 *                                       then get an access ACL: an xattr)
 *   vmtool idmap SRC DIR MAP            an idmapped bind mount of SRC on DIR
 *                                       (open_tree + mount_setattr
 *                                       MOUNT_ATTR_IDMAP + move_mount);
 *                                       MAP "A:B:N[,A:B:N...]" is written as
 *                                       "A B N" lines to the uid_map and
 *                                       gid_map of a new user namespace
 *   vmtool create PATH MODE             open(O_CREAT | O_EXCL) with octal MODE
 *   vmtool mkdir PATH MODE              mkdir(2) with octal MODE
 *   vmtool mknod PATH MODE              mknod(2) of a regular file, octal MODE
 *                                       (all three with umask 0)
 *   vmtool chmod PATH MODE              chmod(2) with octal MODE
 *   vmtool euid                         prints the effective uid
 *   vmtool fsconfig TYPE KEY VALUE      fsopen(TYPE) and fsconfig(2)
 *                                       FSCONFIG_SET_STRING KEY=VALUE; prints
 *                                       OK or the errno name, then each
 *                                       message the kernel left on the fd
 *
 * Exit status: 0 on success, 1 when the call failed (errno name printed),
 * 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

static int report(int ret)
{
	if (ret == 0) {
		puts("OK");
		return 0;
	}
	printf("%s\n", strerrorname_np(errno));
	return 1;
}

/* Write MAP ("A:B:N,...") as "A B N" lines to /proc/PID/FILE */
static int write_map(pid_t pid, const char *file, const char *map)
{
	char path[64], buf[512];
	size_t i, n = 0;
	int fd, ok;

	for (i = 0; map[i] && n < sizeof(buf) - 2; i++)
		buf[n++] = map[i] == ':' ? ' ' : map[i] == ',' ? '\n' : map[i];
	buf[n++] = '\n';
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, buf, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

static int do_idmap(const char *src, const char *dir, const char *map)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int ready[2], done[2], ret = -1, saved = 0, tree = -1, ns = -1;
	char path[64], c;
	pid_t pid;

	if (pipe(ready) || pipe(done))
		return report(-1);
	pid = fork();
	if (pid < 0)
		return report(-1);
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		c = unshare(CLONE_NEWUSER) ? 'E' : 'U';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		/* stay in the namespace until the parent has its fd */
		if (read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], &c, 1) != 1 || c != 'U') {
		errno = EPERM;
		goto out;
	}
	if (write_map(pid, "uid_map", map) || write_map(pid, "setgroups", "deny") ||
	    write_map(pid, "gid_map", map))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		goto out;
	tree = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		goto out;
	attr.userns_fd = ns;
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		goto out;
	ret = move_mount(tree, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH);
out:
	saved = errno;
	if (tree >= 0)
		close(tree);
	if (ns >= 0)
		close(ns);
	close(done[1]);
	waitpid(pid, NULL, 0);
	errno = saved;
	return report(ret);
}

static int do_tmpfile(const char *dir, const char *name)
{
	char proc[64];
	int fd;

	fd = open(dir, O_TMPFILE | O_WRONLY, 0644);
	if (fd < 0)
		return report(-1);
	if (write(fd, "tmpfile\n", 8) != 8) {
		close(fd);
		return report(-1);
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) < 0) {
		close(fd);
		return report(-1);
	}
	close(fd);
	return report(0);
}

static int do_access(const char *path, const char *mode)
{
	int flags;
	int fd;

	if (strcmp(mode, "r") == 0)
		flags = O_RDONLY;
	else if (strcmp(mode, "w") == 0)
		flags = O_WRONLY;
	else if (strcmp(mode, "rw") == 0)
		flags = O_RDWR;
	else
		return 2;
	fd = open(path, flags);
	if (fd < 0)
		return report(-1);
	close(fd);
	return report(0);
}

/* user::rwx, user:UID:rwx, group::r-x, mask::rwx, other::r-x */
static int do_defacl(const char *dir, const char *uid)
{
	struct {
		struct posix_acl_xattr_header h;
		struct posix_acl_xattr_entry e[5];
	} acl = {
		.h = { .a_version = POSIX_ACL_XATTR_VERSION },
		.e = {
			{ ACL_USER_OBJ, 7, ACL_UNDEFINED_ID },
			{ ACL_USER, 7, (__u32)strtoul(uid, NULL, 10) },
			{ ACL_GROUP_OBJ, 5, ACL_UNDEFINED_ID },
			{ ACL_MASK, 7, ACL_UNDEFINED_ID },
			{ ACL_OTHER, 5, ACL_UNDEFINED_ID },
		},
	};

	return report(setxattr(dir, "system.posix_acl_default", &acl, sizeof(acl), 0));
}

static int do_runas(char **argv)
{
	uid_t uid = (uid_t)strtoul(argv[0], NULL, 10);
	gid_t gid = (gid_t)strtoul(argv[1], NULL, 10);

	if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
		perror("vmtool: runas");
		return 1;
	}
	execvp(argv[2], &argv[2]);
	perror("vmtool: runas: exec");
	return 1;
}

/* MODE in octal, no more than the permission and set-id bits */
static int parse_mode(const char *str, mode_t *mode)
{
	char *end;
	unsigned long m;

	errno = 0;
	m = strtoul(str, &end, 8);
	if (errno || !*str || *end || m > 07777)
		return -1;
	*mode = (mode_t)m;
	return 0;
}

static int do_create(const char *what, const char *path, const char *mode_str)
{
	mode_t mode;
	int fd;

	if (parse_mode(mode_str, &mode))
		return 2;
	umask(0);
	if (strcmp(what, "mkdir") == 0)
		return report(mkdir(path, mode));
	if (strcmp(what, "mknod") == 0)
		return report(mknod(path, S_IFREG | mode, 0));
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0)
		return report(-1);
	close(fd);
	return report(0);
}

static int do_chmod(const char *path, const char *mode_str)
{
	mode_t mode;

	if (parse_mode(mode_str, &mode))
		return 2;
	return report(chmod(path, mode));
}

/*
 * fsopen(TYPE), fsconfig(FSCONFIG_SET_STRING, KEY, VALUE): the status, then
 * the messages the filesystem logged on the context ("e ext4: ...").
 */
static int do_fsconfig(const char *type, const char *key, const char *value)
{
	char buf[512];
	ssize_t n;
	int fd, ret;

	fd = fsopen(type, FSOPEN_CLOEXEC);
	if (fd < 0)
		return report(-1);
	ret = report(fsconfig(fd, FSCONFIG_SET_STRING, key, value, 0));
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		while (n > 0 && buf[n - 1] == '\n')
			n--;
		buf[n] = '\0';
		if (n > 0)
			printf("%s\n", buf);
	}
	close(fd);
	return ret;
}

static int usage(void)
{
	fputs("usage: vmtool mount|chown|runas|tmpfile|setxattr|access|defacl|idmap|\n"
	      "              create|mkdir|mknod|chmod|euid|fsconfig ...\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "mount") == 0 && argc == 6)
		return report(mount(argv[2], argv[3], argv[4], 0, argv[5]));
	if (strcmp(cmd, "chown") == 0 && argc == 5)
		return report(lchown(argv[2], (uid_t)strtol(argv[3], NULL, 10),
				     (gid_t)strtol(argv[4], NULL, 10)));
	if (strcmp(cmd, "runas") == 0 && argc >= 5)
		return do_runas(&argv[2]);
	if (strcmp(cmd, "tmpfile") == 0 && argc == 4)
		return do_tmpfile(argv[2], argv[3]);
	if (strcmp(cmd, "setxattr") == 0 && argc == 5)
		return report(setxattr(argv[2], argv[3], argv[4],
				       strlen(argv[4]), 0));
	if (strcmp(cmd, "access") == 0 && argc == 4)
		return do_access(argv[2], argv[3]);
	if (strcmp(cmd, "defacl") == 0 && argc == 4)
		return do_defacl(argv[2], argv[3]);
	if (strcmp(cmd, "idmap") == 0 && argc == 5)
		return do_idmap(argv[2], argv[3], argv[4]);
	if ((strcmp(cmd, "create") == 0 || strcmp(cmd, "mkdir") == 0 ||
	     strcmp(cmd, "mknod") == 0) && argc == 4)
		return do_create(cmd, argv[2], argv[3]);
	if (strcmp(cmd, "chmod") == 0 && argc == 4)
		return do_chmod(argv[2], argv[3]);
	if (strcmp(cmd, "euid") == 0 && argc == 2)
		return printf("%u\n", (unsigned int)geteuid()) < 0;
	if (strcmp(cmd, "fsconfig") == 0 && argc == 5)
		return do_fsconfig(argv[2], argv[3], argv[4]);
	return usage();
}
