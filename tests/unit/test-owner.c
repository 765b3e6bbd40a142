// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of owner.c (the owner decision and option rewriting, H2-H7)
 * and kernel-support.c (K10).
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <unistd.h>

#include <libmount.h>

#include "owner.h"
#include "kernel-support.h"
#include "optstr.h"
#include "tap.h"

#define UUID_A "0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6b"
#define UUID_B "11111111-2222-3333-4444-555555555555"

static const gid_t groups[] = { 1000, 46 };

/* a user (1000:1000) mounting a tagged stick on a supporting kernel */
static struct owner_input user_input(const struct policy *p, const char *opts)
{
	return (struct owner_input) {
		.privileged = false, .uid = 1000, .gid = 1000,
		.groups = groups, .ngroups = 2, .options = opts,
		.removable = true, .fs_uuid = UUID_A, .kernel_support = true,
		.policy = p,
	};
}

/* decide and apply; *out is malloc'd */
static int decide_apply(const struct owner_input *in, struct owner_decision *d,
			char **out, struct notes *notes)
{
	*out = strdup(in->options ? in->options : "");
	if (!*out)
		return -1;
	owner_decide(in, d);
	return opts_apply_owner(out, d, notes);
}

TEST(t_untagged_left_alone, "helper.H2.untagged_device_left_alone")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	in.removable = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE, "untagged device got an owner");
	CHECK(strcmp(out, in.options) == 0, "options changed: '%s'", out);
	CHECK(strstr(d.why, "not tagged removable"), "why: %s", d.why);
	free(out);
	return 0;
}

TEST(t_root_untagged_exact, "helper.H2.root_mount_of_internal_disk_exact")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	p.has_default_owner = true;
	p.default_uid = 1000;
	p.default_gid = 1000;
	in = user_input(&p, "rw,relatime,errors=remount-ro");
	in.privileged = true;
	in.uid = 0;
	in.removable = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && strcmp(out, "rw,relatime,errors=remount-ro") == 0,
	      "root mount of an internal disk changed: '%s'", out);
	free(out);
	return 0;
}

TEST(t_tagged_user_gets_owner, "helper.H3.tagged_user_mount_gets_uid_gid")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_ADD, "no owner added: %s", d.why);
	CHECK(count_opt(out, "uid=1000") == 1 && count_opt(out, "gid=1000") == 1,
	      "uid/gid not added once: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1,
	      "nosuid/nodev duplicated or lost: '%s'", out);
	CHECK(n.n == 1 && strstr(n.line[0], "added uid=1000,gid=1000"),
	      "-v note does not say what was added: '%s'", n.n ? n.line[0] : "");
	free(out);
	return 0;
}

TEST(t_primary_gid_used, "helper.H3.primary_gid_of_user_used")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "user");
	in.uid = 1001;
	in.gid = 100;		/* primary group "users" */
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(count_opt(out, "uid=1001") == 1 && count_opt(out, "gid=100") == 1,
	      "not uid=1001,gid=100: '%s'", out);
	free(out);
	return 0;
}

TEST(t_suid_dev_replaced, "helper.H3.suid_dev_replaced_by_nosuid_nodev")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "users,exec,suid,dev");
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(count_opt(out, "suid") == 0 && count_opt(out, "dev") == 0,
	      "suid/dev kept with a presented owner: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1,
	      "nosuid/nodev not added: '%s'", out);
	CHECK(count_opt(out, "exec") == 1, "exec (harmless, granted) removed: '%s'", out);
	free(out);
	return 0;
}

/*
 * Does the linked libmount read NAME as an option of its own in OPTS, and
 * derive FLAG from OPTS? Asked of libmount, not split here.
 */
static bool libmount_reads_flag(const char *opts, const char *name, unsigned long flag)
{
	unsigned long flags = 0;
	char *val;
	size_t valsz;

	return mnt_optstr_get_option(opts, name, &val, &valsz) == 0 && !valsz &&
	       mnt_optstr_get_flags(opts, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)) == 0 &&
	       (flags & flag);
}

