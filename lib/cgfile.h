/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading one small kernel file (cgroup, proc, sysfs) whole, shared by the
 * guest suites (tests/kernel), burstbench and costbench (bench/) and
 * burstctl (tools/burstctl/); lib/cgroup.h parses what it reads.
 */
#ifndef CGFILE_H
#define CGFILE_H

#include <stddef.h>

/*
 * The text of DIR/FILE, NUL-terminated in BUF of LEN bytes (one read(2):
 * kernfs and procfs hand small files over whole). 0, or -errno;
 * -ENAMETOOLONG when DIR/FILE does not fit in PATH_MAX.
 */
int cgfile_read(const char *dir, const char *file, char *buf, size_t len);

#endif
