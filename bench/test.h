/* SPDX-License-Identifier: GPL-2.0 */
/* burstbench's host unit tests (make check-bench): TAP from lib/tap.c. */
#ifndef BURSTBENCH_TEST_H
#define BURSTBENCH_TEST_H

#include "../lib/tap.h"

void test_stats(void);
void test_args(void);
void test_cgroup(void);
/* Runs the burstbench binary at bin. */
void test_cli(const char *bin);

#endif
