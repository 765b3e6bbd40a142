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
 *   fbtool exec [--sigign-chld] [--nofile N] [--sched-idle] [--nice N]
 *               [--ioprio-idle] CMD [ARG...]
 *       exec CMD with SIGCHLD ignored (inherited through exec, as a caller
 *       of the setuid helper may leave it), RLIMIT_NOFILE N, the
 *       scheduling policy SCHED_IDLE, nice value N, I/O class idle.
 *   fbtool sched PID
 *       print "policy P nice N ioprio I" of process PID (sched_getscheduler,
 *       getpriority, ioprio_get: 0 is the default class none).
 *   fbtool trylock FILE
 *       exit 0 when flock(LOCK_EX | LOCK_NB) of FILE succeeds (nobody
 *       holds it), 1 otherwise.
 *   fbtool lock FILE SECONDS
 *       flock(LOCK_EX) FILE (created if missing), print "locked", hold it
 *       SECONDS, exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: fbtool park SECONDS | fbtool exec [--sigign-chld] "
		"[--nofile N] [--sched-idle] [--nice N] [--ioprio-idle] CMD [ARG...] | "
		"fbtool sched PID | fbtool lock FILE SECONDS | fbtool trylock FILE\n");
	return 2;
}

static int sched(pid_t pid)
{
	int policy = sched_getscheduler(pid), nice, ioprio;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)pid);
	if (policy < 0 || errno) {
		perror("fbtool: sched");
		return 1;
	}
	ioprio = (int)syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
	printf("policy %d nice %d ioprio %d\n", policy, nice, ioprio);
	return 0;
}

static int lock(const char *file, int seconds)
{
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		perror("fbtool: lock");
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	sleep((unsigned int)seconds);
	return 0;
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
	if (argc == 3 && !strcmp(argv[1], "sched"))
		return sched((pid_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "trylock")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		return fd < 0 || flock(fd, LOCK_EX | LOCK_NB) ? 1 : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "lock"))
		return lock(argv[2], atoi(argv[3]));
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
		} else if (!strcmp(argv[i], "--sched-idle")) {
			struct sched_param sp = { .sched_priority = 0 };

			if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
				perror("fbtool: sched_setscheduler");
				return 127;
			}
		} else if (!strcmp(argv[i], "--nice") && i + 1 < argc) {
			if (setpriority(PRIO_PROCESS, 0, atoi(argv[++i]))) {
				perror("fbtool: setpriority");
				return 127;
			}
		} else if (!strcmp(argv[i], "--ioprio-idle")) {
			/* IOPRIO_WHO_PROCESS, class idle (3) << 13 */
			if (syscall(SYS_ioprio_set, 1, 0, 3 << 13)) {
				perror("fbtool: ioprio_set");
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