/* Does the linked libmount read NAME=VALUE as the first NAME of OPTS? */
static bool libmount_reads_value(const char *opts, const char *name, const char *value)
{
	char *val;
	size_t valsz;

	return mnt_optstr_get_option(opts, name, &val, &valsz) == 0 && val &&
	       valsz == strlen(value) && strncmp(val, value, valsz) == 0;
}

/* the owner is added with uid=,gid=,nosuid,nodev as libmount reads them, or
 * not at all */
static int owner_with_nosuid_nodev(const char *opts, bool must_apply, char *why)
{
	const char *ver = NULL;
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;
	int rc;
	char final[256];
	bool read;

	mnt_get_library_version(&ver);
	policy_init(&p);
	in = user_input(&p, opts);
	rc = decide_apply(&in, &d, &out, &n);
	snprintf(final, sizeof(final), "%s", out ? out : "(null)");
	read = out && libmount_reads_flag(out, "nosuid", MS_NOSUID) &&
	       libmount_reads_flag(out, "nodev", MS_NODEV) &&
	       libmount_reads_value(out, "uid", "1000") &&
	       libmount_reads_value(out, "gid", "1000");
	free(out);
	CHECK(d.action == OWNER_ADD, "no owner decided for '%s'", opts);
	CHECK(rc == 0 || !must_apply, "libmount %s: '%s' refused", ver, opts);
	CHECK(rc != 0 || read, "libmount %s reads no uid=1000,gid=1000,nosuid,nodev in "
	      "'%s' (from '%s')", ver, final, opts);
	return 0;
}

TEST(t_nosuid_after_backslash, "helper.H3.nosuid_nodev_after_trailing_backslash_read_by_libmount")
{
	/* libmount 2.40+ reads "x\,uid=1000" and "x\,nosuid" as one option */
	if (owner_with_nosuid_nodev("rw,noexec,user=alice,x\\", false, why))
		return -1;
	if (owner_with_nosuid_nodev("rw,uid=1000,gid=1000,user=alice,x\\", false, why))
		return -1;
	if (owner_with_nosuid_nodev("rw,x\\,suid,user=alice", false, why))
		return -1;
	/* a backslash inside an option is nobody's concern */
	return owner_with_nosuid_nodev("rw,user=alice,x=a\\b", true, why);
}

TEST(t_nosuid_after_quote, "helper.H3.nosuid_nodev_after_unpaired_quote_read_by_libmount")
{
	/* every libmount reads the rest as one quoted value */
	if (owner_with_nosuid_nodev("rw,user=alice,a\"b", false, why))
		return -1;
	return owner_with_nosuid_nodev("rw,user=alice,context=\"a,b\"", true, why);
}

TEST(t_udisks_untouched, "helper.H5.udisks_options_untouched")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;
	const char *u = "rw,nodev,nosuid,errors=remount-ro,uhelper=udisks2";

	policy_init(&p);
	p.has_default_owner = true;
	in = user_input(&p, u);
	in.privileged = true;
	in.uid = 0;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && strcmp(out, u) == 0, "udisks options changed: '%s'", out);
	free(out);
	return 0;
}

TEST(t_root_uid_respected, "helper.H5.root_uid_respected")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	p.has_default_owner = true;
	p.default_uid = 1000;
	p.default_gid = 1000;
	in = user_input(&p, "uid=1234");
	in.privileged = true;
	in.uid = 0;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && strcmp(out, "uid=1234") == 0,
	      "root's uid= overridden: '%s'", out);
	free(out);
	return 0;
}

TEST(t_user_uid_not_duplicated, "helper.H5.user_uid_not_duplicated")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "user=alice,uid=1000:1000,nosuid");
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(count_opt(out, "uid=1000:1000") == 1 && !strstr(out, "uid=1000,"),
	      "uid duplicated: '%s'", out);
	CHECK(count_opt(out, "gid=1000") == 1, "missing gid not added: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1, "nosuid duplicated: '%s'", out);
	free(out);
	return 0;
}

