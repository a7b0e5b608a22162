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
#include "../../lib/tap.h"
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
 * Every case starts from the same group, so that each check depends only
 * on the features its own write needs (make test-series-prefixes): burst
 * first cleared so that the stock kernel (burst <= quota) takes each step.
 */
#define BASE_MAX "20000 100000"
#define BASE_BURST 5000

static int set_base(void)
{
	int ret = cg_write(CG, "cpu.max.burst", "0");

	ret = ret ?: cg_write(CG, "cpu.max", BASE_MAX);
	return ret ?: cg_write(CG, "cpu.max.burst", "%d", BASE_BURST);
}

struct outcome {
	int ret;
	const char *max;
	long long burst;
	const char *what;
};

/*
 * Write @val to cpu.max in the base group and check the result the
 * expected kernel gives: @patched or @stock. @tags: the features the
 * patched result needs.
 */
static void check(const char *tags, const char *val, struct outcome patched, struct outcome stock)
{
	const struct outcome *want = expect_patched() ? &patched : &stock;
	int base = set_base();
	int ret = base ?: cg_write(CG, "cpu.max", "%s", val);
	bool same = state_is(want->max, want->burst);

	tap_ok(!base && ret == want->ret && same,
	       "[%s] cpu.max '%s': %s (ret %d want %d; cpu.max '%s' want '%s', burst %lld want %lld; base ret %d)",
	       tags, tap_escape(val), want->what, ret, want->ret, now_max, want->max, now_burst,
	       want->burst, base);
}

static void run(void)
{
	char big[64];
	int ret = bw_group(CG, 20000, 100000, BASE_BURST);
	bool same = state_is(BASE_MAX, BASE_BURST);

	if (!tap_ok(ret == 0 && same, "group with cpu.max '" BASE_MAX "', burst %d (cpu.max '%s', burst %lld)",
		    BASE_BURST, now_max, now_burst)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	/* Stock parses two fields with sscanf() and never sets burst through cpu.max. */
	check(F_ABOVE " " F_THREE, "30000 50000 40000",
	      (struct outcome){ 0, "30000 50000", 40000, "three fields set quota, period and burst > quota" },
	      (struct outcome){ 0, "30000 50000", BASE_BURST, "stock ignores the third field" });
	check(F_THREE, "4000 100000 3000",
	      (struct outcome){ 0, "4000 100000", 3000, "quota below the old burst and burst lowered together" },
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "stock refuses a quota below the old burst" });
	check("", "15000",
	      (struct outcome){ 0, "15000 100000", BASE_BURST, "one field keeps period and burst" },
	      (struct outcome){ 0, "15000 100000", BASE_BURST, "one field keeps period and burst" });
	check("", "25000 50000",
	      (struct outcome){ 0, "25000 50000", BASE_BURST, "two fields keep burst" },
	      (struct outcome){ 0, "25000 50000", BASE_BURST, "two fields keep burst" });
	check("", "max",
	      (struct outcome){ 0, "max 100000", BASE_BURST, "'max' keeps burst" },
	      (struct outcome){ 0, "max 100000", BASE_BURST, "'max' keeps burst" });
	check(F_THREE, "max 100000 30000",
	      (struct outcome){ 0, "max 100000", 30000, "'max' with a burst sets burst" },
	      (struct outcome){ 0, "max 100000", BASE_BURST, "stock ignores the third field" });
	check(F_THREE, "20000 100000 7000\n",
	      (struct outcome){ 0, BASE_MAX, 7000, "trailing newline accepted" },
	      (struct outcome){ 0, BASE_MAX, BASE_BURST, "stock ignores the third field" });
	check(F_THREE, " 20000\t100000  7000 ",
	      (struct outcome){ 0, BASE_MAX, 7000, "white space around and between fields accepted" },
	      (struct outcome){ 0, BASE_MAX, BASE_BURST, "stock ignores the third field" });

	/* Refused as a whole by the series; stock takes what sscanf() took. */
	snprintf(big, sizeof(big), "10000 50000 %lld", MAX_CFS_RUNTIME_US + 1);
	check(F_PARSE, big,
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "burst above max_cfs_runtime: EINVAL, nothing changes" },
	      (struct outcome){ 0, "10000 50000", BASE_BURST, "stock applies quota and period, ignores the burst" });
	check(F_PARSE, "10000 50000 abc",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "non-numeric burst: EINVAL, nothing changes" },
	      (struct outcome){ 0, "10000 50000", BASE_BURST, "stock ignores the third field" });
	check(F_PARSE, "10000 50000 -5",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "negative burst: EINVAL, nothing changes" },
	      (struct outcome){ 0, "10000 50000", BASE_BURST, "stock ignores the third field" });
	check(F_PARSE, "10000 50000 18446744073709551615",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "burst overflowing ns: EINVAL, nothing changes" },
	      (struct outcome){ 0, "10000 50000", BASE_BURST, "stock ignores the third field" });
	check(F_PARSE, "10000 50000 4000 1",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "a fourth field: EINVAL, nothing changes" },
	      (struct outcome){ 0, "10000 50000", BASE_BURST, "stock ignores what follows two fields" });
	/* A period that does not parse: stock keeps the old one and takes the quota. */
	check(F_PARSE, "30000 abc 50000",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "non-numeric period: EINVAL, nothing changes" },
	      (struct outcome){ 0, "30000 100000", BASE_BURST, "stock takes the quota alone" });
	check(F_PARSE, "30000 abc",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "non-numeric period: EINVAL, nothing changes" },
	      (struct outcome){ 0, "30000 100000", BASE_BURST, "stock takes the quota alone" });
	check(F_PARSE, "30000 50000x",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "junk after the period: EINVAL, nothing changes" },
	      (struct outcome){ 0, "30000 50000", BASE_BURST, "stock ignores what follows" });
	/* 18446744073739552 us is 30000384 ns modulo 2^64: stock sets a 30 ms quota. */
	check(F_PARSE, "18446744073739552 100000",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "quota overflowing ns: EINVAL, nothing changes" },
	      (struct outcome){ 0, "30000 100000", BASE_BURST, "stock wraps the quota to 30000" });

	/* Refused by both. */
	check("", "500 100000 1000",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "quota < 1 ms: EINVAL, nothing changes" },
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "quota < 1 ms: EINVAL, nothing changes" });
	check("", "10000 2000000 1000",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "period > 1 s: EINVAL, nothing changes" },
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "period > 1 s: EINVAL, nothing changes" });
	check("", "10000 999 1000",
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "period < 1 ms: EINVAL, nothing changes" },
	      (struct outcome){ -EINVAL, BASE_MAX, BASE_BURST, "period < 1 ms: EINVAL, nothing changes" });

	snprintf(big, sizeof(big), "20000 100000 %lld", MAX_CFS_RUNTIME_US);
	check(F_ABOVE " " F_THREE, big,
	      (struct outcome){ 0, BASE_MAX, MAX_CFS_RUNTIME_US, "burst = max_cfs_runtime accepted" },
	      (struct outcome){ 0, BASE_MAX, BASE_BURST, "stock ignores the third field" });

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_three_field = { "three-field-cpu.max", 23, run };
