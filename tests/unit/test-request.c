// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of request.c (argv parsing, H1), restricted.c (H4 id checks,
 * a user's options, H3, H8) and optstr.c.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <libmount.h>

#include "optstr.h"
#include "request.h"
#include "restricted.h"
#include "tap.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

TEST(t_parse_mount8_argv, "helper.H1.parse_mount8_helper_argv")
{
	char *argv[] = { "/sbin/mount.ext4", "/dev/sdb1", "/media/stick", "-s", "-f",
			 "-n", "-v", "-o", "rw,nosuid,nodev,user", "-N", "/proc/1/fd/5" };
	struct request rq;
	char err[200];

	CHECK(request_parse(&rq, ARGC(argv), argv, err, sizeof(err)) == 0, "parse: %s", err);
	CHECK(strcmp(rq.source, "/dev/sdb1") == 0, "source '%s'", rq.source);
	CHECK(strcmp(rq.target, "/media/stick") == 0, "target '%s'", rq.target);
	CHECK(rq.sloppy && rq.fake && rq.nomtab && rq.verbose, "flags -s -f -n -v not all set");
	CHECK(rq.options && strcmp(rq.options, "rw,nosuid,nodev,user") == 0, "options '%s'",
	      rq.options ? rq.options : "(null)");
	CHECK(rq.ns && strcmp(rq.ns, "/proc/1/fd/5") == 0, "namespace not parsed");
	CHECK(strcmp(rq.fstype, "ext4") == 0, "fstype '%s'", rq.fstype);
	return 0;
}

TEST(t_parse_grouped_and_attached, "helper.H1.parse_grouped_and_attached_flags")
{
	char *argv[] = { "mount.ext3", "-fnv", "/dev/sdb1", "-ouid=1000", "/mnt", "-r" };
	struct request rq;
	char err[200];

	CHECK(request_parse(&rq, ARGC(argv), argv, err, sizeof(err)) == 0, "parse: %s", err);
	CHECK(rq.fake && rq.nomtab && rq.verbose && rq.rdonly, "grouped flags lost");
	CHECK(strcmp(rq.options, "uid=1000") == 0, "attached -o value '%s'", rq.options);
	CHECK(strcmp(rq.source, "/dev/sdb1") == 0 && strcmp(rq.target, "/mnt") == 0,
	      "positional arguments mixed with options");
	CHECK(strcmp(rq.fstype, "ext3") == 0, "fstype from mount.ext3 is '%s'", rq.fstype);
	return 0;
}

TEST(t_parse_subtype, "helper.H1.parse_type_with_subtype")
{
	char *ok[] = { "mount.ext4", "/dev/sdb1", "/mnt", "-t", "ext2.sub" };
	char *bad[] = { "mount.ext4", "/dev/sdb1", "/mnt", "-t", "vfat" };
	struct request rq;
	char err[200];

	CHECK(request_parse(&rq, ARGC(ok), ok, err, sizeof(err)) == 0, "parse: %s", err);
	CHECK(strcmp(rq.fstype, "ext2") == 0, "-t ext2.sub gave '%s'", rq.fstype);
	CHECK(request_parse(&rq, ARGC(bad), bad, err, sizeof(err)) == -1, "-t vfat accepted");
	return 0;
}

TEST(t_progname_only_known_names, "helper.H1.progname_only_known_names")
{
	CHECK(strcmp(request_progname("/sbin/mount.ext2"), "mount.ext2") == 0, "mount.ext2");
	CHECK(strcmp(request_progname("mount.ext3"), "mount.ext3") == 0, "mount.ext3");
	CHECK(strcmp(request_progname("/tmp/x/\033[2Jevil"), "mount.ext4") == 0,
	      "an unknown argv[0] is believed");
	CHECK(strcmp(request_progname(NULL), "mount.ext4") == 0, "NULL argv[0]");
	return 0;
}

