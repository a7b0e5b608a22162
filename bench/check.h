/* SPDX-License-Identifier: GPL-2.0 */
/* A small TAP producer for burstbench's host unit tests. */
#ifndef BURSTBENCH_CHECK_H
#define BURSTBENCH_CHECK_H

#include <stdbool.h>

/* Report one check as "ok N - ..." or "not ok N - ..."; returns cond. */
bool check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "# ..." line, e.g. what a failed check got. */
void check_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void test_stats(void);
void test_args(void);
void test_cgroup(void);
/* Runs the burstbench binary at bin. */
void test_cli(const char *bin);

#endif