TEST(t_root_no_default_owner, "helper.H3.root_mount_without_default_owner_untouched")
{
	struct policy p;
	struct owner_decision d;
	struct owner_input in;

	policy_init(&p);
	in = user_input(&p, "rw");
	in.privileged = true;
	in.uid = 0;
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "root mount got an owner without default-owner");
	return 0;
}

TEST(t_root_default_owner, "helper.H7.root_mount_gets_default_owner")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	p.has_default_owner = true;
	p.default_uid = 1500;
	p.default_gid = 1600;
	in = user_input(&p, "rw");
	in.privileged = true;
	in.uid = 0;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_ADD && count_opt(out, "uid=1500") == 1 &&
	      count_opt(out, "gid=1600") == 1 && count_opt(out, "nosuid") == 1 &&
	      count_opt(out, "nodev") == 1, "default owner not applied: '%s'", out);
	free(out);
	in.options = "";	/* root gave no options at all */
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(strcmp(out, "uid=1500,gid=1600,nosuid,nodev") == 0,
	      "empty options became '%s'", out);
	free(out);
	return 0;
}

TEST(t_policy_disabled, "helper.H7.enabled_no_turns_override_off")
{
	struct policy p;
	struct owner_decision d;
	struct owner_input in;

	policy_init(&p);
	p.enabled = false;
	in = user_input(&p, "user");
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "enabled = no ignored");
	return 0;
}

TEST(t_policy_uuid_lists, "helper.H7.allow_and_deny_uuid")
{
	struct policy p;
	struct owner_decision d;
	struct owner_input in;

	policy_init(&p);
	strcpy(p.deny_uuid[p.n_deny_uuid++], "0B7D8F0E-0C55-4A59-9C57-3C1D2E4F5A6B");
	in = user_input(&p, "user");
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "deny-uuid (other case) ignored");

	policy_init(&p);
	strcpy(p.allow_uuid[p.n_allow_uuid++], UUID_B);
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "UUID not in allow-uuid got an owner");
	in.fs_uuid = UUID_B;
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_ADD, "UUID in allow-uuid refused: %s", d.why);
	in.fs_uuid = "";
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "unknown UUID passed an allow-uuid list");
	return 0;
}

TEST(t_policy_allow_group, "helper.H7.allow_group")
{
	struct policy p;
	struct owner_decision d;
	struct owner_input in;

	policy_init(&p);
	p.allow_group[p.n_allow_group++] = 46;
	in = user_input(&p, "user");
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_ADD, "member of allow-group refused: %s", d.why);
	in.ngroups = 1;		/* only 1000 */
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "non-member of allow-group got an owner");
	return 0;
}

TEST(t_kernel_missing, "helper.H6.kernel_without_support_fallback_off_unchanged")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	p.idmap_fallback = false;
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	in.kernel_support = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && d.kernel_missing, "unsupported kernel still got uid=");
	CHECK(strcmp(out, in.options) == 0, "options changed without kernel support: '%s'", out);
	free(out);
	return 0;
}

TEST(t_idmap_for_user, "helper.H6.kernel_without_support_idmap_for_user")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "rw,noexec,suid,dev,user=alice");
	in.kernel_support = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_IDMAP && d.helper_owner && d.map_uid && d.map_gid &&
	      d.uid == 1000 && d.gid == 1000 && !d.kernel_missing,
	      "action %d map %d/%d ids %lu:%lu", d.action, d.map_uid, d.map_gid,
	      (unsigned long)d.uid, (unsigned long)d.gid);
	CHECK(!opts_has(out, "uid") && !opts_has(out, "gid"), "uid=/gid= added: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1 &&
	      !count_opt(out, "suid") && !count_opt(out, "dev"),
	      "nosuid,nodev not forced: '%s'", out);
	free(out);
	return 0;
}

