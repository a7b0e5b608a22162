// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.max "$MAX $PERIOD $BURST": the series sets all three in one update,
 * all or nothing; 1- and 2-field writes keep burst; reading shows two
 * fields; a field that is not a whole number in range refuses the whole
 * write. Stock parses two fields with sscanf(): it silently ignores a
 * third, takes a quota whose period does not parse, and wraps a quota
 * that overflows in nanoseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/threefield"

static char now_max[64];
static long long now_burst;

/* Do cpu.max and cpu.max.burst read @max and @burst? Leaves what they read. */
static bool state_is(const char *max, long long burst)
{
	cg_text(CG, "cpu.max", now_max, sizeof(now_max));
	now_burst = cg_num(CG, "cpu.max.burst");
	return !strcmp(now_max, max) && now_burst == burst;
}

/*
 * Write @val to cpu.max and check the result: @ret_want, then cpu.max
 * @max and burst @burst. @tags: the features the patched result needs.
 */
static void check(const char *tags, const char *val, int ret_want, const char *max,
		  long long burst, const char *what)
{
	int ret = cg_write(CG, "cpu.max", "%s", val);
	bool same = state_is(max, burst);

	tap_ok(ret == ret_want && same,
	       "[%s] cpu.max '%s': %s (ret %d want %d; cpu.max '%s' want '%s', burst %lld want %lld)",
	       tags, tap_escape(val), what, ret, ret_want, now_max, max, now_burst, burst);
}

/* Stock took a write the series rejects: put the common state back. */
static void reset(void)
{
	cg_write(CG, "cpu.max", "20000 100000");
}

static void run(void)
{
	bool p = expect_patched();
	/* Stock never changes burst through cpu.max: it stays 5000. */
	long long b = 5000;
	char big[64];

	int ret = bw_group(CG, 20000, 100000, 5000);
	bool same = state_is("20000 100000", 5000);

	if (!tap_ok(ret == 0 && same, "group with cpu.max '20000 100000', burst 5000 (cpu.max '%s', burst %lld)",
		    now_max, now_burst)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	check(F_ABOVE " " F_THREE, "30000 50000 40000", 0, "30000 50000", p ? 40000 : b,
	      p ? "three fields set quota, period and burst > quota" : "stock ignores the third field");
	check(F_THREE, "10000 100000 6000", 0, "10000 100000", p ? 6000 : b,
	      p ? "quota below the old burst and burst lowered together" : "stock ignores the third field");
	if (p)
		b = 6000;
	check("", "15000", 0, "15000 100000", b, "one field keeps period and burst");
	check("", "25000 100000", 0, "25000 100000", b, "two fields keep burst");
	check("", "max", 0, "max 100000", b, "'max' keeps burst");
	check(F_THREE, "max 100000 30000", 0, "max 100000", p ? 30000 : b,
	      p ? "'max' with a burst sets burst" : "stock ignores the third field");
	check(F_THREE, "20000 100000 7000\n", 0, "20000 100000", p ? 7000 : b,
	      p ? "trailing newline accepted" : "stock ignores the third field");
	if (p)
		b = 7000;
	check(F_THREE, " 20000\t100000  7000 ", 0, "20000 100000", b,
	      "white space around and between fields accepted");

	/* Rejected as a whole by the series; stock takes the first two fields. */
	snprintf(big, sizeof(big), "10000 50000 %lld", MAX_CFS_RUNTIME_US + 1);
	check(F_PARSE, big, p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "burst above max_cfs_runtime: EINVAL, nothing changes" :
		  "stock applies quota and period, ignores the burst");
	reset();
	check(F_PARSE, "10000 50000 abc", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "non-numeric burst: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check(F_PARSE, "10000 50000 -5", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "negative burst: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check(F_PARSE, "10000 50000 18446744073709551615", p ? -EINVAL : 0,
	      p ? "20000 100000" : "10000 50000", b,
	      p ? "burst overflowing ns: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check(F_PARSE, "10000 50000 4000 1", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "a fourth field: EINVAL, nothing changes" : "stock ignores what follows two fields");
	reset();
	/* A period that does not parse: stock keeps the old one and takes the quota. */
	check(F_PARSE, "30000 abc 50000", p ? -EINVAL : 0, p ? "20000 100000" : "30000 100000", b,
	      p ? "non-numeric period: EINVAL, nothing changes" : "stock takes the quota alone");
	reset();
	check(F_PARSE, "30000 abc", p ? -EINVAL : 0, p ? "20000 100000" : "30000 100000", b,
	      p ? "non-numeric period: EINVAL, nothing changes" : "stock takes the quota alone");
	reset();
	check(F_PARSE, "30000 50000x", p ? -EINVAL : 0, p ? "20000 100000" : "30000 50000", b,
	      p ? "junk after the period: EINVAL, nothing changes" : "stock ignores what follows");
	reset();
	/* 18446744073739552 us is 30000384 ns modulo 2^64: stock sets a 30 ms quota. */
	check(F_PARSE, "18446744073739552 100000", p ? -EINVAL : 0, p ? "20000 100000" : "30000 100000",
	      b, p ? "quota overflowing ns: EINVAL, nothing changes" : "stock wraps the quota to 30000");
	reset();
	/* Rejected by both. */
	check("", "500 100000 1000", -EINVAL, "20000 100000", b, "quota < 1 ms: EINVAL, nothing changes");
	check("", "10000 2000000 1000", -EINVAL, "20000 100000", b,
	      "period > 1 s: EINVAL, nothing changes");
	check("", "10000 999 1000", -EINVAL, "20000 100000", b, "period < 1 ms: EINVAL, nothing changes");

	snprintf(big, sizeof(big), "20000 100000 %lld", MAX_CFS_RUNTIME_US);
	check(F_ABOVE " " F_THREE, big, 0, "20000 100000", p ? MAX_CFS_RUNTIME_US : b,
	      p ? "burst = max_cfs_runtime accepted" : "stock ignores the third field");

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_three_field = { "three-field-cpu.max", 23, run };
