// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of idmap.c: the stick's owner, the one-way maps, the namespace. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idmap.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(t_root_owner_wins, "helper.idmap.owner_is_root_directory_owner")
{
	struct idmap_ids root = { 1234, 1235 };
	struct idmap_ids e[] = { { 4321, 4321 }, { 4321, 4321 }, { 0, 0 } };
	struct idmap_owner o;

	idmap_pick_owner(&root, e, N(e), &o);
	CHECK(o.found_uid && o.found_gid && o.id.uid == 1234 && o.id.gid == 1235,
	      "picked %u:%u (found %d/%d), want the root directory's 1234:1235",
	      o.id.uid, o.id.gid, o.found_uid, o.found_gid);
	return 0;
}

TEST(t_root_0_most_frequent, "helper.idmap.root_0_most_frequent_owner_below")
{
	struct idmap_ids root = { 0, 0 };
	struct idmap_ids e[] = {
		{ 4321, 4321 }, { 1234, 1234 }, { 0, 0 }, { 1234, 100 },
		{ 0, 0 }, { 0, 0 }, { 1234, 100 }, { 4321, 100 },
	};
	struct idmap_owner o;

	idmap_pick_owner(&root, e, N(e), &o);
	/* uid: 1234 x3 beats 4321 x2 (0 x3 never counts); gid: 100 x3 */
	CHECK(o.found_uid && o.id.uid == 1234, "uid %u (found %d), want 1234",
	      o.id.uid, o.found_uid);
	CHECK(o.found_gid && o.id.gid == 100, "gid %u (found %d), want 100",
	      o.id.gid, o.found_gid);
	return 0;
}

TEST(t_tie_to_smaller_and_none, "helper.idmap.ties_to_smaller_id_and_no_owner")
{
	struct idmap_ids root = { 0, 7 };
	struct idmap_ids tie[] = { { 5000, 1 }, { 3000, 1 }, { 5000, 1 }, { 3000, 1 } };
	struct idmap_ids zeros[] = { { 0, 0 }, { 0, 0 } };
	struct idmap_owner o;

	idmap_pick_owner(&root, tie, N(tie), &o);
	CHECK(o.found_uid && o.id.uid == 3000 && o.found_gid && o.id.gid == 7,
	      "tie gave %u:%u, want 3000 (smaller) and the root's gid 7", o.id.uid, o.id.gid);
	root.gid = 0;
	idmap_pick_owner(&root, zeros, N(zeros), &o);
	CHECK(!o.found_uid && !o.found_gid, "only root's files, yet found %u:%u",
	      o.id.uid, o.id.gid);
	idmap_pick_owner(&root, NULL, 0, &o);
	CHECK(!o.found_uid && !o.found_gid, "empty filesystem, yet found an owner");
	return 0;
}

TEST(t_map_one_way, "helper.idmap.map_shows_owner_one_way_caller_unmapped")
{
	char buf[IDMAP_MAP_LEN];
	/* disk 1234 shown as 1000; disk 1000 has no line (overflow id) */
	const char *want = "0 0 1000\n1001 1001 233\n1234 1000 1\n1235 1235 4294966060\n";
	const char *back = "0 0 1000\n1000 1234 1\n1001 1001 233\n1235 1235 4294966060\n";

	CHECK(idmap_map_text(buf, sizeof(buf), 1234, 1000) == 0, "failed");
	CHECK(strcmp(buf, want) == 0, "map\n%s\nwant\n%s", buf, want);
	/* not a swap: the other way round is another map */
	CHECK(idmap_map_text(buf, sizeof(buf), 1000, 1234) == 0 && strcmp(buf, back) == 0,
	      "disk 1000 shown as 1234 gave\n%s\nwant\n%s", buf, back);
	return 0;
}

