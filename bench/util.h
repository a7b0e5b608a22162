/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What burstbench and costbench share outside the host-tested parts
 * (bb.h): ending the program with a message, and reading a clock.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* The program's name, first on every message: each program defines it. */
extern const char bench_prog[];

__attribute__((noreturn, format(printf, 1, 2)))
void bench_die(const char *fmt, ...);
uint64_t bench_clock_ns(clockid_t id);

#endif
