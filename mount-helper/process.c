// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process.c - the process state a setuid helper inherits, made its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "process.h"

#define SAFE_PATH	"/usr/sbin:/usr/bin:/sbin:/bin"
#define NOFILE_WANT	1024

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

/*
 * Limits low enough to break a mount half-way (utab truncated, a descriptor
 * or an allocation refused after the mount is attached, SIGXCPU) and the
 * least the helper works with. Each is raised to unlimited where the
 * kernel lets us (CAP_SYS_RESOURCE), else to its hard limit; below the
 * minimum the helper refuses before it mounts anything.
 */
static const struct {
	int resource;
	const char *name;
	rlim_t min;
} limits[] = {
	{ RLIMIT_FSIZE, "RLIMIT_FSIZE (file size)", 16 << 20 },
	{ RLIMIT_NOFILE, "RLIMIT_NOFILE (open files)", 64 },
	{ RLIMIT_CPU, "RLIMIT_CPU (CPU seconds)", 60 },
	{ RLIMIT_DATA, "RLIMIT_DATA (data size)", 256 << 20 },
	{ RLIMIT_AS, "RLIMIT_AS (address space)", 256 << 20 },
	{ RLIMIT_STACK, "RLIMIT_STACK (stack size)", 1 << 20 },
};

static int raise_limits(char *why, size_t whysz)
{
	struct rlimit core = { 0, 0 };

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		/* descriptors cannot be unlimited: up to the kernel's ceiling */
		rlim_t want = limits[i].resource == RLIMIT_NOFILE ? NOFILE_WANT : RLIM_INFINITY;
		struct rlimit rl;

		if (getrlimit(limits[i].resource, &rl))
			return fail(why, whysz, "cannot read %s: %s", limits[i].name,
				    strerror(errno));
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
			struct rlimit up = { want, want };

			if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want)
				up.rlim_max = rl.rlim_max;
			if (setrlimit(limits[i].resource, &up)) {
				rl.rlim_cur = rl.rlim_max;	/* without CAP_SYS_RESOURCE */
				setrlimit(limits[i].resource, &rl);
			} else {
				rl = up;
			}
		}
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < limits[i].min)
			return fail(why, whysz, "%s is %llu, too low to mount safely "
				    "(at least %llu); not mounting", limits[i].name,
				    (unsigned long long)rl.rlim_cur,
				    (unsigned long long)limits[i].min);
	}
	if (setrlimit(RLIMIT_CORE, &core))
		return fail(why, whysz, "cannot turn off core files: %s", strerror(errno));
	return 0;
}

#define IOPRIO_WHO_PROC		1	/* <linux/ioprio.h>: IOPRIO_WHO_PROCESS */
#define IOPRIO_DEFAULT		0	/* class none: the CPU nice value decides */

/*
 * The scheduling policy (SCHED_IDLE, SCHED_BATCH, a real-time or deadline
 * one), the nice value and the I/O priority the caller chose: back to the
 * defaults, SCHED_OTHER, nice 0, I/O class none. A caller who slows the
 * helper down at will widens every window between two of its steps.
 */
static int reset_priorities(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		return -1;
	if (setpriority(PRIO_PROCESS, 0, 0))
		return -1;
	return syscall(SYS_ioprio_set, IOPRIO_WHO_PROC, 0, IOPRIO_DEFAULT) ? -1 : 0;
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
	for (int fd = 3; fd < NOFILE_WANT; fd++)
		close(fd);
	return 0;
}

int process_sanitize(char *why, size_t whysz)
{
	if (sanitize_fds())
		return fail(why, whysz, "cannot open /dev/null or close inherited "
			    "descriptors: %s", strerror(errno));
	if (reset_signals() || stop_timers())
		return fail(why, whysz, "cannot reset signals or timers: %s", strerror(errno));
	if (raise_limits(why, whysz))
		return -1;
	/* without root's euid (not installed setuid) it may not leave
	 * SCHED_IDLE or lower its nice value; it mounts nothing then */
	if (reset_priorities() && geteuid() == 0)
		return fail(why, whysz, "cannot reset the scheduling policy, nice value or "
			    "I/O priority: %s", strerror(errno));
	/* nothing from the caller's environment is used (LIBMOUNT_*, locale,
	 * PATH): util-linux's setuid programs do the same */
	if (clearenv() || setenv("PATH", SAFE_PATH, 1))
		return fail(why, whysz, "cannot clear the environment: %s", strerror(errno));
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