TEST(t_map_edges, "helper.idmap.map_identity_adjacent_and_extreme_ids")
{
	char buf[IDMAP_MAP_LEN], small[20];

	CHECK(idmap_map_text(buf, sizeof(buf), 1000, 1000) == 0 &&
	      strcmp(buf, "0 0 4294967295\n") == 0, "identity: '%s'", buf);
	CHECK(idmap_map_text(buf, sizeof(buf), 1000, 1001) == 0 &&
	      strcmp(buf, "0 0 1000\n1000 1001 1\n1002 1002 4294966293\n") == 0,
	      "adjacent ids: '%s'", buf);
	CHECK(idmap_map_text(buf, sizeof(buf), 1, 4294967294U) == 0 &&
	      strcmp(buf, "0 0 1\n1 4294967294 1\n2 2 4294967292\n") == 0,
	      "ids at both ends: '%s'", buf);
	CHECK(idmap_map_text(buf, sizeof(buf), 4294967294U, 1) == 0 &&
	      strcmp(buf, "0 0 1\n2 2 4294967292\n4294967294 1 1\n") == 0,
	      "ids at both ends, the other way: '%s'", buf);
	CHECK(idmap_map_text(small, sizeof(small), 1234, 1000) == -1,
	      "a too small buffer was not refused");
	return 0;
}

TEST(t_status_pid, "helper.idmap.status_pid_is_own_namespace_pid")
{
	CHECK(idmap_status_pid("Name:\tx\nPid:\t55\nPPid:\t1\nNSpid:\t55\t3\n") == 3,
	      "NSpid: the last number is the pid in its own namespace");
	CHECK(idmap_status_pid("Name:\tx\nPid:\t55\nPPid:\t1\n") == 55,
	      "without NSpid, Pid");
	CHECK(idmap_status_pid("Name:\tx\nPPid:\t1\n") == -1, "no pid at all");
	CHECK(idmap_status_pid("Name:\tx\nNSpid:\tz\n") == -1, "not a number");
	CHECK(idmap_status_pid("Name:\tx\nNSpid:\t0\n") == -1, "pid 0");
	return 0;
}

/* a process in a fresh user namespace, stopped on a pipe; its pid */
static pid_t park_in_userns(int *hold)
{
	int p[2], r[2];
	pid_t pid;
	char c;

	if (pipe(p) || pipe(r))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		close(r[0]);
		if (unshare(CLONE_NEWUSER) || write(r[1], "1", 1) != 1)
			_exit(1);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	close(r[1]);
	if (read(r[0], &c, 1) != 1) {
		close(r[0]);
		close(p[1]);
		return -1;
	}
	close(r[0]);
	*hold = p[1];
	return pid;
}

TEST(t_proc_dir_checked, "helper.idmap.proc_dir_of_another_process_refused")
{
	char path[64], w[256] = "";
	int hold, fd, tmp;
	pid_t pid;

	if (geteuid() != 0) {
		snprintf(why, WHY_LEN, "needs root");
		return TAP_SKIP;
	}
	pid = park_in_userns(&hold);
	CHECK(pid > 0, "cannot park a process in a user namespace: %m");
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0, "%s: %m", path);
	/* the process behind the directory is not the one expected */
	CHECK(idmap_check_proc_dir(fd, pid + 1, w, sizeof(w)) == -1 &&
	      strstr(w, "another process"), "another pid accepted: '%s'", w);
	CHECK(idmap_check_proc_dir(fd, pid, w, sizeof(w)) == 0, "refused: %s", w);
	/* a directory that is not on a proc filesystem */
	tmp = open("/tmp", O_RDONLY | O_DIRECTORY);
	CHECK(tmp >= 0 && idmap_check_proc_dir(tmp, pid, w, sizeof(w)) == -1 &&
	      strstr(w, "not on a proc"), "/tmp accepted: '%s'", w);
	close(tmp);
	/* a namespace whose maps someone wrote already */
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	tmp = open(path, O_WRONLY);
	CHECK(tmp >= 0 && write(tmp, "0 100000 1\n", 11) == 11, "cannot map: %m");
	close(tmp);
	CHECK(idmap_check_proc_dir(fd, pid, w, sizeof(w)) == -1 && strstr(w, "not new"),
	      "a mapped namespace accepted: '%s'", w);
	close(fd);
	close(hold);
	waitpid(pid, NULL, 0);
	return 0;
}