TEST(t_idmap_given, "helper.H6.given_uid_gid_idmapped_and_removed")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	/* udisks, as 69-extown-udisks.rules makes it mount */
	in = user_input(&p, "rw,nodev,nosuid,errors=remount-ro,uid=1000,gid=1001,"
			"uhelper=udisks2");
	in.privileged = true;
	in.uid = 0;
	in.kernel_support = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_IDMAP && !d.helper_owner && d.map_uid && d.map_gid &&
	      d.uid == 1000 && d.gid == 1001 && d.strip_ids,
	      "action %d map %d/%d ids %lu:%lu", d.action, d.map_uid, d.map_gid,
	      (unsigned long)d.uid, (unsigned long)d.gid);
	CHECK(strcmp(out, "rw,nodev,nosuid,errors=remount-ro,uhelper=udisks2") == 0,
	      "options: '%s'", out);
	free(out);

	/* uid=N:M only: the gid is left as it is, M plays no part */
	in.options = "rw,uid=1000:3000";
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_IDMAP && d.map_uid && !d.map_gid && d.uid == 1000,
	      "uid=1000:3000: action %d map %d/%d uid %lu", d.action, d.map_uid,
	      d.map_gid, (unsigned long)d.uid);
	CHECK(strcmp(out, "rw") == 0, "options: '%s'", out);
	free(out);

	/* the kernel has the options: nothing changes */
	in.options = "rw,uid=1000,gid=1001";
	in.kernel_support = true;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && strcmp(out, in.options) == 0,
	      "supporting kernel: action %d, '%s'", d.action, out);
	free(out);
	return 0;
}

TEST(t_mount8_idmap, "helper.S1.x_mount_idmap_left_to_mount8")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	/* the helper would idmap (no uid= in the kernel): mount(8) does */
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	in.kernel_support = false;
	in.mount8_idmaps = true;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && d.mount8_idmap, "helper still idmaps (action %d)", d.action);
	CHECK(d.nosuid_nodev, "nosuid,nodev not forced for mount(8)'s idmapped mount");
	CHECK(!d.kernel_missing, "said to mount without an owner");
	CHECK(strstr(d.why, "X-mount.idmap"), "why: %s", d.why);
	CHECK(strcmp(out, in.options) == 0, "options changed: '%s'", out);
	free(out);

	/* fstab's uid= the kernel lacks: removed, not idmapped by the helper */
	in = user_input(&p, "rw,nosuid,nodev,uid=1000,user=alice");
	in.kernel_support = false;
	in.mount8_idmaps = true;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && d.strip_ids && d.mount8_idmap,
	      "given uid= not left to mount(8) (action %d)", d.action);
	CHECK(count_opt(out, "uid=1000") == 0, "uid= kept for a kernel without it: '%s'", out);
	free(out);

	/*
	 * a kernel with uid=: no owner added either; under uid=1000 every
	 * inode shows 1000, which the entry's map does not name: nobody
	 */
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	in.mount8_idmaps = true;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && d.mount8_idmap && d.nosuid_nodev,
	      "owner added under the entry's idmapping (action %d)", d.action);
	CHECK(strcmp(out, in.options) == 0,
	      "options changed under the entry's idmapping: '%s'", out);
	free(out);

	/* an untagged device: as before, nothing */
	in = user_input(&p, "rw,noexec,nosuid,nodev,user=alice");
	in.kernel_support = false;
	in.removable = false;
	in.mount8_idmaps = true;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && !d.mount8_idmap && !d.nosuid_nodev,
	      "untagged device touched");
	free(out);
	return 0;
}

