// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the trace replay (make check): small traces whose
 * periods, throttles and delays are worked out by hand in the comments.
 * Quota 20 ms per 100 ms throughout unless a case says otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bw-replay.h"
#include "../lib/tap.h"

#define MS ((uint64_t)1000000)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct bwr_config cfg;
static struct bwr_result res;

/* A fresh limit of quota/period ms with burst ms, one CPU, first boundary at phase ms. */
static void config(uint64_t quota, uint64_t period, uint64_t burst, uint64_t phase)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.quota = quota * MS;
	cfg.period = period * MS;
	cfg.burst = burst * MS;
	cfg.phase = phase * MS;
	cfg.cpus = 1;
}

static int replay(const struct bwr_sample *s, size_t n)
{
	return bwr_replay(s, n, &cfg, &res, NULL, NULL);
}

static bool is(uint64_t got, uint64_t want, const char *what)
{
	return tap_ok(got == want, "%s: %" PRIu64 " (want %" PRIu64 ")", what, got, want);
}

/* Samples are (end, cpu) in ms. */
#define S(t, cpu) { (t) * MS, (cpu) * MS }

static void test_idle(void)
{
	const struct bwr_sample s[] = { S(1000, 0) };

	config(20, 100, 0, 100);
	tap_ok(!replay(s, 1), "an idle second replays");
	/* Boundaries at 100 ... 1000; the one at the trace's end closes the 10th period. */
	is(res.periods, 10, "idle second: ten periods");
	is(res.throttled_periods + res.delayed + res.used, 0, "idle second: no throttle, no demand");
}

/*
 * Idle until 300 ms, then 50 ms of CPU in (300, 350], idle to 1 s. Burst
 * 40 ms: the pool is at its cap (60 ms) by the boundary at 300 ms, so the
 * spike runs whole and leaves 10 ms; the refill at 400 ms finds 30 ms used
 * beyond its quota: one burst of 30 ms.
 */
static const struct bwr_sample spike[] = { S(300, 0), S(350, 50), S(1000, 0) };

static void test_burst_covers(void)
{
	config(20, 100, 40, 100);
	replay(spike, 3);
	is(res.throttled_periods, 0, "burst 40 ms covers a 50 ms spike: no throttled period");
	is(res.delay_max, 0, "burst 40 ms: no added delay");
	is(res.used, 50 * MS, "burst 40 ms: all 50 ms served");
	is(res.nr_bursts, 1, "burst 40 ms: one burst (nr_bursts)");
	is(res.burst_time, 30 * MS, "burst 40 ms: 30 ms beyond quota (burst_usec)");
}

/*
 * Burst 0: 20 ms at 300-320, dry, throttled to 400 (80 ms); 20 ms at
 * 400-420, throttled to 500 (80 ms); the last 10 ms at 500-510. The spike's
 * demand, due by 350 in the trace, is done at 510: 160 ms late.
 */
static void test_throttled_spike(void)
{
	config(20, 100, 0, 100);
	replay(spike, 3);
	is(res.throttled_periods, 2, "burst 0: two throttled periods");
	is(res.throttled_ns, 160 * MS, "burst 0: throttled 80 + 80 ms");
	is(res.delay_max, 160 * MS, "burst 0: the spike's demand done 160 ms late");
	is(res.delay_p99, 160 * MS, "burst 0: one sample with demand, p99 = max");
	is(res.delayed, 1, "burst 0: one sample with demand");
	is(res.nr_bursts, 0, "burst 0: no burst");
	is(res.drain_ns, 0, "burst 0: served within the trace");
}

/* The trace ends with work waiting: the replay serves it, throttles and all. */
static void test_drain(void)
{
	const struct bwr_sample s[] = { S(50, 50) };

	/* 20 ms, dry at 20, throttled to 100; 20 ms at 100-120, throttled to 200; 10 ms at 200-210. */
	config(20, 100, 0, 100);
	replay(s, 1);
	is(res.throttled_periods, 2, "drain: both throttled periods after the trace's end count");
	is(res.throttled_ns, 160 * MS, "drain: throttled 80 + 80 ms");
	is(res.drain_ns, 160 * MS, "drain: done at 210 ms, 160 ms after the trace's end");
	is(res.periods, 3, "drain: three periods, the one that finished the work included");
}

/*
 * Two CPUs, quota 200 ms per 100 ms: 300 ms of demand in the first 100 ms
 * can only get 200 of it (parallelism), the rest runs at 100-150 on both
 * CPUs. Late by 50 ms, but never throttled: the pool had it all along.
 */
static void test_parallelism(void)
{
	const struct bwr_sample s[] = { S(100, 300), S(200, 0) };

	config(200, 100, 0, 100);
	cfg.cpus = 2;
	replay(s, 2);
	is(res.throttled_periods, 0, "more demand than CPUs: not a throttle");
	is(res.delay_max, 50 * MS, "more demand than CPUs: done 50 ms late");
}

/*
 * A 30 ms request at 500-530 under quota 20 ms, no burst: what happens
 * depends on where the boundary r = phase mod 100 falls.
 *  r = 0, 95: no refill in the request, dry at 520, throttled to the next boundary;
 *  r = 10, 15, 20: the refill at 500 + r comes before the pool runs dry;
 *  r = 25: dry at 520, refilled at 525: a short throttle, still a throttled period.
 */
static const struct bwr_sample request[] = { S(500, 0), S(530, 30), S(1000, 0) };

