/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup and sysctl helpers for the in-guest suites. */
#ifndef BURSTCFS_CG_H
#define BURSTCFS_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CG2_ROOT "/sys/fs/cgroup"

/* Which semantics the kernel under test must show (harness: burstcfs.expect=). */
bool expect_patched(void);

/* All return 0 or -errno; a file is relative to the cgroup directory. */
int cg_write(const char *cg, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cg_read(const char *cg, const char *file, char *buf, size_t len);
int cg_create(const char *cg);
/* Move every task back to the root, then remove the (leaf) cgroup. */
int cg_destroy(const char *cg, const char *root);
/* A "key value" line of a flat-keyed file such as cpu.stat; -1 when absent. */
long long cg_key(const char *cg, const char *file, const char *key);
/* The first integer of a file; LLONG_MIN when it cannot be read. */
long long cg_num(const char *cg, const char *file);

int sysctl_write(const char *name, const char *value);
long long sysctl_num(const char *name);

/* Fork @procs busy-loop processes into @cg (via @procs_file); 0 or -errno. */
int hog_start(const char *cg, const char *procs_file, int procs);
void hog_stop(void);

long long now_usec(void);
void sleep_usec(long long usec);

#endif
