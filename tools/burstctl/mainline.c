// SPDX-License-Identifier: GPL-2.0
/*
 * What mainline can do for a trace at the same CPU share: a kernel without
 * the series caps burst at quota, but lets the user stretch the period. The
 * model replays mainline's rules with burst = quota (a larger burst never
 * serves less, so it is mainline's best at any period) over a grid of
 * periods from 1 ms to 1 s; docs/burstctl.md ("Does the load need the
 * patched kernel?") says why the replay is mainline's for burst <= quota.
 */
#include <string.h>

#include "bc.h"

/*
 * Ten periods a decade (the R10 series), 1 ms to 1 s: a finer grid only
 * flatters mainline more, and the answer names a period a user can type.
 */
static const uint64_t r10_us[] = { 1000, 1250, 1600, 2000, 2500, 3150, 4000, 5000, 6300, 8000 };

static size_t grid(uint64_t own_period, uint64_t *periods)
{
	uint64_t scale;
	size_t i, n = 0;

	for (scale = 1; scale <= 100; scale *= 10)
		for (i = 0; i < ARRAY_SIZE(r10_us); i++)
			periods[n++] = r10_us[i] * scale * BC_NS_PER_US;
	periods[n++] = BWM_MAX_PERIOD;
	for (i = 0; i < n && periods[i] < own_period; i++)
		;
	if (i == n || periods[i] != own_period) {
		memmove(&periods[i + 1], &periods[i], (n - i) * sizeof(*periods));
		periods[i] = own_period;
		n++;
	}
	return n;
}

/* The quota at period p that keeps the share, rounded down to whole microseconds. */
static uint64_t same_share_quota(const struct bwr_config *c, uint64_t period)
{
	uint64_t us = (uint64_t)((unsigned __int128)c->quota * period / c->period / BC_NS_PER_US);

	return us * BC_NS_PER_US;
}

/* max(p, own) / min(p, own) as a fraction: how far p is from the user's period. */
static void distance(uint64_t p, uint64_t own, uint64_t *num, uint64_t *den)
{
	*num = p > own ? p : own;
	*den = p > own ? own : p;
}

/*
 * a serves the load better than b: it meets the goal and b does not; then
 * the smaller worst-phase delay p99, the less throttled time, the period
 * nearer the user's by ratio (the smaller change to make), the shorter.
 */
static bool better(const struct bc_mainline_row *a, const struct bc_mainline_row *b,
		   const struct bc_goal *g, uint64_t own)
{
	bool am = bc_goal_met(g, &a->worst), bm = bc_goal_met(g, &b->worst);
	uint64_t an, ad, bn, bd;

	if (am != bm)
		return am;
	if (a->worst.delay_p99 != b->worst.delay_p99)
		return a->worst.delay_p99 < b->worst.delay_p99;
	if (a->worst.throttled_ns != b->worst.throttled_ns)
		return a->worst.throttled_ns < b->worst.throttled_ns;
	distance(a->period, own, &an, &ad);
	distance(b->period, own, &bn, &bd);
	if ((unsigned __int128)an * bd != (unsigned __int128)bn * ad)
		return (unsigned __int128)an * bd < (unsigned __int128)bn * ad;
	return a->period < b->period;
}

int bc_mainline(const struct bc_trace *t, const struct bc_model *m, const struct bc_goal *g,
		struct bc_mainline *out)
{
	uint64_t periods[BC_MAINLINE_ROWS];
	size_t i, n = grid(m->cfg.period, periods);
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		struct bc_mainline_row *r = &out->rows[out->nrows];
		struct bwr_config c = m->cfg;

		c.period = periods[i];
		c.quota = same_share_quota(&m->cfg, c.period);
		/* Mainline takes quota >= 1 ms; its runtime (quota + burst) <= max_cfs_runtime. */
		if (c.quota < BWM_MIN_PERIOD || c.quota > BWM_MAX_RUNTIME / 2)
			continue;
		c.burst = c.quota;
		c.onset_percent = 0;
		ret = bwr_replay_phases(t->s, t->n, &c, m->phases, &r->worst, &r->best);
		if (ret)
			return ret;
		r->period = c.period;
		r->quota = c.quota;
		if (c.period == m->cfg.period) {
			out->own = out->nrows;
			out->have_own = true;
		}
		if (out->nrows && better(r, &out->rows[out->best], g, m->cfg.period))
			out->best = out->nrows;
		out->nrows++;
	}
	return 0;
}