static void test_phase(void)
{
	static const struct { uint64_t phase, throttled, thr_ms, delay_ms; } want[] = {
		{ 100, 1, 80, 80 }, { 5, 1, 80, 80 }, { 10, 0, 0, 0 }, { 20, 0, 0, 0 },
		{ 25, 1, 5, 5 }, { 95, 1, 75, 75 },
	};
	struct bwr_result worst, best;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		config(20, 100, 0, want[i].phase);
		replay(request, 3);
		tap_ok(res.throttled_periods == want[i].throttled &&
		       res.throttled_ns == want[i].thr_ms * MS && res.delay_max == want[i].delay_ms * MS,
		       "request at boundary phase %" PRIu64 " ms: %" PRIu64 " throttled, %" PRIu64
		       " ms, delay %" PRIu64 " ms (want %" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
		       want[i].phase, res.throttled_periods, res.throttled_ns / MS,
		       res.delay_max / MS, want[i].throttled, want[i].thr_ms, want[i].delay_ms);
	}
	config(20, 100, 0, 1);
	tap_ok(!bwr_replay_phases(request, 3, &cfg, 20, &worst, &best),
	       "replay over 20 phases (every 5 ms)");
	is(worst.throttled_periods, 1, "20 phases: worst 1 throttled period");
	is(best.throttled_periods, 0, "20 phases: best 0");
	is(worst.delay_max, 80 * MS, "20 phases: worst delay 80 ms");
	config(20, 100, 10, 1);
	bwr_replay_phases(request, 3, &cfg, 20, &worst, NULL);
	is(worst.throttled_periods, 0, "burst 10 ms: a full pool of 30 ms covers every phase");
}

/* The pool at the start: a fresh limit, its onset share, or full. */
static void test_start(void)
{
	const struct bwr_sample s[] = { S(30, 30), S(100, 0) };

	config(20, 100, 40, 100);
	replay(s, 2);
	is(res.throttled_periods, 1, "fresh limit: one quota, 30 ms at once is throttled");
	cfg.onset_percent = 50;
	replay(s, 2);
	is(res.throttled_periods, 0, "onset 50%: quota + 20 ms covers it");
	cfg.onset_percent = 0;
	cfg.start_full = true;
	replay(s, 2);
	is(res.throttled_periods, 0, "a full pool (60 ms) covers it");
}

/* p99 is the nearest rank: one late sample in a hundred does not move it. */
static void test_p99(void)
{
	struct bwr_sample s[100] = { S(30, 30) };
	size_t i;

	/* 20 ms, throttled to 100, 10 ms at 100-110: 80 ms late; then 1 ms every 10 ms. */
	for (i = 1; i < 100; i++)
		s[i] = (struct bwr_sample)S(200 + 10 * i, 1);
	config(20, 100, 0, 100);
	replay(s, 100);
	is(res.delayed, 100, "p99: 100 samples with demand");
	is(res.delay_max, 80 * MS, "p99: the first is 80 ms late");
	is(res.delay_p99, 0, "p99: the 99th of 100 is on time");
}

static void test_bad_input(void)
{
	const struct bwr_sample back[] = { S(100, 0), S(100, 1) };
	const struct bwr_sample zero[] = { S(0, 0) };

	config(20, 100, 0, 100);
	is(-replay(back, 2), EINVAL, "times that do not increase: EINVAL");
	is(-replay(zero, 1), EINVAL, "a first interval that ends at 0: EINVAL");
	is(-replay(spike, 0), EINVAL, "no samples: EINVAL");
	cfg.phase = 101 * MS;
	is(-replay(spike, 3), EINVAL, "phase beyond the period: EINVAL");
	config(20, 100, 0, 100);
	cfg.cpus = 0;
	is(-replay(spike, 3), EINVAL, "no CPUs: EINVAL");
	config(0, 100, 0, 100);
	is(-replay(spike, 3), EINVAL, "quota 0: EINVAL (bwm_set's rule)");
	config(20, 2000, 0, 100);
	is(-replay(spike, 3), EINVAL, "period 2 s: EINVAL (bwm_set's rule)");
}

static void record(const struct bwr_period *p, void *arg)
{
	struct bwr_period *out = arg;

	out[p->start / (100 * MS)] = *p;
}

static void test_periods(void)
{
	struct bwr_period p[10];

	config(20, 100, 0, 100);
	bwr_replay(spike, 3, &cfg, &res, record, p);
	tap_ok(p[3].start == 300 * MS && p[3].pool_start == 20 * MS && p[3].demand == 50 * MS &&
	       p[3].used == 20 * MS && p[3].backlog == 30 * MS && p[3].throttled &&
	       p[3].throttled_ns == 80 * MS,
	       "period 300-400: pool 20, demand 50, used 20, backlog 30, throttled 80 ms");
	tap_ok(p[5].used == 10 * MS && !p[5].throttled && p[5].backlog == 0,
	       "period 500-600: the last 10 ms, not throttled");
	is(bwr_phase_at(1234567 * MS, 100 * MS), 33 * MS, "phase: a start at 1234567 ms meets a boundary 33 ms later");
	is(bwr_phase_at(1234500 * MS, 100 * MS), 100 * MS, "phase: a start on a boundary meets the next one a period later");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_idle();
	test_burst_covers();
	test_throttled_spike();
	test_drain();
	test_parallelism();
	test_phase();
	test_start();
	test_p99();
	test_bad_input();
	test_periods();
	printf("1..%d\n", tap_count());
	printf("replay: %d passed, %d failed\n", tap_count() - tap_failed(), tap_failed());
	return tap_failed() ? 1 : 0;
}