TEST(t_usage_errors, "helper.H1.usage_errors_refused")
{
	char *one[] = { "mount.ext4", "/dev/sdb1" };
	char *three[] = { "mount.ext4", "/dev/sdb1", "/mnt", "/extra" };
	char *noarg[] = { "mount.ext4", "/dev/sdb1", "/mnt", "-o" };
	struct request rq;
	char err[200];

	CHECK(request_parse(&rq, ARGC(one), one, err, sizeof(err)) == -1, "missing DIR accepted");
	CHECK(request_parse(&rq, ARGC(three), three, err, sizeof(err)) == -1, "third path accepted");
	CHECK(request_parse(&rq, ARGC(noarg), noarg, err, sizeof(err)) == -1, "-o without value accepted");
	return 0;
}

/* Issue 10 defect 11: a flag a later libmount may pass breaks no mount */
TEST(t_unknown_flags_ignored, "helper.H1.unknown_flags_ignored")
{
	char *argv[] = { "mount.ext4", "/dev/sdb1", "/mnt", "-x", "-vZ", "--future", "-o", "ro" };
	struct request rq;
	char err[200] = "";

	CHECK(request_parse(&rq, ARGC(argv), argv, err, sizeof(err)) == 0,
	      "unknown flags refused: %s", err);
	CHECK(rq.nunknown == 3 && strcmp(rq.unknown[0], "-x") == 0 &&
	      strcmp(rq.unknown[1], "-vZ") == 0 && strcmp(rq.unknown[2], "--future") == 0,
	      "unknown flags not listed (%zu)", rq.nunknown);
	CHECK(rq.verbose && rq.options && strcmp(rq.options, "ro") == 0,
	      "known flags lost around unknown ones");
	return 0;
}

/* Issue 10 defect 1 / H8: users add nothing mount(8) would not pass */
TEST(t_user_argv_checked, "helper.H8.user_argv_options_only_as_mount8")
{
	/* mount(8) 2.38's order, then 2.41's (the implied options after the
	 * grant) */
	static const char *const ok[] = {
		"rw,noexec,nosuid,nodev,user", "ro,noexec,nosuid,nodev,user",
		"rw,users,exec,suid,dev", "user=alice",
		"rw,user,noexec,nosuid,nodev", "ro,user,noexec,nosuid,nodev",
	};
	static const char *const bad[] = {
		"uid=1000", "gid=1000", "noatime", "exec", "dev", "suid", "user=bob",
		"errors=continue", "rw,user,uid=1000,gid=1000", "loop", "remount",
	};
	char err[300] = "";

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		CHECK(opts_check_user_argv(ok[i], i == 2 ? "users,exec,suid,dev,noauto" :
					   "user,noauto", "alice", err, sizeof(err)) == 0,
		      "'%s' refused: %s", ok[i] ? ok[i] : "(none)", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(opts_check_user_argv(bad[i], "user,noauto", "alice", err, sizeof(err)) == -1,
		      "'%s' accepted for a user,noauto entry", bad[i]);
		CHECK(strstr(err, "refused"), "message unclear: %s", err);
	}
	CHECK(opts_check_user_argv("user,uid=1234,gid=1234", "user,uid=1234,gid=1234", "alice",
				   err, sizeof(err)) == 0, "ids written in fstab refused: %s", err);
	CHECK(opts_check_user_argv("user", "users", "alice", err, sizeof(err)) == -1,
	      "user accepted for a users entry");
	CHECK(opts_check_user_argv("rw,users,nosuid,nodev,exec", "users,exec,noauto", "alice",
				   err, sizeof(err)) == 0, "mount(8) 2.41's users,exec refused: %s", err);
	/* what mount(8) passes only when it refuses the request itself */
	CHECK(opts_check_user_argv(NULL, "user,noauto", "alice", err, sizeof(err)) == -1,
	      "no options (mount(8) refused: both source and target given) accepted");
	CHECK(opts_check_user_argv("rw", "user,noauto", "alice", err, sizeof(err)) == -1,
	      "rw without user accepted");
	CHECK(opts_check_user_argv("rw,noexec,nosuid,nodev,user", "user,noauto,ro", "alice",
				   err, sizeof(err)) == -1, "-w on an ro entry accepted");
	CHECK(opts_check_user_argv("ro,noexec,nosuid,nodev,user", "user,noauto,ro", "alice",
				   err, sizeof(err)) == 0, "plain mount of an ro entry refused: %s", err);
	/* owner and group entries: mount(8) passes "user" */
	CHECK(opts_check_user_argv("rw,nosuid,nodev,user", "owner,noauto", "alice",
				   err, sizeof(err)) == 0, "owner entry refused: %s", err);
	CHECK(opts_check_user_argv("rw,nosuid,nodev,user", "group,noauto", "alice",
				   err, sizeof(err)) == 0, "group entry refused: %s", err);
	CHECK(opts_check_user_argv("rw,nosuid,nodev,exec,user", "owner,noauto", "alice",
				   err, sizeof(err)) == 0, "owner entry with exec refused: %s", err);
	CHECK(opts_check_user_argv("rw,noexec,nosuid,nodev,exec,user", "user,noauto", "alice",
				   err, sizeof(err)) == -1, "exec accepted for a user entry");
	return 0;
}

