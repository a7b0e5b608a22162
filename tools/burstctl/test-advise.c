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

static struct bc_mainline ml;

static void mainline(const struct bc_goal *g)
{
	if (bc_mainline(&trace, &model, g, &ml))
		tap_bail("bc_mainline failed");
}

static const struct bc_mainline_row *mainline_at(uint64_t period)
{
	size_t i;

	for (i = 0; i < ml.nrows; i++)
		if (ml.rows[i].period == period)
			return &ml.rows[i];
	return NULL;
}

static size_t mainline_met(const struct bc_goal *g)
{
	size_t i, n = 0;

	for (i = 0; i < ml.nrows; i++)
		n += bc_goal_met(g, &ml.rows[i].worst);
	return n;
}

/*
 * Mainline at the request trace's share. At period P it has quota P/10
 * (0.1 CPU) and a pool of at most 2P/10; a phase with no boundary inside
 * the 30 ms request exists for every P above 30 ms, and the pool is full
 * by 500 ms for P up to 500 ms (a quota at the start, one refill fills
 * it), so P meets the goal when 2P/10 >= 30 ms: from 150 ms (on the grid,
 * 160 ms), and every period above 500 ms starts with a quota of 50 ms or
 * more. At 100 ms the pool holds 20 ms: dry at 520 ms with a boundary at
 * 500, refilled at 600, done at 610: 80 ms late. The patched kernel at
 * 100 ms needs a pool of 30 ms: burst 20 ms.
 */
static void test_mainline_stretched(void)
{
	struct bc_goal none = { .max_throttled = 0 };
	const struct bc_mainline_row *own, *r125;

	load(request, "10ms");
	advise(&none, NULL, 0);
	mainline(&none);
	own = mainline_at(100 * BC_NS_PER_MS);
	r125 = mainline_at(125 * BC_NS_PER_MS);
	tap_ok(adv.met && adv.burst == 20 * BC_NS_PER_MS, "request at 0.1 CPU: the patched kernel needs burst 20 ms (got %llu us)",
	       (unsigned long long)(adv.burst / BC_NS_PER_US));
	tap_ok(ml.nrows == 21 && ml.rows[0].period == 10 * BC_NS_PER_MS && ml.rows[0].quota == BC_NS_PER_MS,
	       "request at 0.1 CPU: mainline's grid from 10 ms (quota 1 ms, its least) to 1 s: 21 periods (got %zu)",
	       ml.nrows);
	tap_ok(own && ml.have_own && &ml.rows[ml.own] == own && own->quota == 10 * BC_NS_PER_MS &&
	       own->worst.throttled_periods == 1 && own->worst.delay_p99 == 80 * BC_NS_PER_MS,
	       "request at 0.1 CPU: mainline at 100 ms, burst = quota 10 ms: one throttle, 80 ms late");
	tap_ok(r125 && r125->worst.throttled_periods == 1,
	       "request at 0.1 CPU: mainline at 125 ms (a 25 ms pool) still throttles");
	tap_ok(ml.rows[ml.best].period == 160 * BC_NS_PER_MS && ml.rows[ml.best].quota == 16 * BC_NS_PER_MS &&
	       bc_goal_met(&none, &ml.rows[ml.best].worst),
	       "request at 0.1 CPU: mainline's best is period 160 ms, quota 16 ms: the nearest to 100 ms that meets the goal (got %llu us)",
	       (unsigned long long)(ml.rows[ml.best].period / BC_NS_PER_US));
	tap_ok(mainline_met(&none) == 9,
	       "request at 0.1 CPU: the 9 periods from 160 ms to 1 s meet it, no shorter one (%zu meet)",
	       mainline_met(&none));
}

/*
 * A rare large burst: 250 ms of one CPU at 5 s, under 0.1 CPU. Mainline's
 * largest pool is 2 x 0.1 x 1 s = 200 ms; over the request a period P adds
 * at most 250 / P quotas of P / 10, so no period gets it 250 ms: at most
 * 0.2 P + 25 ms <= 225 ms. At 1 s with a boundary at 5 s the pool runs
 * dry at 5.2 s and the next refill, at 6 s, finishes it at 6.05 s: 800 ms
 * late. The patched kernel at 100 ms: the worst phase has two boundaries
 * inside the request (20 ms), so the pool needs 230 ms: burst 220 ms.
 */
static void test_mainline_rare_burst(void)
{
	struct bc_goal none = { .max_throttled = 0 };
	const struct bc_mainline_row *best;

	load("# cpus: 1\ntime_us,cpu_us\n0,0\n5000000,0\n5250000,250000\n6000000,0\n", "10ms");
	advise(&none, NULL, 0);
	mainline(&none);
	best = &ml.rows[ml.best];
	tap_ok(adv.met && adv.burst == 220 * BC_NS_PER_MS, "rare burst: the patched kernel needs burst 220 ms (got %llu us)",
	       (unsigned long long)(adv.burst / BC_NS_PER_US));
	tap_ok(mainline_met(&none) == 0, "rare burst: no mainline period from 10 ms to 1 s meets the goal (%zu do)",
	       mainline_met(&none));
	tap_ok(best->period == BWM_MAX_PERIOD && best->worst.delay_p99 == 800 * BC_NS_PER_MS,
	       "rare burst: mainline's best is 1 s, 800 ms late (got %llu us, %llu us)",
	       (unsigned long long)(best->period / BC_NS_PER_US),
	       (unsigned long long)(best->worst.delay_p99 / BC_NS_PER_US));
}

/* The request at 0.2 CPU needs burst 10 ms: within the quota, so mainline at 100 ms does it. */
static void test_mainline_tie(void)
{
	struct bc_goal none = { .max_throttled = 0 };

	load(request, "20ms");
	mainline(&none);
	tap_ok(ml.rows[ml.best].period == 100 * BC_NS_PER_MS && ml.best == ml.own &&
	       bc_goal_met(&none, &ml.rows[ml.own].worst),
	       "request at 0.2 CPU: mainline at the user's own period (burst = quota 20 ms) meets the goal: its best");
	/* A period below 5 ms would need a quota below 1 ms: not on the grid. */
	tap_ok(ml.rows[0].period == 5 * BC_NS_PER_MS, "request at 0.2 CPU: the grid starts where the quota is 1 ms: 5 ms");
}

void test_advise(void)
{
	test_throttled_goal();
	test_delay_goal();
	test_unreachable();
	test_mainline_stretched();
	test_mainline_rare_burst();
	test_mainline_tie();
	bc_trace_free(&trace);
}
