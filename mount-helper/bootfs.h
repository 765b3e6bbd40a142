/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is a block device one the system boots with (H9)? The helper never gives
 * such a filesystem an owner: a root on a USB disk or an SD card is tagged
 * removable by bus, and systemd remounts it at boot.
 */
#ifndef EXTOWN_BOOTFS_H
#define EXTOWN_BOOTFS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * True when block device RDEV holds ROOT_DIR ("/"), or is the source of an
 * entry of FSTAB_PATH without "noauto" (mounted at boot).
 */
bool bootfs_holds(dev_t rdev, const char *root_dir, const char *fstab_path);

#endif
