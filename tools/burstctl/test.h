/* SPDX-License-Identifier: GPL-2.0 */
/* burstctl's host unit tests (make check-burstctl): TAP from lib/tap.c. */
#ifndef BURSTCTL_TEST_H
#define BURSTCTL_TEST_H

#include "../../lib/tap.h"

void test_values(void);
void test_trace(void);
void test_advise(void);
void test_target(const char *tmp);
/* Runs the burstctl binary at bin; tmp is a scratch directory. */
void test_cli(const char *bin, const char *tmp);
/* burstctl check on made-up nodes, then the binary on them. */
void test_check(const char *bin, const char *tmp);

/* Write text to dir/name (creating dir's parents is the caller's job). */
void write_file(const char *dir, const char *name, const char *text);

#endif
