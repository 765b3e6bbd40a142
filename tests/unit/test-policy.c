// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of policy.c: the strict parser of /etc/extown.conf (H7). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "tap.h"

/* fake name service: users alice 1000:1000, bob 1001:100; groups plugdev 46 */
static int fake_user(const char *name, uid_t *uid, gid_t *gid)
{
	if (strcmp(name, "alice") == 0) {
		*uid = 1000;
		*gid = 1000;
		return 0;
	}
	if (strcmp(name, "bob") == 0) {
		*uid = 1001;
		*gid = 100;
		return 0;
	}
	return -1;
}

static int fake_group(const char *name, gid_t *gid)
{
	if (strcmp(name, "plugdev") == 0) {
		*gid = 46;
		return 0;
	}
	return -1;
}

static const struct policy_names names = { fake_user, fake_group };

static bool is_default(const struct policy *p)
{
	return p->enabled && p->idmap_fallback && !p->n_allow_uuid && !p->n_deny_uuid &&
	       !p->n_allow_group && !p->has_default_owner;
}

static bool is_closed(const struct policy *p)
{
	return !p->enabled && p->broken && !p->has_default_owner;
}

TEST(t_all_keys, "helper.H7.policy_parses_every_key")
{
	static const char text[] =
		"# extown policy\n"
		"\n"
		"enabled = no\n"
		"idmap-fallback = no\n"
		"allow-uuid = 0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6b\n"
		"  deny-uuid=11111111-2222-3333-4444-55555555555F  \n"
		"allow-group = plugdev\n"
		"allow-group = 27\n"
		"default-owner = bob\n";
	struct policy p;
	char err[300] = "";

	CHECK(policy_parse(&p, text, &names, err, sizeof(err)) == 0, "valid file refused: %s", err);
	CHECK(!p.enabled, "enabled = no not read");
	CHECK(!p.idmap_fallback, "idmap-fallback = no not read");
	CHECK(p.n_allow_uuid == 1 && strcmp(p.allow_uuid[0],
	      "0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6b") == 0, "allow-uuid not read");
	CHECK(p.n_deny_uuid == 1 && policy_uuid_listed(p.deny_uuid, 1,
	      "11111111-2222-3333-4444-55555555555f"), "deny-uuid (other case, spaces) not read");
	CHECK(p.n_allow_group == 2 && p.allow_group[0] == 46 && p.allow_group[1] == 27,
	      "allow-group not resolved");
	CHECK(p.has_default_owner && p.default_uid == 1001 && p.default_gid == 100,
	      "default-owner bob not 1001:100");
	return 0;
}

TEST(t_owner_forms, "helper.H7.policy_default_owner_forms")
{
	struct policy p;
	char err[300] = "";

	CHECK(policy_parse(&p, "default-owner = alice:plugdev\n", &names, err, sizeof(err)) == 0,
	      "alice:plugdev refused: %s", err);
	CHECK(p.default_uid == 1000 && p.default_gid == 46, "alice:plugdev wrong");
	CHECK(policy_parse(&p, "default-owner = 1234:5678", &names, err, sizeof(err)) == 0,
	      "1234:5678 (no final newline) refused: %s", err);
	CHECK(p.default_uid == 1234 && p.default_gid == 5678, "1234:5678 wrong");
	return 0;
}

TEST(t_empty_is_default, "helper.H7.policy_empty_and_comments_are_defaults")
{
	struct policy p;
	char err[300] = "";

	CHECK(policy_parse(&p, "", &names, err, sizeof(err)) == 0, "empty refused");
	CHECK(is_default(&p), "empty file not the defaults");
	CHECK(policy_parse(&p, "# only a comment\n\n   \n", &names, err, sizeof(err)) == 0,
	      "comments refused: %s", err);
	CHECK(is_default(&p), "comment-only file not the defaults");
	return 0;
}

TEST(t_malformed, "helper.H7.policy_malformed_refused_with_line")
{
	static const struct { const char *text, *expect; } bad[] = {
		{ "enabled = yes\ncolour = blue\n", "line 2: unknown key 'colour'" },
		{ "enabled = maybe\n", "line 1" },
		{ "enabled = yes\nenabled = no\n", "twice" },
		{ "enabled\n", "expected 'key = value'" },
		{ "enabled =\n", "has no value" },
		{ "allow-uuid = 1234\n", "not a filesystem UUID" },
		{ "allow-uuid = 0b7d8f0e0c554a599c573c1d2e4f5a6b\n", "not a filesystem UUID" },
		{ "deny-uuid = 0b7d8f0e-0c55-4a59-9c57-3c1d2e4f5a6g\n", "not a filesystem UUID" },
		{ "allow-group = nosuchgroup\n", "no such group" },
		{ "allow-group = -5\n", "not a group name" },
		{ "default-owner = 1000\n", "needs a gid" },
		{ "default-owner = nosuchuser\n", "no such user" },
		{ "default-owner = alice:1:2\n", "more than one ':'" },
		{ "default-owner = alice\ndefault-owner = bob\n", "twice" },
		{ "default-owner = 4294967295:0\n", "not a user name or uid" },
		{ "enabled = yes # comment\n", "one value per line" },
		{ "allow-group = plug dev\n", "one value per line" },
		{ "Enabled = yes\n", "unknown key" },
		{ "idmap-fallback = maybe\n", "idmap-fallback must be 'yes' or 'no'" },
		{ "idmap-fallback = no\nidmap-fallback = no\n", "line 2: 'idmap-fallback' given twice" },
	};
	struct policy p;
	char err[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(policy_parse(&p, bad[i].text, &names, err, sizeof(err)) == -1,
		      "accepted: '%s'", bad[i].text);
		CHECK(strstr(err, bad[i].expect), "for '%s': message '%s' lacks '%s'",
		      bad[i].text, err, bad[i].expect);
		CHECK(strncmp(err, "line ", 5) == 0, "message does not name the line: %s", err);
		CHECK(is_default(&p), "malformed '%s' did not leave the defaults", bad[i].text);
	}
	return 0;
}

