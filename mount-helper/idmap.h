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
 * /proc/PID/uid_map (or gid_map) text for a map that swaps DISK and SHOWN
 * and is the identity for every other id (0 to 4294967294). On the mount,
 * an inode owned by DISK is shown as SHOWN and an inode SHOWN owns on disk
 * is shown as DISK; a file created by SHOWN is written as DISK. DISK ==
 * SHOWN: the identity. 0, or -1 when BUF is too small.
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
 * initial namespace); an O_CLOEXEC fd of it, or -1 with errno.
 */
int idmap_userns_fd(const char *uid_map, const char *gid_map);

#endif
