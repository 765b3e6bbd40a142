// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fbtool for tests/privilege/guest-fallback.sh (the idmapped fallback of
 * the setuid helper, issue 18):
 *
 *   fbtool park SECONDS
 *       (run as alice) unshare a user namespace and wait there, without
 *       exec (an exec would drop the namespace's capabilities), for at
 *       most SECONDS. Prints "parked PID". Whenever its uid_map becomes
 *       non-empty — nobody but root can write it — it prints the map
 *       ("map: ..."), takes uid/gid 0 in the namespace and tries what an
 *       attacker would: read /etc/shadow ("shadow: read N bytes" or
 *       "shadow: ERRNO") and create /root/pwned-PID ("pwned: created" or
 *       "pwned: ERRNO"); then exits.
 *   fbtool exec [--sigign-chld] [--nofile N] CMD [ARG...]
 *       exec CMD with SIGCHLD ignored (inherited through exec, as a caller
 *       of the setuid helper may leave it) and/or RLIMIT_NOFILE N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: fbtool park SECONDS | fbtool exec [--sigign-chld] "
		"[--nofile N] CMD [ARG...]\n");
	return 2;
}

static void attack(void)
{
	char buf[4096], path[64];
	ssize_t n;
	int fd;

	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		printf("setresuid 0: %s\n", strerror(errno));
	fd = open("/etc/shadow", O_RDONLY);
	if (fd < 0) {
		printf("shadow: %s\n", strerror(errno));
	} else {
		n = read(fd, buf, sizeof(buf));
		printf("shadow: read %zd bytes\n", n);
		close(fd);
	}
	snprintf(path, sizeof(path), "/root/pwned-%d", (int)getpid());
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	if (fd < 0) {
		printf("pwned: %s\n", strerror(errno));
	} else {
		printf("pwned: created %s\n", path);
		close(fd);
	}
}

static int park(int seconds)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	char map[512];

	if (unshare(CLONE_NEWUSER)) {
		printf("unshare: %s\n", strerror(errno));
		return 1;
	}
	printf("parked %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; i < (long)seconds * 50; i++) {
		int fd = open("/proc/self/uid_map", O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, map, sizeof(map) - 1);

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			map[n] = '\0';
			for (char *c = map; *c; c++)
				if (*c == '\n')
					*c = ';';
			printf("map: %s\n", map);
			attack();
			fflush(stdout);
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	printf("timeout: no map\n");
	return 0;
}

int main(int argc, char *argv[])
{
	int i = 2;

	if (argc >= 3 && !strcmp(argv[1], "park"))
		return park(atoi(argv[2]));
	if (argc < 3 || strcmp(argv[1], "exec"))
		return usage();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--sigign-chld")) {
			signal(SIGCHLD, SIG_IGN);
		} else if (!strcmp(argv[i], "--nofile") && i + 1 < argc) {
			rlim_t n = (rlim_t)atol(argv[++i]);
			struct rlimit rl = { n, n };

			if (setrlimit(RLIMIT_NOFILE, &rl)) {
				perror("fbtool: setrlimit");
				return 127;
			}
		} else {
			return usage();
		}
	}
	if (i >= argc)
		return usage();
	execvp(argv[i], argv + i);
	perror("fbtool: exec");
	return 127;
}
