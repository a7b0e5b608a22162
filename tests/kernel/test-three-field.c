// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.max "$MAX $PERIOD $BURST": the series sets all three in one update,
 * all or nothing; 1- and 2-field writes keep burst; reading shows two
 * fields. Stock parses two fields and silently ignores a third.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
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
 * @max and burst @burst.
 */
static void check(const char *val, int ret_want, const char *max, long long burst,
		  const char *what)
{
	int ret = cg_write(CG, "cpu.max", "%s", val);
	bool same = state_is(max, burst);

	tap_ok(ret == ret_want && same,
	       "cpu.max '%s': %s (ret %d want %d; cpu.max '%s' want '%s', burst %lld want %lld)",
	       val, what, ret, ret_want, now_max, max, now_burst, burst);
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

	check("30000 50000 40000", 0, "30000 50000", p ? 40000 : b,
	      p ? "three fields set quota, period and burst > quota" : "stock ignores the third field");
	check("10000 100000 6000", 0, "10000 100000", p ? 6000 : b,
	      p ? "quota below the old burst and burst lowered together" : "stock ignores the third field");
	if (p)
		b = 6000;
	check("15000", 0, "15000 100000", b, "one field keeps period and burst");
	check("25000 100000", 0, "25000 100000", b, "two fields keep burst");
	check("max", 0, "max 100000", b, "'max' keeps burst");
	check("max 100000 30000", 0, "max 100000", p ? 30000 : b,
	      p ? "'max' with a burst sets burst" : "stock ignores the third field");
	check("20000 100000 7000\n", 0, "20000 100000", p ? 7000 : b,
	      p ? "trailing newline accepted" : "stock ignores the third field");
	if (p)
		b = 7000;

	/* Rejected as a whole by the series; stock takes the first two fields. */
	snprintf(big, sizeof(big), "10000 50000 %lld", MAX_CFS_RUNTIME_US + 1);
	check(big, p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "burst above max_cfs_runtime: EINVAL, nothing changes" :
		  "stock applies quota and period, ignores the burst");
	reset();
	check("10000 50000 abc", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "non-numeric burst: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check("10000 50000 -5", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "negative burst: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check("10000 50000 18446744073709551615", p ? -EINVAL : 0,
	      p ? "20000 100000" : "10000 50000", b,
	      p ? "burst overflowing ns: EINVAL, nothing changes" : "stock ignores the third field");
	reset();
	check("10000 50000 4000 1", p ? -EINVAL : 0, p ? "20000 100000" : "10000 50000", b,
	      p ? "a fourth field: EINVAL, nothing changes" : "stock ignores what follows two fields");
	reset();
	/* Rejected by both. */
	check("500 100000 1000", -EINVAL, "20000 100000", b, "quota < 1 ms: EINVAL, nothing changes");
	check("10000 2000000 1000", -EINVAL, "20000 100000", b,
	      "period > 1 s: EINVAL, nothing changes");
	check("10000 999 1000", -EINVAL, "20000 100000", b, "period < 1 ms: EINVAL, nothing changes");

	snprintf(big, sizeof(big), "20000 100000 %lld", MAX_CFS_RUNTIME_US);
	check(big, 0, "20000 100000", p ? MAX_CFS_RUNTIME_US : b,
	      p ? "burst = max_cfs_runtime accepted" : "stock ignores the third field");

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_three_field = { "three-field-cpu.max", 18, run };