TEST(t_idmap_given_without_fallback, "helper.H6.given_uid_gid_removed_without_fallback")
{
	static const char opts[] = "rw,nosuid,nodev,uid=1000,gid=1000,uhelper=udisks2";
	struct policy p[2];
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p[0]);
	p[0].idmap_fallback = false;
	policy_init_closed(&p[1]);
	for (int i = 0; i < 2; i++) {
		in = user_input(&p[i], opts);
		in.privileged = true;
		in.uid = 0;
		in.kernel_support = false;
		CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
		CHECK(d.action == OWNER_LEAVE && d.kernel_missing && d.strip_ids,
		      "%s: action %d", i ? "broken policy" : "idmap-fallback = no", d.action);
		/* a mount that works without the helper is no failed one with it */
		CHECK(strcmp(out, "rw,nosuid,nodev,uhelper=udisks2") == 0,
		      "uid=/gid= kept for a kernel that refuses them: '%s'", out);
		free(out);
	}
	return 0;
}

TEST(t_idmap_not_for_malformed_or_remount, "helper.H6.malformed_or_remount_not_idmapped")
{
	struct policy p;
	struct owner_decision d;
	struct notes n = { 0 };
	struct owner_input in;
	char *out;

	policy_init(&p);
	in = user_input(&p, "rw,uid=alice");
	in.privileged = true;
	in.uid = 0;
	in.kernel_support = false;
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && !d.strip_ids && strcmp(out, in.options) == 0,
	      "malformed uid= rewritten: action %d, '%s'", d.action, out);
	free(out);
	in.options = "remount,uid=1000";
	in.passthrough = "remount";
	CHECK(decide_apply(&in, &d, &out, &n) == 0, "apply failed");
	CHECK(d.action == OWNER_LEAVE && strcmp(out, in.options) == 0,
	      "remount rewritten: action %d, '%s'", d.action, out);
	free(out);
	return 0;
}

static int mkpath(const char *root, const char *rel, int file)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (!file)
		return mkdir(p, 0755);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);

	return fd < 0 ? -1 : close(fd);
}