TEST(t_passthrough_and_loop_opts, "helper.H9.passthrough_and_loop_options")
{
	char *o = strdup("rw,loop,offset=4096,sizelimit=8192,encryption=x,nosuid,loop");

	CHECK(opts_passthrough("ro,remount") && strcmp(opts_passthrough("ro,remount"), "remount") == 0,
	      "remount not seen");
	CHECK(opts_passthrough("rbind") && opts_passthrough("rslave"), "rbind/rslave not seen");
	CHECK(!opts_passthrough("rw,noexec") && !opts_passthrough(NULL), "plain options seen");
	CHECK(o && opts_drop_loop(&o) == 0 && strcmp(o, "rw,nosuid") == 0,
	      "loop options left: '%s'", o);
	free(o);
	return 0;
}

TEST(t_drop_x_mount, "helper.H8.x_mount_options_dropped_for_users")
{
	char *o = strdup("rw,X-mount.mkdir=0700,user=alice,x-mount.mkdir,X-mount.subdir=a,"
			 "X-mount.idmap=\"b:0:1000:1\",X-mount.owner=0,X-mount.group=0,"
			 "X-mount.mode=4777,X-mount.auto-fstypes=ext4,X-mount.noloop,"
			 "X-mount.nocanonicalize,X-mount.future=1,x-gvfs-show,X-mount.mkdir,"
			 "X-mountx=1,nosuid");

	CHECK(o && opts_drop_x_mount(&o) == 12, "not 12 dropped: '%s'", o);
	CHECK(o && strcmp(o, "rw,user=alice,x-gvfs-show,X-mountx=1,nosuid") == 0,
	      "left: '%s'", o);
	free(o);
	o = strdup("rw,nosuid");
	CHECK(o && opts_drop_x_mount(&o) == 0 && strcmp(o, "rw,nosuid") == 0, "changed: '%s'", o);
	free(o);
	return 0;
}

static const gid_t gids_1000[] = { 1000, 24 };

