// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the reference model (make check): every rule of
 * docs/kernel.md on numbers worked out by hand, and the parsers on the
 * inputs whose fate the kernel's source decides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bw-model.h"
#include "../lib/tap.h"

#define MS 1000000ULL
#define US 1000ULL

static struct bwm_sysctls sys;
static struct bwm_group g;

/* A fresh group limited to @quota/@period with @burst, all in ms. */
static void limited(uint64_t quota, uint64_t period, uint64_t burst)
{
	bwm_sysctls_init(&sys);
	bwm_group_init(&g, &sys);
	if (bwm_set(&g, period * MS, quota * MS, burst * MS))
		tap_bail("cannot set up %" PRIu64 "/%" PRIu64 " burst %" PRIu64, quota, period, burst);
}

static int wr_max(const char *s)
{
	return bwm_write_cpu_max(&g, s, strlen(s));
}

static int wr_burst(const char *s)
{
	return bwm_write_cpu_max_burst(&g, s, strlen(s));
}

static bool is(uint64_t got, uint64_t want, const char *what)
{
	return tap_ok(got == want, "%s: %" PRIu64 " (want %" PRIu64 ")", what, got, want);
}

static bool settings(uint64_t quota, uint64_t period, uint64_t burst)
{
	return g.quota == quota && g.period == period && g.burst == burst;
}

static void test_cap_and_refill(void)
{
	limited(20, 100, 140);
	is(bwm_cap(&g), 160 * MS, "cap is quota + burst");
	is(bwm_available(&g), 20 * MS, "a fresh limit starts with one quota");
	is(bwm_spend(&g, 50 * MS), 20 * MS, "spending more than the pool gets the pool");
	bwm_refill(&g, 3);
	is(g.pool, 60 * MS, "three idle periods: three quotas (partial accumulation)");
	bwm_refill(&g, 10);
	is(g.pool, 160 * MS, "saturates at the cap");
	bwm_refill(&g, UINT64_MAX);
	is(g.pool, 160 * MS, "any number of periods: no overflow, still the cap");

	limited(1, 1000, 0);
	g.burst = BWM_MAX_RUNTIME;
	bwm_refill(&g, UINT64_MAX);
	is(g.pool, BWM_MAX_RUNTIME, "quota 1 ms, burst max: the cap is max_cfs_runtime");
	is(bwm_cap(&g), BWM_MAX_RUNTIME, "quota + burst above max_cfs_runtime is capped");

	limited(20, 100, 140);
	sys.burst_enabled = 0;
	is(bwm_cap(&g), 20 * MS, "burst off: the cap is the quota");
	sys.burst_enabled = 1;
	bwm_refill(&g, 10);
	sys.burst_enabled = 0;
	bwm_burst_switched(&g);
	is(bwm_available(&g), 20 * MS, "burst switched off: a full pool is cut to the quota at once");
	tap_ok(g.nr_bursts == 0 && g.burst_time == 0 && g.snap == g.pool,
	       "the cut is not counted as use (nr_bursts %" PRIu64 ", burst_time %" PRIu64 ")",
	       g.nr_bursts, g.burst_time);
	bwm_refill(&g, 5);
	is(g.pool, 20 * MS, "five periods while off: the pool stays at the quota");
	sys.burst_enabled = 1;
	bwm_burst_switched(&g);
	is(g.pool, 20 * MS, "switched on: nothing is credited for the periods that ended while off");
	bwm_refill(&g, 2);
	is(g.pool, 60 * MS, "two periods later: saving resumes from there");
	tap_ok(g.nr_bursts == 0 && g.burst_time == 0, "no burst counted across the switch");
}

/* A running timer refills period by period, a stopped one once: the same pool, other statistics. */
static void test_refill_grouping(void)
{
	struct bwm_group one;

	limited(20, 100, 140);
	bwm_refill(&g, 10);
	bwm_spend(&g, 100 * MS);
	one = g;
	bwm_refill(&g, 1);
	bwm_refill(&g, 1);
	bwm_refill(&g, 1);
	bwm_refill(&one, 3);
	tap_ok(g.pool == one.pool && g.pool == 120 * MS,
	       "100 ms spent, three periods: pool 120 ms whether refilled 1+1+1 or 3 at once");
	tap_ok(g.nr_bursts == 1 && g.burst_time == 80 * MS && one.nr_bursts == 1 &&
	       one.burst_time == 40 * MS,
	       "running timer (1+1+1): one burst of 80 ms; stopped timer (3): one burst of 40 ms (got %" PRIu64
	        " ms, %" PRIu64 " ms)", (uint64_t)(g.burst_time / MS), (uint64_t)(one.burst_time / MS));
}

