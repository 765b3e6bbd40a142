/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The idmapped-mount fallback for kernels without extown's uid=/gid= (the
 * ownership is then given through MOUNT_ATTR_IDMAP): who the stick's owner
 * is, the identity-but-one-swap maps, and the user namespace that carries
 * them. The owner choice and the map text are pure; the rest reads a
 * directory or forks.
 */
#ifndef EXTOWN_IDMAP_H
#define EXTOWN_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* At most this many entries under the root directory are looked at. */
#define IDMAP_SCAN_MAX		4096

/* Big enough for five extents of "%u %u %u\n". */
#define IDMAP_MAP_LEN		192

struct idmap_ids {
	uint32_t uid, gid;
};

/*
 * The stick's owner, per id kind: the root directory's owner when it is not
 * 0; else the most frequent non-0 owner among ENTRIES (the entries directly
 * under the root, lost+found left out by the caller), ties to the smaller
 * id. found_uid / found_gid false when there is none: id 0 is never mapped.
 */
struct idmap_owner {
	bool found_uid, found_gid;
	struct idmap_ids id;
};

void idmap_pick_owner(const struct idmap_ids *root, const struct idmap_ids *entries,
		      size_t n, struct idmap_owner *out);

/*
 * /proc/PID/uid_map (or gid_map) text for a map that shows the on-disk id
 * DISK as SHOWN and every other id (0 to 4294967294) as itself, except
 * SHOWN: an inode SHOWN owns on disk has no id on the mount (stat gives
 * the overflow id, 65534, and nobody has owner rights over it). A file
 * created by SHOWN is written as DISK; nobody can create a file as DISK
 * there. DISK == SHOWN: the identity. 0, or -1 when BUF is too small.
 */
int idmap_map_text(char *buf, size_t bufsz, uint32_t disk, uint32_t shown);

/*
 * Read the owner of the directory DIRFD and of up to IDMAP_SCAN_MAX entries
 * directly in it (not following symbolic links, lost+found left out) and
 * pick the stick's owner. 0, or -1 with errno.
 */
int idmap_scan_owner(int dirfd, struct idmap_owner *out);

/*
 * A new user namespace with these maps (the caller must be root in the
 * initial namespace); an O_CLOEXEC fd of it, or -1 with why. No pid number
 * names anything: a forked child unshares CLONE_NEWUSER and hands its own
 * /proc directory over a socket pair; the maps are written through that
 * descriptor, which stays bound to the child even if it dies.
 */
int idmap_userns_fd(const char *uid_map, const char *gid_map, char *why, size_t whysz);

/*
 * Is PROCFD a /proc directory, on a proc filesystem, of the process PID
 * (numbered in the caller's own pid namespace) whose user namespace has no
 * maps yet? 0, or -1 with why. For idmap_userns_fd() and the tests.
 */
int idmap_check_proc_dir(int procfd, pid_t pid, char *why, size_t whysz);

/* The process's pid in its own namespace from /proc/PID/status text, or -1. */
long idmap_status_pid(const char *status);

#endif