/* the maps a process sees inside the namespace behind FD */
static int read_maps_in(int fd, char *out, size_t outsz)
{
	int p[2];
	pid_t pid;
	ssize_t n;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char buf[512];
		int m, len = 0;

		close(p[0]);
		if (setns(fd, CLONE_NEWUSER))
			_exit(1);
		for (int i = 0; i < 2; i++) {
			m = open(i ? "/proc/self/gid_map" : "/proc/self/uid_map", O_RDONLY);
			n = m < 0 ? -1 : read(m, buf + len, sizeof(buf) - 1 - (size_t)len);
			if (n < 0)
				_exit(1);
			len += (int)n;
			close(m);
		}
		_exit(write(p[1], buf, (size_t)len) == len ? 0 : 1);
	}
	close(p[1]);
	n = read(p[0], out, outsz - 1);
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (n < 0)
		return -1;
	out[n] = '\0';
	return 0;
}

TEST(t_userns_has_the_maps, "helper.idmap.userns_has_the_maps")
{
	char um[IDMAP_MAP_LEN], gm[IDMAP_MAP_LEN], seen[512], w[256] = "";
	int fd;

	if (geteuid() != 0) {
		snprintf(why, WHY_LEN, "needs root");
		return TAP_SKIP;
	}
	CHECK(idmap_map_text(um, sizeof(um), 1234, 1000) == 0 &&
	      idmap_map_text(gm, sizeof(gm), 4321, 1000) == 0, "map text");
	fd = idmap_userns_fd(um, gm, w, sizeof(w));
	CHECK(fd >= 0, "idmap_userns_fd: %s", w);
	CHECK(read_maps_in(fd, seen, sizeof(seen)) == 0, "cannot enter the namespace");
	close(fd);
	/* the kernel prints each extent as "%10u %10u %10u"; 1000 on disk
	 * has no line in either map */
	CHECK(strstr(seen, "1234       1000          1") &&
	      strstr(seen, "4321       1000          1") &&
	      !strstr(seen, "1000       1234") && !strstr(seen, "1000       4321"),
	      "maps inside the namespace:\n%.300s", seen);
	return 0;
}

TEST(t_scan_directory, "helper.idmap.scan_reads_root_and_entries")
{
	char dir[] = "/tmp/test-idmap.XXXXXX", p[64];
	struct idmap_owner o;
	int fd;

	if (geteuid() != 0) {
		snprintf(why, WHY_LEN, "needs root");
		return TAP_SKIP;
	}
	CHECK(mkdtemp(dir), "mkdtemp: %m");
	/* root-owned top; one entry each of 1234, 5000 and lost+found of
	 * 999: counted, lost+found would win the tie as the smallest id */
	snprintf(p, sizeof(p), "%s/lost+found", dir);
	CHECK(mkdir(p, 0700) == 0 && chown(p, 999, 999) == 0, "lost+found");
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		fd = open(p, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0 && fchown(fd, i ? 5000 : 1234, i ? 5000 : 1234) == 0,
		      "file %s", p);
		close(fd);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && idmap_scan_owner(fd, &o) == 0, "scan: %m");
	close(fd);
	CHECK(o.found_uid && o.id.uid == 1234 && o.id.gid == 1234,
	      "scan gave %u:%u (found %d), want 1234:1234", o.id.uid, o.id.gid, o.found_uid);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/lost+found", dir);
	rmdir(p);
	rmdir(dir);
	return 0;
}

int main(int argc, char *argv[])
{
	return tap_main(argc, argv);
}