static void test_burst_statistics(void)
{
	limited(20, 100, 140);
	bwm_refill(&g, 10);
	bwm_spend(&g, 150 * MS);
	bwm_refill(&g, 1);
	tap_ok(g.nr_bursts == 1 && g.burst_time == 130 * MS && g.pool == 30 * MS,
	       "150 ms used in a period from a 160 ms pool: one burst of 130 ms, pool 30 ms (got %" PRIu64
	       ", %" PRIu64 ", %" PRIu64 ")", g.nr_bursts, g.burst_time, g.pool);
	bwm_spend(&g, 20 * MS);
	bwm_refill(&g, 1);
	tap_ok(g.nr_bursts == 1 && g.burst_time == 130 * MS,
	       "exactly quota used: no burst (got %" PRIu64 ", %" PRIu64 ")", g.nr_bursts,
	       g.burst_time);
	bwm_spend(&g, 25 * MS);
	bwm_refill(&g, 2);
	tap_ok(g.nr_bursts == 1, "25 ms over two periods: within their quota, no burst (%" PRIu64 ")",
	       g.nr_bursts);

	/* An update that cuts the pool is not spending. */
	limited(20, 100, 140);
	bwm_refill(&g, 10);
	bwm_set(&g, 100 * MS, 20 * MS, 5 * MS);
	bwm_spend(&g, 20 * MS);
	bwm_refill(&g, 1);
	tap_ok(g.nr_bursts == 0 && g.pool == 25 * MS,
	       "burst lowered to 5 ms cuts the pool to 25 ms, not counted as burst (got %" PRIu64
	       ", pool %" PRIu64 ")", g.nr_bursts, g.pool);
}

static void test_updates(void)
{
	int i, ret = 0;

	/* Rule 3: no minting. */
	limited(20, 100, 140);
	bwm_spend(&g, 20 * MS);
	for (i = 0; i < 7; i++)
		ret |= wr_max("20000 100000");
	tap_ok(!ret && g.pool == 0, "a drained group rewritten 7 times keeps an empty pool (%" PRIu64 ")",
	       g.pool);
	bwm_refill(&g, 4);
	for (i = 0; i < 3; i++)
		ret |= wr_max("20000 100000 140000");
	is(g.pool, 80 * MS, "rewriting the same three fields leaves the pool as it was");
	ret = wr_burst("10000");
	is(g.pool, 30 * MS, "lowering burst cuts the pool to the new cap");
	ret |= wr_max("10000 100000");
	is(g.pool, 20 * MS, "lowering quota cuts the pool to the new cap");
	ret |= wr_max("50000 100000");
	is(g.pool, 20 * MS, "raising quota adds nothing");
	tap_ok(!ret, "every write above accepted");

	/* Rule 4: fresh limit, and no pool across an unlimited interval. */
	limited(20, 100, 140);
	bwm_refill(&g, 10);
	is(bwm_available(&g), 160 * MS, "full pool");
	ret = wr_max("max");
	tap_ok(!ret && g.quota == BWM_INF && bwm_available(&g) == 0,
	       "'max': no limit, nothing reported (%" PRIu64 ")", bwm_available(&g));
	ret = wr_max("20000");
	tap_ok(!ret && g.pool == 20 * MS,
	       "limited again: one quota, the old pool is gone (%" PRIu64 ")", g.pool);

	/* Rule 2 is the caller's: it refills before it writes. */
	limited(20, 100, 140);
	bwm_spend(&g, 20 * MS);
	bwm_refill(&g, 5);
	ret = wr_max("20000 50000");
	tap_ok(!ret && g.pool == 100 * MS && g.period == 50 * MS,
	       "five idle periods credited under the old period survive a new period (%" PRIu64 ")",
	       g.pool);
}