TEST(t_long_line, "helper.H7.policy_overlong_line_refused")
{
	char *text = malloc(3000);
	struct policy p;
	char err[300] = "";
	int rc;

	CHECK(text, "malloc");
	memset(text, '#', 2999);
	text[2999] = '\0';
	rc = policy_parse(&p, text, &names, err, sizeof(err));
	free(text);
	CHECK(rc == -1 && strstr(err, "longer than"), "2999-char line accepted: %s", err);
	return 0;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, mode);
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, mode)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

TEST(t_load_missing, "helper.H7.policy_missing_file_is_defaults")
{
	struct policy p;
	char err[300] = "";

	CHECK(policy_load(&p, "/nonexistent/extown.conf", &names, err, sizeof(err)) == 1,
	      "missing file not reported as absent: %s", err);
	CHECK(is_default(&p), "missing file not the defaults");
	return 0;
}

TEST(t_load_file, "helper.H7.policy_load_trusts_only_root_files")
{
	char dir[] = "/tmp/extown-policy-XXXXXX", path[64];
	struct policy p;
	char err[300] = "";
	int rc;

	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof(path), "%s/extown.conf", dir);
	CHECK(write_file(path, "enabled = no\n", 0644) == 0, "write");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	if (geteuid() == 0) {
		CHECK(rc == 0 && !p.enabled, "root-owned 0644 file not read (rc %d): %s", rc, err);
		CHECK(chmod(path, 0666) == 0, "chmod");
		rc = policy_load(&p, path, &names, err, sizeof(err));
		CHECK(rc == -1 && strstr(err, "not trusted") && is_closed(&p),
		      "world-writable file trusted (rc %d)", rc);
	} else {
		CHECK(rc == -1 && strstr(err, "not trusted") && is_closed(&p),
		      "file not owned by root trusted (rc %d)", rc);
	}
	CHECK(write_file(path, "enabled = no\nbogus\n", 0644) == 0, "write");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p), "malformed file did not fail closed (rc %d)", rc);
	unlink(path);
	rmdir(dir);
	return 0;
}

/*
 * Issue 10 defect 2 / H10: read as root, symlinks followed to trusted files
 * only, every error fails closed, a BOM is no error.
 */
static int load_cases(const char *dir, char *why)
{
	char path[96], target[96], sub[96];
	struct policy p;
	char err[300] = "";
	int rc;

	snprintf(path, sizeof(path), "%s/extown.conf", dir);
	snprintf(target, sizeof(target), "%s/real.conf", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CHECK(write_file(target, "\xef\xbb\xbf" "enabled = no\n", 0600) == 0, "write");
	CHECK(symlink("real.conf", path) == 0, "symlink");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == 0 && !p.enabled && !p.broken,
	      "root's 0600 file with a BOM behind a symlink not read (rc %d): %s", rc, err);
	CHECK(chown(target, 1000, 1000) == 0, "chown");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p) && strstr(err, "not trusted"),
	      "symlink to a user's file trusted (rc %d): %s", rc, err);
	CHECK(unlink(target) == 0, "unlink");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p), "dangling symlink read as no file (rc %d)", rc);
	CHECK(unlink(path) == 0 && mkdir(sub, 0755) == 0 && chown(sub, 1000, 1000) == 0,
	      "setup");
	snprintf(path, sizeof(path), "%s/sub/extown.conf", dir);
	CHECK(write_file(path, "enabled = yes\n", 0644) == 0, "write");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p) && strstr(err, "/sub"),
	      "root's file in a user's directory trusted (rc %d): %s", rc, err);
	CHECK(unlink(path) == 0 && rmdir(sub) == 0, "cleanup");
	snprintf(path, sizeof(path), "%s/extown.conf", dir);
	CHECK(mkdir(path, 0755) == 0, "setup");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p), "a directory read as a policy (rc %d)", rc);
	rmdir(path);
	CHECK(write_file(path, "allow-group = no-such-group\n", 0644) == 0, "write");
	rc = policy_load(&p, path, &names, err, sizeof(err));
	CHECK(rc == -1 && is_closed(&p), "unresolvable group did not fail closed (rc %d)", rc);
	unlink(path);
	return 0;
}

TEST(t_load_fails_closed, "helper.H10.policy_load_fails_closed")
{
	char dir[] = "/tmp/extown-policy-XXXXXX";
	int rc;

	if (geteuid() != 0) {
		snprintf(why, WHY_LEN, "needs root (file owners)");
		return TAP_SKIP;
	}
	CHECK(mkdtemp(dir), "mkdtemp");
	rc = load_cases(dir, why);
	rmdir(dir);
	return rc;
}

int main(int argc, char *argv[])
{
	return tap_main(argc, argv);
}
