/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a setuid program inherits from whoever runs it, and what this one
 * does with each: signal dispositions and mask, interval timers, resource
 * limits, file descriptors, environment, umask and working directory. The
 * caller chooses all of them (docs/threat-model.md, "Inherited process
 * state").
 */
#ifndef EXTOWN_PROCESS_H
#define EXTOWN_PROCESS_H

#include <stddef.h>

/*
 * At the start of a run by a user (real uid not 0): descriptors 0-2 open
 * (on /dev/null if closed) and every other inherited descriptor closed;
 * every signal back to its default action except SIGPIPE, ignored (a
 * closed stderr gives EPIPE, not death); an empty signal mask; interval
 * timers stopped; the limits a mount needs raised (file size, descriptors,
 * memory, CPU time), and a refusal when one stays below what the helper
 * needs; no core files; the environment cleared but for a fixed PATH;
 * umask 022. 0, or -1 with why (nothing has been mounted).
 */
int process_sanitize(char *why, size_t whysz);

/*
 * From the moment the helper is root for good until it exits: every signal
 * that can be blocked is blocked, so that neither the terminal (SIGINT,
 * SIGTSTP, SIGTTOU, SIGHUP) nor a timer stops or kills it between the mount
 * and its /run/mount/utab entry; the working directory is "/". 0, or -1
 * with errno.
 */
int process_hold_signals(void);

#endif
