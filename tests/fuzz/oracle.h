/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Properties the fuzz targets check on top of "no crash, no sanitizer
 * report": what the kernel and libmount will make of an option string the
 * helper produced. A violated property aborts (libFuzzer reports it as a
 * crash and saves the input).
 */
#ifndef EXTOWN_FUZZ_ORACLE_H
#define EXTOWN_FUZZ_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <libmount.h>

#define FUZZ_UID 1000u
#define FUZZ_GID 1000u
#define FUZZ_GROUP2 100u

static inline void fuzz_violation(const char *what, const char *opts)
{
	fprintf(stderr, "extown fuzz property violated: %s: [%s]\n", what,
		opts ? opts : "(null)");
	abort();
}

/*
 * Is TOKEN (LEN bytes) one of the comma-separated tokens of LIST, compared
 * the way the 6.1 kernel splits mount data (strsep on ",", quotes mean
 * nothing there)?
 */
static inline bool kernel_token_in(const char *list, const char *tok, size_t len)
{
	const char *p = list, *e;

	if (!list)
		return false;
	for (;;) {
		e = strchr(p, ',');
		if ((size_t)((e ? e : p + strlen(p)) - p) == len && !memcmp(p, tok, len))
			return true;
		if (!e)
			return false;
		p = e + 1;
	}
}

/* every ":"-separated decimal part of VAL (LEN bytes) equals ID */
static inline bool all_ids_are(const char *val, size_t len, unsigned long id,
			       unsigned long id2)
{
	size_t i = 0;

	if (len == 0)
		return false;
	while (i < len) {
		unsigned long v = 0;
		size_t start = i;

		while (i < len && val[i] >= '0' && val[i] <= '9' && v < 100000000ul)
			v = v * 10 + (unsigned long)(val[i++] - '0');
		if (i == start || (v != id && v != id2))
			return false;
		if (i < len && val[i] != ':')
			return false;
		if (i < len)
			i++;
		if (i == len && val[len - 1] == ':')
			return false;
	}
	return true;
}

/*
 * The H4 property as the kernel sees OPTS: every uid=/gid= token the 6.1
 * kernel would parse is the caller's own id, or written verbatim in the
 * fstab entry's options GRANTED.
 */
static inline void check_kernel_ids(const char *opts, const char *granted)
{
	const char *p = opts, *e;

	if (!opts)
		return;
	for (;;) {
		size_t len;

		e = strchr(p, ',');
		len = (size_t)((e ? e : p + strlen(p)) - p);
		if (len > 4 && !memcmp(p, "uid=", 4) &&
		    !all_ids_are(p + 4, len - 4, FUZZ_UID, FUZZ_UID) &&
		    !kernel_token_in(granted, p, len))
			fuzz_violation("kernel would see a uid= that is not the caller's", opts);
		if (len > 4 && !memcmp(p, "gid=", 4) &&
		    !all_ids_are(p + 4, len - 4, FUZZ_GID, FUZZ_GROUP2) &&
		    !kernel_token_in(granted, p, len))
			fuzz_violation("kernel would see a gid= that is not the caller's", opts);
		if (!e)
			return;
		p = e + 1;
	}
}

/*
 * nosuid and nodev, by the linked libmount's own reading of the final
 * string OPTS: each present as an option of its own (no value), and the
 * mount flags libmount derives from OPTS include MS_NOSUID and MS_NODEV (no
 * later suid or dev undoes them). Nothing of the helper's is asked: an
 * option the helper appended but libmount reads into the one before it
 * (an unpaired '"'; "x\,nosuid" for libmount 2.40+) is a violation.
 */
static inline void check_nosuid_nodev(const char *opts)
{
	static const char *const names[] = { "nosuid", "nodev" };
	unsigned long flags = 0;
	char *val;
	size_t valsz;

	if (mnt_optstr_get_flags(opts, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)))
		return;	/* libmount refuses the string: nothing gets mounted */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int rc = mnt_optstr_get_option(opts, names[i], &val, &valsz);

		if (rc < 0)
			return;	/* libmount cannot read it: nothing gets mounted */
		/* "nosuid=X" / "nodev=X" (present for opts_has(), so not added
		 * again): libmount passes them to the kernel as file-system
		 * data, where ext2 and ext4 refuse the unknown parameter: the
		 * mount fails (EINVAL) */
		if (rc == 0 && val && valsz)
			return;
		if (rc != 0)
			fuzz_violation(i ? "owner added but libmount reads no nodev option"
					 : "owner added but libmount reads no nosuid option", opts);
	}
	if (!(flags & MS_NOSUID))
		fuzz_violation("owner added but libmount would mount without nosuid", opts);
	if (!(flags & MS_NODEV))
		fuzz_violation("owner added but libmount would mount without nodev", opts);
}

/*
 * H8: a user's final option string holds nothing but the fstab entry's own
 * options, rw/ro, the implied noexec,nosuid,nodev, user=alice and the
 * caller's own uid=/gid= (tokens split as the kernel splits them).
 */
static inline void check_user_tokens(const char *opts, const char *granted)
{
	static const char *const own[] = {
		"rw", "ro", "noexec", "nosuid", "nodev", "user=alice", "uid=1000", "gid=1000",
	};
	const char *p = opts, *e;

	for (; p && *p; p = e ? e + 1 : p + strlen(p)) {
		size_t len;
		bool ok;

		e = strchr(p, ',');
		len = (size_t)((e ? e : p + strlen(p)) - p);
		ok = len == 0 || kernel_token_in(granted, p, len);
		for (size_t i = 0; !ok && i < sizeof(own) / sizeof(own[0]); i++)
			ok = strlen(own[i]) == len && !memcmp(own[i], p, len);
		if (!ok)
			fuzz_violation("a user's mount carries an option neither fstab nor "
				       "mount(8) gave", opts);
		if (!e)
			break;
	}
}

/* A NUL-terminated copy of the fuzz input. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
