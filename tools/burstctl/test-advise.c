// SPDX-License-Identifier: GPL-2.0
/*
 * advise on traces worked out by hand. The request trace: idle to 500 ms,
 * a 30 ms request on one CPU at 500-530 ms, idle to 1 s; quota 20 ms per
 * 100 ms. Where the boundary falls in the request decides (model/
 * test-bw-replay.c has the cases): with no refill inside it, the pool
 * must hold all 30 ms, so burst 10 ms is the least for no throttled
 * period in every phase; without a burst, quota 30 ms. The worst delay
 * with burst b < 10 ms is 80 - b ms (a boundary at 500: dry at 520 + b,
 * refilled at 600, done at 610 - b), so a 75 ms p99 goal needs 5 ms; with
 * no burst it needs quota 25 ms (done at 630 - q).
 */
#include <stdio.h>
#include <string.h>

#include "bc.h"
#include "test.h"

static const char request[] =
	"# cpus: 1\ntime_us,cpu_us\n0,0\n500000,0\n530000,30000\n1000000,0\n";

static struct bc_trace trace;
static struct bc_model model;
static struct bc_advice adv;

static void load(const char *text, const char *quota)
{
	char err[256];

	bc_trace_free(&trace);
	bc_model_init(&model);
	if (bc_trace_parse("t", text, &trace, err, sizeof(err)) ||
	    bc_model_opt(&model, BC_OPT_QUOTA, quota, err, sizeof(err)) ||
	    bc_model_finish(&model, &trace, err, sizeof(err)))
		tap_bail("test trace: %s", err);
}

static void advise(const struct bc_goal *g, const uint64_t *bursts, size_t n)
{
	if (bc_advise(&trace, &model, g, bursts, n, &adv))
		tap_bail("bc_advise failed");
}

static void test_throttled_goal(void)
{
	static const uint64_t edge[] = { 9999 * BC_NS_PER_US, 10000 * BC_NS_PER_US };
	struct bc_goal none = { .max_throttled = 0 }, one = { .max_throttled = 1 };

	load(request, "20ms");
	advise(&none, edge, 2);
	tap_ok(adv.met && adv.burst == 10 * BC_NS_PER_MS, "request: burst 10 ms for no throttled period (got %llu us)",
	       (unsigned long long)(adv.burst / BC_NS_PER_US));
	tap_ok(adv.nrows == 2 && adv.rows[0].worst.throttled_periods == 1 &&
	       adv.rows[1].worst.throttled_periods == 0 && adv.rows[0].best.throttled_periods == 0,
	       "request: 9999 us still throttles in the worst phase, not in the best; 10000 us never");
	tap_ok(adv.quota_met && adv.quota == 30 * BC_NS_PER_MS,
	       "request: without burst, quota 30 ms (got %llu us)", (unsigned long long)(adv.quota / BC_NS_PER_US));
	advise(&one, NULL, 0);
	tap_ok(adv.met && adv.burst == 0 && adv.nrows == 1 && adv.rows[0].burst == 0,
	       "request: one throttled period allowed: no burst needed, a one-row table");
	/* One throttle, then a refill of q must finish it: 30 - q <= q. */
	tap_ok(adv.quota_met && adv.quota == 15 * BC_NS_PER_MS, "request: ... or quota 15 ms (got %llu us)",
	       (unsigned long long)(adv.quota / BC_NS_PER_US));
}

static void test_delay_goal(void)
{
	struct bc_goal d75 = { .by_delay = true, .p99_delay = 75 * BC_NS_PER_MS };
	struct bc_goal d5 = { .by_delay = true, .p99_delay = 5 * BC_NS_PER_MS };

	load(request, "20ms");
	advise(&d75, NULL, 0);
	tap_ok(adv.met && adv.burst == 5 * BC_NS_PER_MS, "request: p99 delay 75 ms needs burst 5 ms (got %llu us)",
	       (unsigned long long)(adv.burst / BC_NS_PER_US));
	tap_ok(adv.quota_met && adv.quota == 25 * BC_NS_PER_MS, "request: ... or quota 25 ms (got %llu us)",
	       (unsigned long long)(adv.quota / BC_NS_PER_US));
	/* Around the answer: 0, 1/4, 1/2, 3/4, 1 and 3/2 of it. */
	tap_ok(adv.nrows == 6 && adv.rows[0].burst == 0 && adv.rows[1].burst == 1250 * BC_NS_PER_US &&
	       adv.rows[4].burst == 5 * BC_NS_PER_MS && adv.rows[5].burst == 7500 * BC_NS_PER_US &&
	       adv.rows[0].worst.delay_p99 == 80 * BC_NS_PER_MS &&
	       adv.rows[4].worst.delay_p99 == 75 * BC_NS_PER_MS,
	       "request: the table around 5 ms; delay 80 ms at burst 0, 75 ms at 5 ms");
	advise(&d5, NULL, 0);
	tap_ok(adv.met && adv.burst == 10 * BC_NS_PER_MS, "request: p99 delay 5 ms needs burst 10 ms");
}

/* One CPU busy for a whole second under 0.1 CPU: no burst helps. */
static void test_unreachable(void)
{
	struct bc_goal none = { .max_throttled = 0 };

	load("# cpus: 1\ntime_us,cpu_us\n0,0\n1000000,1000000\n", "10ms");
	advise(&none, NULL, 0);
	tap_ok(!adv.met, "a second of one busy CPU under 0.1 CPU: no burst meets the goal");
	tap_ok(adv.nrows == 4 && adv.rows[3].burst == 40 * BC_NS_PER_MS &&
	       adv.rows[3].worst.throttled_periods > 0, "... the table shows bursts up to four quotas");
	/* At 100 ms per 100 ms the pool refills as fast as one CPU spends it. */
	tap_ok(adv.quota_met && adv.quota == 100 * BC_NS_PER_MS,
	       "... and the quota that needs no burst is one CPU (got %llu us)",
	       (unsigned long long)(adv.quota / BC_NS_PER_US));
}

void test_advise(void)
{
	test_throttled_goal();
	test_delay_goal();
	test_unreachable();
	bc_trace_free(&trace);
}