static void test_onset(void)
{
	int ret;

	limited(20, 100, 140);
	sys.onset_percent = 50;
	bwm_group_init(&g, &sys);
	ret = bwm_set(&g, 100 * MS, 20 * MS, 140 * MS);
	tap_ok(!ret && g.pool == 90 * MS, "onset 50: a fresh limit starts at quota + 70 ms (%" PRIu64 ")",
	       g.pool);

	bwm_group_init(&g, &sys);
	ret = wr_max("20000 100000") || wr_burst("140000");
	tap_ok(!ret && g.pool == 90 * MS, "quota then burst: the same onset (%" PRIu64 ")", g.pool);
	bwm_group_init(&g, &sys);
	ret = wr_burst("140000") || wr_max("20000 100000");
	tap_ok(!ret && g.pool == 90 * MS, "burst (while unlimited) then quota: the same onset (%" PRIu64 ")",
	       g.pool);
	ret = wr_burst("140000") || wr_max("20000 100000 140000");
	tap_ok(!ret && g.pool == 90 * MS, "rewriting the same burst grants nothing (%" PRIu64 ")", g.pool);

	bwm_spend(&g, 90 * MS);
	ret = wr_burst("40000") || wr_burst("100000");
	tap_ok(!ret && g.pool == 30 * MS,
	       "drained, burst lowered to 40 then raised to 100: half the 60 ms increase (%" PRIu64 ")",
	       g.pool);
	ret = wr_burst("0") || wr_burst("100000");
	tap_ok(!ret && g.pool == 70 * MS,
	       "lowered to 0 and raised again: granted again, up to the cap (%" PRIu64 ")", g.pool);

	sys.onset_percent = 100;
	bwm_group_init(&g, &sys);
	sys.burst_enabled = 0;
	ret = wr_max("20000 100000 140000");
	tap_ok(!ret && g.pool == 20 * MS, "onset 100 with burst off: one quota (%" PRIu64 ")", g.pool);
	sys.burst_enabled = 1;
	bwm_group_init(&g, &sys);
	ret = wr_max("20000 100000 17592186044415");
	tap_ok(!ret && g.pool == BWM_MAX_RUNTIME,
	       "onset 100 with burst max_cfs_runtime: capped at max_cfs_runtime (%" PRIu64 ")", g.pool);
}

static void test_cpu_max_parse(void)
{
	static const char *const refused[] = {
		"30000 abc 50000", "30000 abc", "30000 50000x", "30000 50000 junk",
		"30000 50000 40000 1", "abc", "", " \n", "0x10 100000", "-5 100000",
		"30000 -1", "30000 50000 -5", "18446744073710552 100000",
		"18446744073709552 100000", "30000 18446744073709552",
		"30000 50000 18446744073709552", "30000 50000 18446744073709551616",
		"500 100000", "10000 999", "10000 1000001", "max 100000 17592186044416",
		"17592186044416 1000000", "max max",
	};
	char want[64], got[64];
	size_t i;
	int ret;

	limited(20, 100, 7);
	bwm_read_cpu_max(&g, want, sizeof(want));
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		size_t len = strlen(refused[i]);

		ret = bwm_write_cpu_max(&g, refused[i], len ? len : 1);
		bwm_read_cpu_max(&g, got, sizeof(got));
		tap_ok(ret == -EINVAL && !strcmp(got, want) && g.burst == 7 * MS && g.pool == 20 * MS,
		       "cpu.max '%s': EINVAL, nothing changes (ret %d)", tap_escape(refused[i]), ret);
	}
	/* kernfs ends the string at the first NUL, as C does */
	ret = bwm_write_cpu_max(&g, "30000\0 junk", 11);
	tap_ok(!ret && settings(30 * MS, 100 * MS, 7 * MS), "'30000\\0 junk': the field before the NUL (ret %d)",
	       ret);
	ret = wr_max("  30000\t50000  40000 \n");
	tap_ok(!ret && settings(30 * MS, 50 * MS, 40 * MS),
	       "white space around and between fields accepted (ret %d)", ret);
	ret = wr_max("+25000");
	tap_ok(!ret && settings(25 * MS, 50 * MS, 40 * MS), "one field keeps period and burst (ret %d)",
	       ret);
	ret = wr_max("20000 100000\n");
	tap_ok(!ret && settings(20 * MS, 100 * MS, 40 * MS), "two fields keep burst (ret %d)", ret);
	ret = wr_max("max 100000 30000");
	tap_ok(!ret && settings(BWM_INF, 100 * MS, 30 * MS), "'max' with a burst sets burst (ret %d)",
	       ret);
	ret = bwm_write_cpu_max(&g, "", 0);
	tap_ok(!ret && settings(BWM_INF, 100 * MS, 30 * MS), "a write of no bytes is a no-op (ret %d)",
	       ret);
	bwm_read_cpu_max(&g, got, sizeof(got));
	tap_ok(!strcmp(got, "max 100000\n"), "cpu.max reads '%.*s'", (int)strcspn(got, "\n"), got);
}

