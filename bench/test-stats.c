// SPDX-License-Identifier: GPL-2.0
/* Percentiles, the summary, the usage bound and the achieved rate. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bb.h"
#include "test.h"

static bool eq(const char *what, uint64_t got, uint64_t want)
{
	if (!tap_ok(got == want, "%s = %" PRIu64, what, want))
		tap_diag("got %" PRIu64, got);
	return got == want;
}

/* 1..n in a scrambled order (n coprime with 7919 keeps it a permutation). */
static uint64_t *scrambled(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (i * 7919) % n + 1;
	return v;
}

static void test_percentile(void)
{
	uint64_t four[] = { 10, 20, 30, 40 }, one[] = { 7 };
	uint64_t *v;
	size_t i;

	eq("percentile of no samples", bb_percentile(four, 0, 50), 0);
	eq("p50 of one sample", bb_percentile(one, 1, 50), 7);
	eq("p99.9 of one sample", bb_percentile(one, 1, 99.9), 7);
	eq("p50 of 10,20,30,40 (nearest rank 2)", bb_percentile(four, 4, 50), 20);
	eq("p75 of 10,20,30,40", bb_percentile(four, 4, 75), 30);
	eq("p76 of 10,20,30,40 rounds the rank up", bb_percentile(four, 4, 76), 40);
	eq("p0 is the minimum", bb_percentile(four, 4, 0), 10);
	eq("p100 is the maximum", bb_percentile(four, 4, 100), 40);
	eq("p150 is clamped to the maximum", bb_percentile(four, 4, 150), 40);

	v = malloc(1000 * sizeof(*v));
	for (i = 0; i < 1000; i++)
		v[i] = i + 1;
	eq("p50 of 1..1000", bb_percentile(v, 1000, 50), 500);
	eq("p99 of 1..1000", bb_percentile(v, 1000, 99), 990);
	eq("p99.5 of 1..1000", bb_percentile(v, 1000, 99.5), 995);
	eq("p99.9 of 1..1000 (rank 999, not 1000)", bb_percentile(v, 1000, 99.9), 999);
	free(v);
}

static void test_summary(void)
{
	static const uint64_t want[BB_NPCT] = { 50, 75, 90, 95, 99, 100, 100 };
	uint64_t same[5] = { 3, 3, 3, 3, 3 }, big[2] = { UINT64_MAX - 1, UINT64_MAX - 3 };
	struct bb_summary s;
	bool sorted = true;
	uint64_t *v;
	size_t i;

	v = scrambled(100);
	bb_summarise(v, 100, &s);
	for (i = 1; i < 100; i++)
		sorted &= v[i - 1] <= v[i];
	tap_ok(sorted, "summarise sorts the samples in place");
	eq("count of 100 samples", s.n, 100);
	eq("min of a scrambled 1..100", s.min, 1);
	eq("max of a scrambled 1..100", s.max, 100);
	eq("mean of 1..100 (50.5 rounds up)", s.mean, 51);
	for (i = 0; i < BB_NPCT; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%s of a scrambled 1..100", bb_pct_names[i]);
		eq(what, s.pct[i], want[i]);
	}
	free(v);

	/* Two outliers in 200: p99 is still a regular sample, p99.5 is not. */
	v = malloc(200 * sizeof(*v));
	for (i = 0; i < 200; i++)
		v[i] = i < 2 ? 100000 : 10;
	bb_summarise(v, 200, &s);
	eq("p99 of 198 x 10 and 2 x 100000", s.pct[4], 10);
	eq("p99.5 of 198 x 10 and 2 x 100000", s.pct[5], 100000);
	free(v);

	bb_summarise(same, 5, &s);
	tap_ok(s.min == 3 && s.max == 3 && s.mean == 3 && s.pct[0] == 3 && s.pct[6] == 3,
	       "equal samples: every statistic is that value");
	bb_summarise(big, 2, &s);
	eq("mean of values near 2^64 does not overflow", s.mean, UINT64_MAX - 2);
	bb_summarise(same, 0, &s);
	tap_ok(!s.n && !s.min && !s.max && !s.mean && !s.pct[0] && !s.pct[6],
	       "no samples: everything is 0");
}

static void test_bound(void)
{
	eq("no quota: no bound", bb_usage_bound(0, 100000, 0, 1000000), UINT64_MAX);
	eq("elapsed 0: one period's quota + burst", bb_usage_bound(70000, 100000, 40000, 0),
	   110000);
	eq("exactly 10 periods touch 11", bb_usage_bound(70000, 100000, 40000, 1000000),
	   70000 * 11 + 40000);
	eq("10.5 periods touch 12", bb_usage_bound(10000, 50000, 30000, 525000),
	   10000 * 12 + 30000);
	eq("burst 0: quota per period only", bb_usage_bound(10000, 50000, 0, 100000), 30000);
}

/* An exact double: the cases below divide numbers that come out whole. */
static void eqd(const char *what, double got, double want)
{
	if (!tap_ok(got == want, "%s = %g", what, want))
		tap_diag("got %.17g", got);
}

#define SEC 1000000000ULL

static void test_rate(void)
{
	const uint64_t start = 2 * SEC;
	uint64_t served;

	/* 150 requests in a 15 s window, the last done 0.1 s before it closes. */
	served = bb_served_ns(start, start + 15 * SEC, start + 14 * SEC + SEC / 10);
	eq("a run that keeps up is served over the whole window", served, 15 * SEC);
	eqd("its achieved rate is the requested one, 150 / 15 s", bb_achieved_rps(150, served), 10);

	/*
	 * Asked for 300 requests/s over 10 s, the 3000 requests took 300 s to
	 * serve: the scheduled window would say 300, the rate served is 10.
	 */
	served = bb_served_ns(start, start + 10 * SEC, start + 300 * SEC);
	eq("a run that falls behind is served until its last completion", served, 300 * SEC);
	eqd("over the scheduled window it would be the requested rate, 3000 / 10 s",
	    bb_achieved_rps(3000, 10 * SEC), 300);
	eqd("its achieved rate, 3000 / 300 s, is 30 times lower", bb_achieved_rps(3000, served),
	    10);

	eq("the last completion just after the window counts", bb_served_ns(start, start + 10 * SEC,
	   start + 10 * SEC + 1), 10 * SEC + 1);
	eq("no request completed (last_done 0): the window", bb_served_ns(start, start + SEC, 0),
	   SEC);
	eqd("no request completed: the achieved rate", bb_achieved_rps(0, SEC), 0);
	eqd("an empty window: 0, not a division by zero", bb_achieved_rps(5, 0), 0);
	eqd("7 requests in 0.25 s", bb_achieved_rps(7, SEC / 4), 28);
}

void test_stats(void)
{
	test_percentile();
	test_summary();
	test_bound();
	test_rate();
}
