/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP 13 producer, shared by the in-guest suites (tests/kernel),
 * the model's tests (model/test-*.c) and burstctl's and burstbench's host
 * unit tests.
 */
#ifndef BURSTCFS_TAP_H
#define BURSTCFS_TAP_H

#include <stdbool.h>

void tap_plan(int count);
/* Report one test; returns cond so callers can chain on failure. */
bool tap_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Abort the whole suite: the harness sees the missing results. */
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int tap_failed(void);
/* How many tests were reported so far. */
int tap_count(void);
/*
 * A test group stops early: record why. The driver then reports the checks
 * the group did not reach as failed, with this reason, so the plan holds.
 */
void tap_abandon(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The reason recorded since the last call, or NULL; clears it. */
const char *tap_abandoned(void);
/*
 * @s with newlines, tabs and other control characters escaped, so that a
 * description quoting it stays one TAP line; valid until four more calls.
 */
const char *tap_escape(const char *s);

#endif