static void test_u64_files(void)
{
	static const struct {
		const char *in;
		int ret;
		long long burst_us;
	} cases[] = {
		{ "40000", 0, 40000 },
		{ "40000\n", 0, 40000 },
		{ "+40000", 0, 40000 },
		{ "0x10", 0, 16 },
		{ "017", 0, 15 },
		{ "0", 0, 0 },
		{ "0x", -EINVAL, 0 },
		{ "08", -EINVAL, 0 },
		{ " 40000", -EINVAL, 0 },
		{ "40000 ", -EINVAL, 0 },
		{ "40000\n\n", -EINVAL, 0 },
		{ "-5", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "18446744073709551615", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999x", -ERANGE, 0 },
		{ "17592186044415", 0, 17592186044415LL },
		{ "17592186044416", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		limited(20, 100, 0);
		ret = wr_burst(cases[i].in);
		tap_ok(ret == cases[i].ret && bwm_burst_us(&g) == cases[i].burst_us,
		       "cpu.max.burst '%s': %d, burst %lld us (want %d, %lld)", tap_escape(cases[i].in), ret,
		       bwm_burst_us(&g), cases[i].ret, cases[i].burst_us);
	}

	limited(20, 100, 0);
	tap_ok(bwm_write_cfs_quota_us(&g, "-1", 2) == 0 && g.quota == BWM_INF,
	       "cfs_quota_us -1: no limit");
	tap_ok(bwm_write_cfs_quota_us(&g, "-9223372036854775808", 20) == 0 && g.quota == BWM_INF,
	       "cfs_quota_us LLONG_MIN: no limit");
	tap_ok(bwm_write_cfs_quota_us(&g, "9223372036854775808", 19) == -ERANGE && g.quota == BWM_INF,
	       "cfs_quota_us above LLONG_MAX: ERANGE");
	tap_ok(bwm_write_cfs_quota_us(&g, "18446744073709552", 17) == -EINVAL && g.quota == BWM_INF,
	       "cfs_quota_us that overflows in ns: EINVAL");
	tap_ok(bwm_write_cfs_quota_us(&g, "30000", 5) == 0 && g.quota == 30 * MS && g.pool == 30 * MS,
	       "cfs_quota_us 30000: a fresh limit, one quota");
	tap_ok(bwm_write_cfs_period_us(&g, "0", 1) == -EINVAL && g.period == 100 * MS,
	       "cfs_period_us 0: EINVAL");
	tap_ok(bwm_write_cfs_period_us(&g, "1000001", 7) == -EINVAL && g.period == 100 * MS,
	       "cfs_period_us above 1 s: EINVAL");
	tap_ok(bwm_write_cfs_period_us(&g, "1000000", 7) == 0 && g.period == 1000 * MS,
	       "cfs_period_us 1 s accepted");
	tap_ok(bwm_write_cfs_burst_us(&g, "60000", 5) == 0 && g.burst == 60 * MS,
	       "cfs_burst_us above quota accepted");
	tap_ok(bwm_write_cfs_burst_us(&g, "", 1) == -EINVAL && g.burst == 60 * MS,
	       "cfs_burst_us: a lone NUL is EINVAL");
	tap_ok(bwm_write_cfs_burst_us(&g, "x", 5000) == -E2BIG, "a write above a page: E2BIG");
}

static void test_sysctls(void)
{
	static const struct {
		const char *in;
		int ret;
		unsigned int onset;
	} cases[] = {
		{ "50", 0, 50 },  { "50\n", 0, 50 },    { "  50", 0, 50 },	{ "50 junk", 0, 50 },
		{ "50\tx", 0, 50 }, { "0x32", 0, 50 },   { "062", 0, 50 },	{ "100", 0, 100 },
		{ "101", -EINVAL, 7 }, { "-0", -EINVAL, 7 }, { "-1", -EINVAL, 7 }, { "50x", -EINVAL, 7 },
		{ "x", -EINVAL, 7 }, { " ", -EINVAL, 7 }, { "4294967346", -EINVAL, 7 },
		{ "000000000000000000050", -EINVAL, 7 }, { "00000000000000000050", 0, 40 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		bwm_sysctls_init(&sys);
		sys.onset_percent = 7;
		ret = bwm_write_onset_percent(&sys, cases[i].in, strlen(cases[i].in));
		tap_ok(ret == cases[i].ret && sys.onset_percent == cases[i].onset,
		       "onset '%s': %d, reads %u (want %d, %u)", tap_escape(cases[i].in), ret, sys.onset_percent,
		       cases[i].ret, cases[i].onset);
	}
	bwm_sysctls_init(&sys);
	tap_ok(bwm_write_burst_enabled(&sys, "0\n", 2) == 0 && sys.burst_enabled == 0 &&
		       bwm_write_burst_enabled(&sys, "2", 1) == -EINVAL && sys.burst_enabled == 0 &&
		       bwm_write_burst_enabled(&sys, "1", 1) == 0 && sys.burst_enabled == 1,
	       "burst_enabled: 0 and 1 accepted, 2 refused");
	{
		char page[4096];

		/* The kernel reads a sysctl write only to PAGE_SIZE - 1: "5" of a "50" at the end */
		memset(page, ' ', sizeof(page));
		memcpy(page + sizeof(page) - 2, "50", 2);
		tap_ok(bwm_write_onset_percent(&sys, page, sizeof(page)) == 0 && sys.onset_percent == 5,
		       "onset: 4094 spaces and \"50\" in one write read as 5, as the kernel cuts it (got %u)",
		       sys.onset_percent);
		memcpy(page + sizeof(page) - 3, "50", 2);
		tap_ok(bwm_write_onset_percent(&sys, page, sizeof(page) - 1) == 0 && sys.onset_percent == 50,
		       "onset: 4093 spaces and \"50\" fit in the page: 50 (got %u)", sys.onset_percent);
		sys.onset_percent = 0;
	}
}

static void test_scale_period(void)
{
	limited(1, 1, 3);
	bwm_scale_period(&g);
	tap_ok(settings(2 * MS, 2 * MS, 6 * MS), "scale-up doubles period, quota and burst");
	g.burst = BWM_MAX_RUNTIME;
	g.quota = BWM_MAX_RUNTIME - 1;
	bwm_scale_period(&g);
	tap_ok(g.quota == BWM_MAX_RUNTIME && g.burst == BWM_MAX_RUNTIME && bwm_cap(&g) >= g.quota,
	       "scale-up keeps quota and burst within max_cfs_runtime, cap >= quota");
	g.period = 600 * MS;
	bwm_scale_period(&g);
	tap_ok(g.period == 600 * MS, "no scale-up past 1 s");

	limited(20, 100, 0);
	tap_ok(bwm_set(&g, 100 * MS, BWM_MAX_RUNTIME + US, 0) == -EINVAL && g.quota == 20 * MS,
	       "quota above max_cfs_runtime: EINVAL, unchanged");
	tap_ok(bwm_set(&g, 100 * MS, 20 * MS, BWM_MAX_RUNTIME) == 0, "burst = max_cfs_runtime accepted");
	tap_ok(bwm_set(&g, 100 * MS, 20 * MS, BWM_MAX_RUNTIME + US) == -EINVAL &&
		       g.burst == BWM_MAX_RUNTIME, "burst above max_cfs_runtime: EINVAL, unchanged");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_cap_and_refill();
	test_refill_grouping();
	test_burst_statistics();
	test_updates();
	test_onset();
	test_cpu_max_parse();
	test_u64_files();
	test_sysctls();
	test_scale_period();
	printf("1..%d\n", tap_count());
	printf("model: %d passed, %d failed\n", tap_count() - tap_failed(), tap_failed());
	return tap_failed() ? 1 : 0;
}
