// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of fstab.c: what /etc/fstab grants a user (H3, H4), on a
 * private fstab file. /dev/null stands in for the device (root:root). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstab.h"
#include "msg.h"
#include "tap.h"

static char dir[] = "/tmp/extown-fstab-XXXXXX";
static char fstab[128], mnt[128];

static int write_fstab(const char *line)
{
	FILE *f = fopen(fstab, "w");

	if (!f)
		return -1;
	fprintf(f, "# test fstab\n/dev/zero /nonexistent ext4 users 0 0\n%s\n", line);
	return fclose(f);
}

/* grant for /dev/null on mnt as uid UID in GROUPS; 0 or -1 with err */
static int grant(const char *line, uid_t uid, const gid_t *groups, size_t n,
		 struct fstab_grant *g, char *err, size_t errsz)
{
	if (write_fstab(line))
		return fail(err, errsz, "cannot write %s", fstab);
	return fstab_user_grant(fstab, "/dev/null", mnt, uid, groups, n, NULL, stat, g,
				err, errsz);
}

static const gid_t user_groups[] = { 1000 };
static const gid_t root_group[] = { 0 };

TEST(t_user_grants, "helper.H3.fstab_user_and_users_entries_grant")
{
	struct fstab_grant g;
	char line[256], err[300] = "";

	snprintf(line, sizeof(line), "/dev/null %s ext4 user,noauto,noatime 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == 0, "refused: %s", err);
	CHECK(strcmp(g.source, "/dev/null") == 0 && strcmp(g.target, mnt) == 0,
	      "grant names %s on %s", g.source, g.target);
	CHECK(g.fstype && strcmp(g.fstype, "ext4") == 0, "fstype");
	CHECK(strstr(g.options, "noatime") && strstr(g.options, "user"),
	      "fstab options not carried: '%s'", g.options);
	fstab_grant_free(&g);
	snprintf(line, sizeof(line), "/dev/null %s auto users 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == 0, "users refused: %s", err);
	CHECK(g.fstype == NULL, "auto not reported as NULL");
	fstab_grant_free(&g);
	return 0;
}

TEST(t_no_user_option, "helper.H4.fstab_entry_without_user_refused")
{
	struct fstab_grant g;
	char line[256], err[300] = "";

	snprintf(line, sizeof(line), "/dev/null %s ext4 defaults 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "entry without user granted");
	CHECK(strstr(err, "only root"), "message: %s", err);
	snprintf(line, sizeof(line), "/dev/null %s ext4 user=bob 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "user=bob (not a grant for mount(8)) granted");
	return 0;
}

TEST(t_wrong_entry, "helper.H4.fstab_other_entry_refused")
{
	struct fstab_grant g;
	char line[256], err[300] = "";

	snprintf(line, sizeof(line), "/dev/null %s/other ext4 user 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "another mount point granted");
	CHECK(strstr(err, "not in"), "message: %s", err);
	snprintf(line, sizeof(line), "/dev/full %s ext4 user 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "another device granted");
	snprintf(line, sizeof(line), "/dev/null %s vfat user 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "a vfat entry granted to the ext helper");
	return 0;
}

TEST(t_owner_group, "helper.H3.fstab_owner_and_group_as_mount8")
{
	struct fstab_grant g;
	char line[256], err[300] = "";

	/* /dev/null is root:root */
	snprintf(line, sizeof(line), "/dev/null %s ext4 owner 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "owner granted to a user who does not own the device");
	CHECK(grant(line, 0, root_group, 1, &g, err, sizeof(err)) == 0,
	      "owner refused to the device's owner: %s", err);
	fstab_grant_free(&g);
	snprintf(line, sizeof(line), "/dev/null %s ext4 group 0 0", mnt);
	CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
	      "group granted to a non-member");
	CHECK(grant(line, 1000, root_group, 1, &g, err, sizeof(err)) == 0,
	      "group refused to a member: %s", err);
	fstab_grant_free(&g);
	return 0;
}

/* Issue 10 defect 6: of user/nouser (users/nousers ...) the last one wins */
TEST(t_last_wins, "helper.H8.fstab_user_nouser_last_wins")
{
	static const char *const refused[] = {
		"user,nouser", "users,nousers", "defaults,user,nouser,noauto",
		"user=bob,user", "owner,noowner", "user,users,nouser,nousers",
		/* libmount looks at the first "user": it names who mounted */
		"nouser,user=x,user",
	};
	static const char *const granted[] = {
		"nouser,user", "nousers,users", "user,nouser,users", "user=x,nouser,users",
	};
	struct fstab_grant g;
	char line[256], err[300] = "";

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(line, sizeof(line), "/dev/null %s ext4 %s 0 0", mnt, refused[i]);
		CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == -1,
		      "'%s' granted", refused[i]);
	}
	for (size_t i = 0; i < sizeof(granted) / sizeof(granted[0]); i++) {
		snprintf(line, sizeof(line), "/dev/null %s ext4 %s 0 0", mnt, granted[i]);
		CHECK(grant(line, 1000, user_groups, 1, &g, err, sizeof(err)) == 0,
		      "'%s' refused: %s", granted[i], err);
		fstab_grant_free(&g);
	}
	return 0;
}

/* Issue 10 defects 4, 7: a loop device matches a "loop" entry only when it
 * serves exactly that file at that offset and size limit */
TEST(t_loop_entry, "helper.H8.fstab_loop_entry_matches_device_status")
{
	struct fstab_grant g;
	struct loop_backing b = { 0 };
	struct stat st;
	char img[160], line[400], err[300] = "";
	FILE *f;

	snprintf(img, sizeof(img), "%s/disk.img", dir);
	f = fopen(img, "w");
	CHECK(f && fclose(f) == 0, "cannot create %s", img);
	CHECK(stat(img, &st) == 0, "stat");
	b.dev = st.st_dev;
	b.ino = st.st_ino;
	b.offset = 4096;
	snprintf(line, sizeof(line), "%s %s ext4 user,noauto,loop,offset=4096 0 0", img, mnt);
	CHECK(write_fstab(line) == 0, "write");
	CHECK(fstab_user_grant(fstab, "/dev/loop7", mnt, 1000, user_groups, 1, &b, stat, &g,
			       err, sizeof(err)) == 0, "loop entry refused: %s", err);
	CHECK(g.loop && strcmp(g.source, "/dev/loop7") == 0, "grant: loop %d source %s",
	      g.loop, g.source);
	fstab_grant_free(&g);
	b.offset = 0;
	CHECK(fstab_user_grant(fstab, "/dev/loop7", mnt, 1000, user_groups, 1, &b, stat, &g,
			       err, sizeof(err)) == -1, "loop device at another offset granted");
	b.offset = 4096;
	b.ino++;
	CHECK(fstab_user_grant(fstab, "/dev/loop7", mnt, 1000, user_groups, 1, &b, stat, &g,
			       err, sizeof(err)) == -1, "loop device of another file granted");
	b.ino--;
	snprintf(line, sizeof(line), "%s %s ext4 user,noauto,offset=4096 0 0", img, mnt);
	CHECK(write_fstab(line) == 0, "write");
	CHECK(fstab_user_grant(fstab, "/dev/loop7", mnt, 1000, user_groups, 1, &b, stat, &g,
			       err, sizeof(err)) == -1, "entry without loop granted a loop device");
	CHECK(fstab_user_grant(fstab, "/dev/loop7", mnt, 1000, user_groups, 1, NULL, stat, &g,
			       err, sizeof(err)) == -1, "no loop data, still granted");
	unlink(img);
	return 0;
}

int main(int argc, char *argv[])
{
	struct tap tap = tap_init(argc, argv);
	if (!mkdtemp(dir)) {
		tap_setup_fail(&tap, "helper.fstab.setup", "mkdtemp failed");
		return tap_status(&tap);
	}
	snprintf(fstab, sizeof(fstab), "%s/fstab", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	mkdir(mnt, 0755);
	tap_run_all(&tap);
	unlink(fstab);
	rmdir(mnt);
	rmdir(dir);
	return tap_status(&tap);
}
