// SPDX-License-Identifier: GPL-2.0
/*
 * extown-dkms: a version of its own for the rebuilt module, so that DKMS
 * installs it over the in-tree module (which has none) and modinfo and
 * /sys/module/NAME/version tell the two apart. extown-build puts the
 * package version in place of the placeholder.
 */
#include <linux/module.h>

MODULE_VERSION("@VERSION@-extown");