/* ROOT/NAME holds exactly TEXT */
static int write_text(const char *root, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* run CHECKS on a fresh temporary directory, removed afterwards */
static int in_tmp_root(int (*checks)(const char *root, char *why), char *why)
{
	char root[] = "/tmp/extown-sysfs-XXXXXX";
	int rc;

	CHECK(mkdtemp(root), "mkdtemp failed");
	rc = checks(root, why);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

static int sysfs_checks(const char *root, char *why);

TEST(t_sysfs_detection, "helper.H6.sysfs_feature_file_detection")
{
	return in_tmp_root(sysfs_checks, why);
}

static int sysfs_checks(const char *root, char *why)
{
	char sys[64], mods[64];
	const struct kernel_paths kp = { sys, mods };

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(mods, sizeof(mods), "%s/modules", root);
	CHECK(mkdir(sys, 0755) == 0 && mkdir(mods, 0755) == 0, "setup");
	CHECK(!kernel_supports_override(&kp, "ext4") && !kernel_supports_override(&kp, "ext2"),
	      "support claimed with empty sysfs");
	CHECK(mkpath(sys, "fs/ext4/features/uid_gid_override", 1) == 0, "setup");
	CHECK(kernel_supports_override(&kp, "ext4") && kernel_supports_override(&kp, "ext3"),
	      "ext4/ext3 support not seen");
	CHECK(!kernel_supports_override(&kp, "ext2"),
	      "ext2 claimed supported with no module lists to tell who serves it");
	CHECK(!kernel_supports_override(&kp, "vfat"), "vfat claimed");
	return 0;
}

/* Issue 10 defect 10: a built-in unpatched ext2 driver beside a patched ext4 */
static int modules_checks(const char *root, char *why)
{
	char sys[64], mods[64];
	const struct kernel_paths kp = { sys, mods };

	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(mods, sizeof(mods), "%s/modules", root);
	CHECK(mkdir(sys, 0755) == 0 && mkdir(mods, 0755) == 0, "setup");
	CHECK(mkpath(sys, "fs/ext4/features/uid_gid_override", 1) == 0, "setup");
	/* Debian: ext4 a module serving ext2 too, no ext2 driver anywhere */
	CHECK(mkpath(mods, "modules.builtin", 1) == 0 && mkpath(mods, "modules.dep", 1) == 0,
	      "setup");
	CHECK(write_text(mods, "modules.dep", "kernel/fs/ext4/ext4.ko: kernel/fs/jbd2/jbd2.ko\n") == 0,
	      "setup");
	CHECK(kernel_supports_override(&kp, "ext2"),
	      "ext2 served by ext4 (no separate ext2 driver in the module lists) not seen");
	/* built in, unpatched: no /sys/fs/ext2, no /sys/module/ext2 */
	CHECK(write_text(mods, "modules.builtin", "kernel/fs/ext2/ext2.ko\n") == 0, "setup");
	CHECK(!kernel_supports_override(&kp, "ext2"),
	      "ext2 claimed supported with an unpatched built-in ext2 driver");
	CHECK(kernel_supports_override(&kp, "ext4"), "ext4 lost");
	/* a separate ext2 module, not loaded */
	CHECK(write_text(mods, "modules.builtin", "") == 0 &&
	      write_text(mods, "modules.dep", "kernel/fs/ext2/ext2.ko: kernel/fs/mbcache.ko\n") == 0,
	      "setup");
	CHECK(!kernel_supports_override(&kp, "ext2"),
	      "ext2 claimed supported with an unpatched ext2 module");
	/* loaded */
	CHECK(write_text(mods, "modules.dep", "") == 0 && mkpath(sys, "module/ext2", 0) == 0,
	      "setup");
	CHECK(!kernel_supports_override(&kp, "ext2"),
	      "ext2 claimed supported with a loaded unpatched ext2 module");
	CHECK(mkpath(sys, "fs/ext2/features/uid_gid_override", 1) == 0, "setup");
	CHECK(kernel_supports_override(&kp, "ext2"), "patched ext2 driver not seen");
	return 0;
}

TEST(t_modules_detection, "helper.H6.ext2_served_by_whom_from_module_lists")
{
	return in_tmp_root(modules_checks, why);
}

/* H9: remounts, binds, moves and the boot filesystems get no owner */
TEST(t_passthrough_and_boot, "helper.H9.passthrough_and_boot_filesystems_untouched")
{
	struct policy p;
	struct owner_input in;
	struct owner_decision d;
	static const char *const pass[] = {
		"ro,remount", "bind", "rbind", "move", "shared", "rprivate", "runbindable",
	};

	policy_init(&p);
	p.has_default_owner = true;
	p.default_uid = 1000;
	p.default_gid = 1000;
	for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++) {
		in = user_input(&p, pass[i]);
		in.privileged = true;
		in.passthrough = opts_passthrough(pass[i]);
		owner_decide(&in, &d);
		CHECK(in.passthrough && d.action == OWNER_LEAVE,
		      "'%s' by root with default-owner: options rewritten", pass[i]);
	}
	in = user_input(&p, "rw");
	in.privileged = true;
	in.boot_fs = true;
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "root mount of the boot filesystem got default-owner");
	in = user_input(&p, "rw");
	in.boot_fs = true;
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "user mount of a boot filesystem got an owner");
	CHECK(opts_passthrough("rw,noexec,nosuid,nodev,user") == NULL, "plain mount passed through");
	return 0;
}

/* H10: a policy file that exists but cannot be used adds no owner */
TEST(t_broken_policy_closed, "helper.H10.broken_policy_adds_no_owner")
{
	struct policy p;
	struct owner_input in;
	struct owner_decision d;

	policy_init_closed(&p);
	in = user_input(&p, "rw");
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "broken policy: user mount got an owner");
	in.privileged = true;
	owner_decide(&in, &d);
	CHECK(d.action == OWNER_LEAVE, "broken policy: root mount got an owner");
	return 0;
}

int main(int argc, char *argv[])
{
	return tap_main(argc, argv);
}
