// SPDX-License-Identifier: GPL-2.0
/*
 * The demand trace replay: see bw-replay.h for what it assumes. The pool
 * itself is the reference model's; this file adds time, demand, the
 * backlog and the parallelism limit around it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bw-replay.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* a * b / c, exact for any a, b of 64 bits; c > 0 */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

struct replay {
	const struct bwr_config *cfg;
	struct bwm_sysctls sys;
	struct bwm_group g;
	struct bwr_result *res;
	bwr_period_fn fn;
	void *arg;
	uint64_t now, boundary;	/* the time, the next period boundary */
	uint64_t backlog;
	uint64_t served;	/* CPU the group got since the start */
	struct bwr_period per;	/* the period in progress */
	/*
	 * Samples whose demand still waits, first in first out: a sample's
	 * demand is done when served reaches target[], the demand of every
	 * sample up to it; its delay counts from since[], the sample's end,
	 * when the trace's own run had done it.
	 */
	uint64_t *target, *since;
	size_t head, tail;
	uint64_t *delay;
	size_t ndelay;
	uint64_t done_at;	/* when the last waiting demand was served */
};

/*
 * The group runs at want/len CPUs from now for got * len / want: settle
 * the waiting samples it finishes on the way.
 */
static void serve(struct replay *r, uint64_t got, uint64_t want, uint64_t len)
{
	while (r->head < r->tail && r->target[r->head] <= r->served + got) {
		uint64_t at = r->now + muldiv(r->target[r->head] - r->served, len, want);

		r->delay[r->ndelay++] = at - MIN(at, r->since[r->head]);
		r->done_at = at;
		r->head++;
	}
	r->served += got;
}

/* Serve amount evenly over the next dur, as far as the pool goes; returns what it served. */
static uint64_t run(struct replay *r, uint64_t dur, uint64_t amount)
{
	uint64_t got = bwm_spend(&r->g, amount);

	if (amount)
		serve(r, got, amount, dur);
	if (got < amount) {
		/* Dry after got * dur / amount; nothing more runs until the boundary. */
		r->per.throttled = true;
		r->per.throttled_ns += dur - muldiv(got, dur, amount);
	}
	r->now += dur;
	r->per.used += got;
	return got;
}

/*
 * From now to until, within one period, with arrive arriving evenly: what
 * waits runs at full speed (every CPU) until the arrivals catch up with it,
 * then the group keeps pace with them.
 */
static void step(struct replay *r, uint64_t until, uint64_t arrive)
{
	uint64_t cpus = r->cfg->cpus, len = until - r->now, room = cpus * len;
	uint64_t t1 = 0, a1;

	if (r->backlog)
		t1 = room > arrive ? MIN(len, muldiv(r->backlog, len, room - arrive)) : len;
	a1 = muldiv(arrive, t1, len);
	r->backlog += a1;
	r->backlog -= run(r, t1, MIN(cpus * t1, r->backlog));
	r->backlog += arrive - a1;
	r->backlog -= run(r, len - t1, MIN(cpus * (len - t1), r->backlog));
	r->per.demand += arrive;
}

static void end_period(struct replay *r)
{
	r->per.end = r->now;
	r->per.backlog = r->backlog;
	r->res->periods++;
	r->res->throttled_periods += r->per.throttled;
	r->res->throttled_ns += r->per.throttled_ns;
	if (r->fn)
		r->fn(&r->per, r->arg);
}

static void start_period(struct replay *r)
{
	memset(&r->per, 0, sizeof(r->per));
	r->per.start = r->now;
	r->per.pool_start = r->g.pool;
}

static void cross_boundary(struct replay *r)
{
	end_period(r);
	bwm_refill(&r->g, 1);
	r->boundary += r->cfg->period;
	start_period(r);
}

/* From now to until with demand arriving evenly, boundaries on the way. */
static void advance(struct replay *r, uint64_t until, uint64_t demand)
{
	uint64_t from = r->now, arrived = 0;

	while (r->now < until) {
		uint64_t to = MIN(until, r->boundary);
		uint64_t upto = muldiv(demand, to - from, until - from);

		step(r, to, upto - arrived);
		arrived = upto;
		if (r->now == r->boundary)
			cross_boundary(r);
	}
}