TEST(t_h4_uid0_refused, "helper.H4.user_cannot_request_uid0")
{
	char err[300] = "";

	CHECK(opts_check_ids("rw,uid=0", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "uid=0 accepted for uid 1000");
	CHECK(strstr(err, "uid=0") && strstr(err, "refused"), "message unclear: %s", err);
	return 0;
}

TEST(t_h4_other_gid_refused, "helper.H4.user_cannot_request_other_gid")
{
	char err[300];

	CHECK(opts_check_ids("gid=0", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "gid=0 accepted for a user not in group 0");
	CHECK(opts_check_ids("gid=1001", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "gid=1001 accepted");
	return 0;
}

TEST(t_h4_own_ids_allowed, "helper.H4.user_may_request_own_ids")
{
	char err[300] = "";

	CHECK(opts_check_ids("uid=1000,gid=1000", NULL, 1000, gids_1000, 2, err, sizeof(err)) == 0,
	      "own ids refused: %s", err);
	CHECK(opts_check_ids("gid=24", NULL, 1000, gids_1000, 2, err, sizeof(err)) == 0,
	      "supplementary group refused: %s", err);
	CHECK(opts_check_ids("uid=1000:1000,gid=1000:24", NULL, 1000, gids_1000, 2, err,
			     sizeof(err)) == 0, "own N:M refused: %s", err);
	CHECK(opts_check_ids("rw,nosuid", NULL, 1000, gids_1000, 2, err, sizeof(err)) == 0,
	      "options without ids refused: %s", err);
	CHECK(opts_check_ids(NULL, NULL, 1000, gids_1000, 2, err, sizeof(err)) == 0,
	      "no options refused: %s", err);
	return 0;
}

TEST(t_h4_every_occurrence_checked, "helper.H4.every_uid_occurrence_checked")
{
	char err[300];

	CHECK(opts_check_ids("uid=1000,rw,uid=0", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "a second uid=0 after an own uid= slipped through");
	CHECK(opts_check_ids("gid=1000,gid=0", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "a second gid=0 slipped through");
	return 0;
}

TEST(t_h4_pair_checked, "helper.H4.uid_pair_both_parts_checked")
{
	char err[300];

	CHECK(opts_check_ids("uid=1000:0", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "uid=1000:0 (write root to disk) accepted");
	CHECK(opts_check_ids("uid=0:1000", NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "uid=0:1000 accepted");
	return 0;
}

TEST(t_h4_malformed_refused, "helper.H4.malformed_ids_refused")
{
	static const char *const bad[] = {
		"uid", "uid=", "uid=abc", "uid=-1", "uid=1000:", "uid=:1000",
		"uid=1000:1000:1000", "uid=4294967295", "uid=0x3e8", "uid=+1000",
		"uid=99999999999", "gid=1000 ",
	};
	char err[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(opts_check_ids(bad[i], NULL, 1000, gids_1000, 2, err, sizeof(err)) == -1,
		      "'%s' accepted", bad[i]);
	return 0;
}

TEST(t_h4_fstab_granted_id, "helper.H4.id_written_in_fstab_allowed")
{
	char err[300] = "";

	CHECK(opts_check_ids("rw,uid=0,user", "user,uid=0,noauto", 1000, gids_1000, 2, err,
			     sizeof(err)) == 0, "uid=0 written in fstab refused: %s", err);
	CHECK(opts_check_ids("uid=0", "user,uid=5", 1000, gids_1000, 2, err, sizeof(err)) == -1,
	      "uid=0 accepted when fstab grants uid=5");
	return 0;
}

TEST(t_user_options_from_fstab, "helper.H3.user_mount_options_from_fstab")
{
	struct notes warn = { 0 };
	char *out = NULL;

	/* what mount(8) 2.38 passes for "user,noauto" (seen on Debian 12) */
	CHECK(opts_for_user_mount("user,noauto", "rw,noexec,nosuid,nodev,user", false,
				  "alice", &out, &warn) == 0, "failed");
	CHECK(count_opt(out, "user=alice") == 1, "no user=alice in '%s'", out);
	CHECK(count_opt(out, "noexec") == 1 && count_opt(out, "nosuid") == 1 &&
	      count_opt(out, "nodev") == 1, "implied noexec,nosuid,nodev not once each: '%s'", out);
	CHECK(count_opt(out, "exec") == 0 && count_opt(out, "suid") == 0 && count_opt(out, "dev") == 0,
	      "positive exec/suid/dev in '%s'", out);
	CHECK(warn.n == 0, "spurious warning: %s", warn.line[0]);
	free(out);
	/* mount(8) 2.41's order for the same entry (seen on Debian 13) */
	out = NULL;
	CHECK(opts_for_user_mount("user,noauto", "rw,user,noexec,nosuid,nodev", false,
				  "alice", &out, &warn) == 0, "2.41's order failed");
	CHECK(count_opt(out, "user=alice") == 1 && count_opt(out, "noexec") == 1 &&
	      count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1 &&
	      count_opt(out, "exec") == 0, "2.41's order gave '%s'", out);
	CHECK(warn.n == 0, "spurious warning: %s", warn.line[0]);
	free(out);
	return 0;
}

/* owner/group: nosuid,nodev implied (no noexec), user=NAME recorded */
TEST(t_owner_group_options, "helper.H8.owner_group_entries_as_mount8")
{
	struct notes warn = { 0 };
	char *out = NULL;

	CHECK(opts_for_user_mount("owner,noauto", "rw,nosuid,nodev,user", false, "alice",
				  &out, &warn) == 0, "failed");
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1,
	      "nosuid,nodev not implied: '%s'", out);
	CHECK(count_opt(out, "noexec") == 0, "noexec added to an owner entry: '%s'", out);
	CHECK(count_opt(out, "user=alice") == 1, "no user=alice for utab: '%s'", out);
	free(out);
	return 0;
}

TEST(t_user_later_exec_wins, "helper.H3.user_mount_later_exec_wins")
{
	struct notes warn = { 0 };
	char *out = NULL;

	CHECK(opts_for_user_mount("users,exec,noauto", "rw,nosuid,nodev,users,exec", false,
				  "alice", &out, &warn) == 0, "failed");
	CHECK(count_opt(out, "exec") == 1 && count_opt(out, "noexec") == 0,
	      "fstab's exec after users lost: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1,
	      "nosuid,nodev missing: '%s'", out);
	CHECK(count_opt(out, "users") == 1, "users lost: '%s'", out);
	free(out);
	return 0;
}

TEST(t_user_cannot_loosen, "helper.H3.user_cannot_loosen_fstab_options")
{
	struct notes warn = { 0 };
	char *out = NULL;

	CHECK(opts_for_user_mount("user", "suid,dev,exec,errors=continue,resuid=1000", false,
				  "alice", &out, &warn) == 0, "failed");
	CHECK(count_opt(out, "suid") == 0 && count_opt(out, "dev") == 0 && count_opt(out, "exec") == 0,
	      "command line loosened the fstab entry: '%s'", out);
	CHECK(count_opt(out, "nosuid") == 1 && count_opt(out, "nodev") == 1 && count_opt(out, "noexec") == 1,
	      "implied restrictions lost: '%s'", out);
	CHECK(!strstr(out, "errors=") && !strstr(out, "resuid"), "ungranted option kept: '%s'", out);
	CHECK(warn.n == 5, "expected 5 'ignored' warnings, got %zu", warn.n);
	free(out);
	return 0;
}

TEST(t_user_may_restrict, "helper.H3.user_may_restrict_options")
{
	struct notes warn = { 0 };
	char *out = NULL;

	CHECK(opts_for_user_mount("user,rw", "noatime,uid=1000", true, "alice", &out, &warn) == 0,
	      "failed");
	CHECK(count_opt(out, "ro") == 1 && count_opt(out, "rw") == 0, "-r not applied: '%s'", out);
	CHECK(count_opt(out, "noatime") == 1, "noatime dropped: '%s'", out);
	CHECK(count_opt(out, "uid=1000") == 1, "checked own uid= dropped: '%s'", out);
	free(out);
	return 0;
}

TEST(t_resolve_implied_root, "helper.H3.user_implied_options_resolved")
{
	char *o = strdup("dev,user,suid");

	CHECK(o && opts_resolve_user_implied(&o) == 0, "failed");
	CHECK(count_opt(o, "suid") == 1 && count_opt(o, "nosuid") == 0, "later suid lost: '%s'", o);
	CHECK(count_opt(o, "nodev") == 1 && count_opt(o, "dev") == 0, "earlier dev kept: '%s'", o);
	CHECK(count_opt(o, "noexec") == 1, "noexec not implied: '%s'", o);
	free(o);
	o = strdup("rw,noatime");
	CHECK(o && opts_resolve_user_implied(&o) == 0 && strcmp(o, "rw,noatime") == 0,
	      "options without user changed: '%s'", o);
	free(o);
	return 0;
}

TEST(t_quotes_balanced, "helper.H3.unbalanced_quotes_detected")
{
	char *o;

	CHECK(opts_appendable("rw,nosuid"), "no quotes called unbalanced");
	CHECK(opts_appendable(NULL), "NULL called unbalanced");
	CHECK(opts_appendable(""), "an empty string called unbalanced");
	CHECK(opts_appendable("context=\"a,b\",rw"), "a quoted value called unbalanced");
	CHECK(!opts_appendable("rw,a\"b,nosuid,nodev"), "one quote accepted");
	CHECK(!opts_appendable("x=\"a\",y=\"b,uid=1000"), "third quote accepted");
	o = strdup("rw,a\"b");
	CHECK(o && opts_append(&o, "nosuid", NULL) == -1, "nosuid appended into a quote: '%s'", o);
	CHECK(strcmp(o, "rw,a\"b") == 0, "a refused append changed the options: '%s'", o);
	free(o);
	return 0;
}

/* does the linked libmount read "a\,b" as one option (2.40 and later)? */
static bool libmount_escapes_commas(void)
{
	char *val;
	size_t valsz;

	return mnt_optstr_get_option("a\\,b", "b", &val, &valsz) == 1;
}

TEST(t_backslash_per_libmount, "helper.H3.trailing_backslash_as_libmount_reads_it")
{
	const char *ver = NULL;
	bool escapes = libmount_escapes_commas();
	char *o, *val;
	size_t valsz;
	int rc;

	mnt_get_library_version(&ver);
	/* the fact the helper has to live with: 2.38 splits at every ',',
	 * 2.40+ reads a ',' after a backslash as part of the option */
	CHECK(escapes == (mnt_parse_version_string(ver) >= 2400),
	      "libmount %s %s \\, as an escaped comma", ver, escapes ? "reads" : "does not read");
	CHECK(opts_appendable("rw,x\\") == !escapes,
	      "libmount %s: 'rw,x\\' called %sappendable", ver, escapes ? "" : "not ");
	CHECK(opts_appendable("rw,x\\y"), "a backslash inside an option refused");
	o = strdup("rw,x\\");
	rc = o ? opts_append(&o, "nosuid", NULL) : -2;
	if (escapes) {
		CHECK(rc == -1, "libmount %s: nosuid appended after a backslash: '%s'", ver, o);
		CHECK(strcmp(o, "rw,x\\") == 0, "a refused append changed the options: '%s'", o);
	} else {
		CHECK(rc == 0 && mnt_optstr_get_option(o, "nosuid", &val, &valsz) == 0 && !valsz,
		      "libmount %s: nosuid not appended after x\\: '%s'", ver, o);
	}
	free(o);
	o = strdup("rw,user");
	CHECK(o && opts_set(&o, "user", "alice") == 0 && strcmp(o, "rw,user=alice") == 0,
	      "user=alice not set: '%s'", o);
	free(o);
	return 0;
}

TEST(t_last_id, "helper.H6.last_uid_gid_read")
{
	uint32_t id = 7;

	CHECK(opts_last_id("rw,uid=1000,nosuid", "uid", &id) == 1 && id == 1000,
	      "uid=1000: %u", id);
	CHECK(opts_last_id("uid=5,gid=6,uid=1000:2000", "uid", &id) == 1 && id == 1000,
	      "last of uid=5 and uid=1000:2000: %u", id);
	CHECK(opts_last_id("uid=5,gid=6,uid=1000:2000", "gid", &id) == 1 && id == 6,
	      "gid=6: %u", id);
	id = 7;
	CHECK(opts_last_id("rw,nosuid", "uid", &id) == 0 && id == 7, "absent uid= found");
	CHECK(opts_last_id("uid=alice", "uid", &id) == -1, "uid=alice accepted");
	CHECK(opts_last_id("uid", "uid", &id) == -1, "uid without a value accepted");
	CHECK(opts_last_id("uid=4294967295", "uid", &id) == -1, "uid=(uid_t)-1 accepted");
	CHECK(opts_last_id(NULL, "uid", &id) == 0, "NULL options");
	return 0;
}

int main(int argc, char *argv[])
{
	return tap_main(argc, argv);
}
