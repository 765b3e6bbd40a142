// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process.c - the process state a setuid helper inherits, made its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"

#define SAFE_PATH	"/usr/sbin:/usr/bin:/sbin:/bin"
#define NOFILE_MIN	1024

static int reset_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		/* the real-time signals glibc keeps for itself refuse: fine */
		if (sigaction(sig, sig == SIGPIPE ? &ign : &dfl, NULL) && errno != EINVAL)
			return -1;
	}
	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL);
}

static int stop_timers(void)
{
	static const int which[] = { ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF };
	struct itimerval zero = { 0 };

	for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
		if (setitimer(which[i], &zero, NULL))
			return -1;
	return 0;
}

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit rl = { soft, hard };

	return setrlimit(resource, &rl);
}

/* limits low enough to break a mount half-way are raised; no core files */
static int raise_limits(void)
{
	static const int unlimited[] = {
		RLIMIT_FSIZE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_AS, RLIMIT_STACK,
	};
	struct rlimit rl;

	for (size_t i = 0; i < sizeof(unlimited) / sizeof(unlimited[0]); i++)
		if (set_limit(unlimited[i], RLIM_INFINITY, RLIM_INFINITY))
			return -1;
	if (set_limit(RLIMIT_CORE, 0, 0) || getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur < NOFILE_MIN || rl.rlim_max < NOFILE_MIN)
		return set_limit(RLIMIT_NOFILE, NOFILE_MIN, NOFILE_MIN);
	return 0;
}

/* 0-2 open (a file opened later must never become stdout), the rest closed */
static int sanitize_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			int n = open("/dev/null", O_RDWR);

			if (n != fd)
				return -1;
		}
	}
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	for (int fd = 3; fd < NOFILE_MIN; fd++)
		close(fd);
	return 0;
}

int process_sanitize(void)
{
	if (sanitize_fds() || reset_signals() || stop_timers())
		return -1;
	/* only a setuid run can raise limits; any other changes nothing */
	if (geteuid() == 0 && raise_limits())
		return -1;
	/* nothing from the caller's environment is used (LIBMOUNT_*, locale,
	 * PATH): util-linux's setuid programs do the same */
	if (clearenv() || setenv("PATH", SAFE_PATH, 1))
		return -1;
	umask(022);
	return 0;
}

int process_hold_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, NULL))
		return -1;
	return chdir("/");
}