/* A sample's demand is in: done already, or it waits. */
static void arrived(struct replay *r, uint64_t cum, uint64_t t)
{
	if (r->served >= cum) {
		r->delay[r->ndelay++] = 0;
		return;
	}
	r->target[r->tail] = cum;
	r->since[r->tail++] = t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest delay with at least 99% of them <= it. */
static void summarise_delays(struct replay *r)
{
	struct bwr_result *res = r->res;
	size_t rank;

	res->delayed = r->ndelay;
	if (!r->ndelay)
		return;
	qsort(r->delay, r->ndelay, sizeof(*r->delay), cmp_u64);
	rank = (r->ndelay * 99 + 99) / 100;
	res->delay_p99 = r->delay[rank - 1];
	res->delay_max = r->delay[r->ndelay - 1];
}

static int check_input(const struct bwr_sample *s, size_t n, const struct bwr_config *cfg)
{
	size_t i;

	if (!n || !cfg->cpus || !cfg->phase || cfg->phase > cfg->period || !s[0].t)
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (s[i].t <= s[i - 1].t)
			return -EINVAL;
	return 0;
}

static int setup(struct replay *r, size_t n, const struct bwr_config *cfg)
{
	int ret;

	bwm_sysctls_init(&r->sys);
	r->sys.onset_percent = cfg->onset_percent;
	bwm_group_init(&r->g, &r->sys);
	ret = bwm_set(&r->g, cfg->period, cfg->quota, cfg->burst);
	if (ret)
		return ret;
	/* A full pool is what enough idle periods give: refill, not poke. */
	if (cfg->start_full)
		bwm_refill(&r->g, UINT64_MAX);
	r->cfg = cfg;
	r->boundary = cfg->phase;
	r->target = calloc(n, sizeof(*r->target));
	r->since = calloc(n, sizeof(*r->since));
	r->delay = calloc(n, sizeof(*r->delay));
	if (!r->target || !r->since || !r->delay)
		return -ENOMEM;
	start_period(r);
	return 0;
}

int bwr_replay(const struct bwr_sample *s, size_t n, const struct bwr_config *cfg,
	       struct bwr_result *res, bwr_period_fn fn, void *arg)
{
	struct replay r = { .res = res, .fn = fn, .arg = arg };
	uint64_t cum = 0, end;
	size_t i;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = check_input(s, n, cfg);
	if (!ret)
		ret = setup(&r, n, cfg);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		advance(&r, s[i].t, s[i].cpu);
		if (s[i].cpu)
			arrived(&r, cum += s[i].cpu, s[i].t);
	}
	end = r.now;
	/* Serve what still waits; a throttle only ends at a boundary. */
	while (r.backlog)
		advance(&r, r.boundary, 0);
	if (r.now > r.per.start)
		end_period(&r);
	res->demand = cum;
	res->used = r.served;
	res->drain_ns = r.done_at - MIN(r.done_at, end);
	res->nr_bursts = r.g.nr_bursts;
	res->burst_time = r.g.burst_time;
	summarise_delays(&r);
out:
	free(r.target);
	free(r.since);
	free(r.delay);
	return ret;
}

uint64_t bwr_phase_at(uint64_t start_ns, uint64_t period)
{
	return period - start_ns % period;
}

/* Every field of into becomes the larger (or smaller) of it and r's. */
static void merge(struct bwr_result *into, const struct bwr_result *r, bool larger, bool first)
{
	if (first) {
		*into = *r;
		return;
	}
#define PICK(f) (into->f = larger ? MAX(into->f, r->f) : MIN(into->f, r->f))
	PICK(periods);
	PICK(throttled_periods);
	PICK(throttled_ns);
	PICK(demand);
	PICK(used);
	PICK(drain_ns);
	PICK(delayed);
	PICK(delay_p99);
	PICK(delay_max);
	PICK(nr_bursts);
	PICK(burst_time);
#undef PICK
}

int bwr_replay_phases(const struct bwr_sample *s, size_t n, const struct bwr_config *cfg,
		      unsigned int nphases, struct bwr_result *worst, struct bwr_result *best)
{
	struct bwr_config c = *cfg;
	struct bwr_result r;
	unsigned int k;
	int ret;

	if (!nphases)
		return -EINVAL;
	for (k = 0; k < nphases; k++) {
		c.phase = MAX(1, muldiv(cfg->period, k + 1, nphases));
		ret = bwr_replay(s, n, &c, &r, NULL, NULL);
		if (ret)
			return ret;
		if (worst)
			merge(worst, &r, true, !k);
		if (best)
			merge(best, &r, false, !k);
	}
	return 0;
}
