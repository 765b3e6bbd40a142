// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * preload.so for tests/privilege: when loaded (LD_PRELOAD), records the
 * effective uid it ran with as /tmp/preload-ran-EUID. The guest fails the
 * test if it ever ran with euid 0 inside mount(8) or the setuid helper.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void record_euid(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/preload-ran-%u", (unsigned int)geteuid());
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
}
