// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl advise: the smallest burst with which a recorded trace, replayed
 * through the model at a given quota, meets a goal in the worst phase of the
 * period; a table of bursts around it; the quota that would need no burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

bool bc_goal_met(const struct bc_goal *g, const struct bwr_result *worst)
{
	if (g->by_delay)
		return worst->delay_p99 <= g->p99_delay;
	return worst->throttled_periods <= g->max_throttled;
}

static int replay_at(const struct bc_trace *t, const struct bc_model *m, uint64_t quota,
		     uint64_t burst, struct bwr_result *worst, struct bwr_result *best)
{
	struct bwr_config c = m->cfg;

	c.quota = quota;
	c.burst = burst;
	return bwr_replay_phases(t->s, t->n, &c, m->phases, worst, best);
}

/* What the search varies, in whole microseconds: the burst, or the quota with no burst. */
struct probe {
	const struct bc_trace *t;
	const struct bc_model *m;
	const struct bc_goal *g;
	bool vary_quota;
};

static int probe_met(const struct probe *p, uint64_t us, bool *met)
{
	uint64_t v = us * BC_NS_PER_US;
	struct bwr_result worst;
	int ret;

	ret = p->vary_quota ? replay_at(p->t, p->m, v, 0, &worst, NULL) :
			      replay_at(p->t, p->m, p->m->cfg.quota, v, &worst, NULL);
	if (!ret)
		*met = bc_goal_met(p->g, &worst);
	return ret;
}

/*
 * The smallest value in [lo, hi] that meets the goal, when hi does. A
 * bisection: a larger burst or quota never serves less by any time
 * (docs/burstctl.md, "How advise decides"), so the worst phase's throttles
 * and delays do not grow with it.
 */
static int smallest(const struct probe *p, uint64_t lo, uint64_t hi, bool *found, uint64_t *us)
{
	bool met;
	int ret = probe_met(p, hi, &met);

	*found = !ret && met;
	while (*found && lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		ret = probe_met(p, mid, &met);
		if (ret)
			return ret;
		if (met)
			hi = mid;
		else
			lo = mid + 1;
	}
	*us = hi;
	return ret;
}

/*
 * A burst past this adds nothing: the pool only grows by a quota per
 * period, so over the trace and the drain of everything it asked for it
 * cannot hold more.
 */
static uint64_t useful_burst_us(const struct bc_trace *t, const struct bc_model *m)
{
	uint64_t periods = t->s[t->n - 1].t / m->cfg.period + 3, most = BWM_MAX_RUNTIME;

	if (t->cpu < BWM_MAX_RUNTIME && periods < BWM_MAX_RUNTIME / m->cfg.quota &&
	    m->cfg.quota * periods < BWM_MAX_RUNTIME - t->cpu)
		most = m->cfg.quota * periods + t->cpu;
	return (most + BC_NS_PER_US - 1) / BC_NS_PER_US;
}

/* Past cpus x period a group can never run its pool dry. */
static uint64_t useful_quota_us(const struct bc_model *m)
{
	uint64_t most = m->cfg.cpus * m->cfg.period;

	return (most > BWM_MAX_RUNTIME ? BWM_MAX_RUNTIME : most) / BC_NS_PER_US;
}

/*
 * The table's bursts when none were asked for: 0 to 3/2 of the answer in
 * quarters, or up to four quotas when there is none.
 */
static size_t default_bursts(const struct bc_advice *a, const struct bc_model *m, uint64_t *b)
{
	static const unsigned int quarters[] = { 0, 1, 2, 3, 4, 6 };
	static const unsigned int quotas[] = { 0, 1, 2, 4 };
	uint64_t us = a->burst / BC_NS_PER_US;
	size_t i;

	if (!a->met) {
		for (i = 0; i < ARRAY_SIZE(quotas); i++)
			b[i] = m->cfg.quota * quotas[i];
		return i;
	}
	if (!us) {
		b[0] = 0;
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(quarters); i++)
		b[i] = us * quarters[i] / 4 * BC_NS_PER_US;
	return i;
}

int bc_advise(const struct bc_trace *t, const struct bc_model *m, const struct bc_goal *g,
	      const uint64_t *bursts, size_t nbursts, struct bc_advice *a)
{
	struct probe p = { .t = t, .m = m, .g = g };
	uint64_t defaults[BC_ROWS_MAX], us = 0;
	size_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = smallest(&p, 0, useful_burst_us(t, m), &a->met, &us);
	a->burst = us * BC_NS_PER_US;
	p.vary_quota = true;
	if (!ret)
		ret = smallest(&p, BWM_MIN_PERIOD / BC_NS_PER_US, useful_quota_us(m), &a->quota_met, &us);
	a->quota = us * BC_NS_PER_US;
	if (!nbursts) {
		nbursts = default_bursts(a, m, defaults);
		bursts = defaults;
	}
	for (i = 0; !ret && i < nbursts && i < BC_ROWS_MAX; i++) {
		a->rows[i].burst = bursts[i];
		ret = replay_at(t, m, m->cfg.quota, bursts[i], &a->rows[i].worst, &a->rows[i].best);
	}
	a->nrows = i;
	return ret;
}

/* --- the command ------------------------------------------------------------ */

static const char usage[] =
"Usage: burstctl advise TRACE --quota Q [OPTION]...\n"
"Replay a demand trace (burstctl record) through the model of the kernel's\n"
"refill rule and print the smallest burst that meets the goal at quota Q in\n"
"the worst phase of the period, a table of bursts, and the smallest quota\n"
"that would meet it with no burst; then what a kernel without the series\n"
"(burst at most quota) does at the same share with any period from 1 ms to\n"
"1 s, and whether the load needs the patched kernel. TRACE - reads standard\n"
"input.\n"
"\n"
"%s"
"  --max-throttled-periods N   the goal: at most N throttled periods (default 0)\n"
"  --target-p99-delay T        the goal instead: the 99th percentile of the delay\n"
"                              throttling adds to the trace's samples at most T\n"
"                              (microseconds, or with a unit: 50ms)\n"
"  --phases N        phases of the period to take the worst of (default 20)\n"
"  --bursts B,B...   the table's bursts (default: around the answer)\n"
"  --json            one JSON object instead of the tables\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 when a burst meets the goal, 1 when none does at this quota,\n"
"2 on bad input.\n";

struct advise_args {
	const char *trace;
	struct bc_model m;
	struct bc_goal goal;
	const char *goal_opt;
	uint64_t bursts[BC_ROWS_MAX];
	size_t nbursts;
	bool json;
};

enum { OPT_MAX_THROTTLED = 256, OPT_P99, OPT_BURSTS, OPT_JSON };

static void parse_bursts(struct advise_args *a, const char *arg)
{
	char err[256], *list = strdup(arg), *s, *save;

	if (!list)
		bc_fail("advise", "out of memory");
	for (s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		if (a->nbursts == BC_ROWS_MAX)
			bc_usage_error("advise", "--bursts: at most %d bursts", BC_ROWS_MAX);
		if (bc_parse_time("--bursts", s, BC_NS_PER_US, &a->bursts[a->nbursts], err, sizeof(err)))
			bc_usage_error("advise", "%s", err);
		if (a->bursts[a->nbursts] % BC_NS_PER_US || a->bursts[a->nbursts] > BWM_MAX_RUNTIME)
			bc_usage_error("advise", "--bursts '%s': must be whole microseconds up to %lluus",
				       s, (unsigned long long)(BWM_MAX_RUNTIME / BC_NS_PER_US));
		a->nbursts++;
	}
	free(list);
	if (!a->nbursts)
		bc_usage_error("advise", "--bursts '': expected bursts separated by commas");
}

static void goal_opt(struct advise_args *a, int code, const char *opt, const char *val)
{
	char err[256];
	int ret;

	if (a->goal_opt && strcmp(a->goal_opt, opt))
		bc_usage_error("advise", "%s and %s: give one goal", a->goal_opt, opt);
	a->goal_opt = opt;
	a->goal.by_delay = code == OPT_P99;
	ret = a->goal.by_delay ?
		bc_parse_time(opt, val, BC_NS_PER_US, &a->goal.p99_delay, err, sizeof(err)) :
		bc_parse_count(opt, val, 0, UINT32_MAX, &a->goal.max_throttled, err, sizeof(err));
	if (ret)
		bc_usage_error("advise", "%s", err);
}

static void own_opt(int code, const char *val, void *arg)
{
	struct advise_args *a = arg;

	if (code == OPT_MAX_THROTTLED)
		goal_opt(a, code, "--max-throttled-periods", val);
	else if (code == OPT_P99)
		goal_opt(a, code, "--target-p99-delay", val);
	else if (code == OPT_BURSTS)
		parse_bursts(a, val);
	else
		a->json = true;
}

static void parse_args(int argc, char **argv, struct advise_args *a)
{
	static const struct option opts[] = {
		{ "phases", required_argument, NULL, BC_OPT_PHASES },
		{ "max-throttled-periods", required_argument, NULL, OPT_MAX_THROTTLED },
		{ "target-p99-delay", required_argument, NULL, OPT_P99 },
		{ "bursts", required_argument, NULL, OPT_BURSTS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct bc_cmd cmd = { "advise", usage, opts, own_opt, a };

	memset(a, 0, sizeof(*a));
	a->trace = bc_model_args(&cmd, argc, argv, &a->m);
}

static void print_row(const struct bc_row *r, const struct advise_args *a, bool answer)
{
	char b[32], thr[32], p99[32], max[32];

	printf("%9s  %10llu %7llu  %10s  %10s  %10s%s\n", bc_ms(r->burst, b, sizeof(b)),
	       (unsigned long long)r->worst.throttled_periods,
	       (unsigned long long)r->best.throttled_periods,
	       bc_ms(r->worst.throttled_ns, thr, sizeof(thr)),
	       bc_ms(r->worst.delay_p99, p99, sizeof(p99)),
	       bc_ms(r->worst.delay_max, max, sizeof(max)),
	       answer ? "   <- the smallest burst that meets the goal" :
	       bc_goal_met(&a->goal, &r->worst) ? "" : "   misses the goal");
}

static void print_head(const struct bc_trace *t, const struct advise_args *a)
{
	const struct bwr_config *c = &a->m.cfg;
	uint64_t span = t->s[t->n - 1].t;
	char cpu[32], q[32], p[32], d[32];

	printf("trace %s: %zu samples over %.1f s, %s ms of CPU (%.3f CPUs on average), %u CPUs\n",
	       a->trace, t->n, (double)span / BC_NS_PER_S, bc_ms(t->cpu, cpu, sizeof(cpu)),
	       (double)t->cpu / span, c->cpus);
	printf("limit: quota %s ms per %s ms period (%.2f CPUs), %s at the start\n",
	       bc_ms(c->quota, q, sizeof(q)), bc_ms(c->period, p, sizeof(p)),
	       (double)c->quota / c->period, c->start_full ? "a full pool" : "a new limit");
	if (a->goal.by_delay)
		printf("goal: added delay p99 at most %s ms", bc_ms(a->goal.p99_delay, d, sizeof(d)));
	else
		printf("goal: at most %llu throttled periods", (unsigned long long)a->goal.max_throttled);
	printf(", in the worst of %u phases of the period\n\n", a->m.phases);
	printf("    burst   throttled periods   throttled   delay p99   delay max\n");
	printf("       ms       worst    best          ms          ms          ms\n");
}

static void print_text(const struct bc_trace *t, const struct advise_args *a,
		       const struct bc_advice *adv)
{
	const struct bwr_config *c = &a->m.cfg;
	char b[32], q[32], p[32];
	bool shown = false;
	size_t i;

	print_head(t, a);
	for (i = 0; i < adv->nrows; i++) {
		bool answer = adv->met && !shown && adv->rows[i].burst == adv->burst;

		shown |= answer;
		print_row(&adv->rows[i], a, answer);
	}
	putchar('\n');
	if (adv->met)
		printf("burst: %s ms (cpu.max.burst %llu, podman run --cpu-burst %llu)\n",
		       bc_ms(adv->burst, b, sizeof(b)), (unsigned long long)(adv->burst / BC_NS_PER_US),
		       (unsigned long long)(adv->burst / BC_NS_PER_US));
	else
		printf("burst: none meets the goal at this quota\n");
	if (adv->quota_met)
		printf("without burst, the smallest quota that meets the goal: %s ms per %s ms period (%.2f CPUs)\n",
		       bc_ms(adv->quota, q, sizeof(q)), bc_ms(c->period, p, sizeof(p)),
		       (double)adv->quota / c->period);
	else
		printf("without burst, no quota meets the goal: the trace wants more than %u CPUs can give\n",
		       c->cpus);
}

/* --- what mainline does at the same share --------------------------------------- */

/* The rows shown of mainline's grid: 1, 2 and 5 per decade, the user's period and the best. */
static bool shown_period(const struct bc_mainline *ml, size_t i)
{
	uint64_t us = ml->rows[i].period / BC_NS_PER_US;

	while (us % 10 == 0)
		us /= 10;
	return us == 1 || us == 2 || us == 5 || i == ml->best || (ml->have_own && i == ml->own);
}

static void print_mainline_row(const struct bc_mainline *ml, size_t i, const struct advise_args *a)
{
	const struct bc_mainline_row *r = &ml->rows[i];
	char p[32], q[32], thr[32], p99[32], max[32];
	bool own = ml->have_own && i == ml->own;

	printf("%9s %8s  %10llu %7llu  %10s  %10s  %10s%s%s%s\n", bc_ms(r->period, p, sizeof(p)),
	       bc_ms(r->quota, q, sizeof(q)), (unsigned long long)r->worst.throttled_periods,
	       (unsigned long long)r->best.throttled_periods,
	       bc_ms(r->worst.throttled_ns, thr, sizeof(thr)),
	       bc_ms(r->worst.delay_p99, p99, sizeof(p99)),
	       bc_ms(r->worst.delay_max, max, sizeof(max)),
	       bc_goal_met(&a->goal, &r->worst) ? "" : "   misses the goal",
	       own ? "   <- your period" : "", i == ml->best ? "   <- mainline's best" : "");
}

static void print_verdict(const struct advise_args *a, const struct bc_advice *adv,
			  const struct bc_mainline *ml)
{
	const struct bc_mainline_row *best = &ml->rows[ml->best];
	const struct bc_mainline_row *own = ml->have_own ? &ml->rows[ml->own] : NULL;
	char p[32], q[32], b[32];

	bc_ms(adv->burst, b, sizeof(b));
	if (bc_goal_met(&a->goal, &best->worst)) {
		printf("verdict: mainline meets this goal with period %s ms, quota %s ms and burst = quota: this load does not need the patched kernel.\n",
		       bc_ms(best->period, p, sizeof(p)), bc_ms(best->quota, q, sizeof(q)));
		if (!own || bc_goal_met(&a->goal, &own->worst))
			return;
		printf("At your period, %s ms (on Kubernetes the kubelet sets one period for the node), mainline does not meet it; ",
		       bc_ms(a->m.cfg.period, p, sizeof(p)));
		if (adv->met)
			printf("the patched kernel does, with burst %s ms.\n", b);
		else
			printf("nor does the patched kernel at this quota.\n");
	} else if (adv->met) {
		printf("verdict: no mainline setting at %.2f CPUs (periods 1 ms to 1 s, burst at most quota) meets this goal; the patched kernel does, with burst %s ms at your period: this load needs it.\n",
		       (double)a->m.cfg.quota / a->m.cfg.period, b);
	} else {
		printf("verdict: neither mainline (any period, burst at most quota) nor the patched kernel at this quota meets this goal: the load needs more CPU than %.2f.\n",
		       (double)a->m.cfg.quota / a->m.cfg.period);
	}
}

static void print_mainline(const struct advise_args *a, const struct bc_advice *adv,
			   const struct bc_mainline *ml)
{
	size_t i;

	printf("\nmainline (no series: burst at most quota, any period) at the same %.2f CPUs, burst = quota:\n\n",
	       (double)a->m.cfg.quota / a->m.cfg.period);
	printf("   period    quota   throttled periods   throttled   delay p99   delay max\n");
	printf("       ms       ms       worst    best          ms          ms          ms\n");
	for (i = 0; i < ml->nrows; i++)
		if (shown_period(ml, i))
			print_mainline_row(ml, i, a);
	putchar('\n');
	print_verdict(a, adv, ml);
}

static void json_u64_or_null(const char *key, bool have, uint64_t v, const char *sep)
{
	if (have)
		printf("\"%s\":%llu%s", key, (unsigned long long)v, sep);
	else
		printf("\"%s\":null%s", key, sep);
}

static void json_mainline_row(const char *key, const struct bc_mainline_row *r,
			      const struct advise_args *a)
{
	printf("\"%s\":", key);
	if (!r) {
		printf("null,");
		return;
	}
	printf("{\"period_us\":%llu,\"quota_us\":%llu,\"burst_us\":%llu,"
	       "\"throttled_periods\":{\"worst\":%llu,\"best\":%llu},\"throttled_us\":%llu,"
	       "\"delay_p99_us\":%llu,\"delay_max_us\":%llu,\"meets_goal\":%s},",
	       (unsigned long long)(r->period / BC_NS_PER_US), (unsigned long long)(r->quota / BC_NS_PER_US),
	       (unsigned long long)(r->quota / BC_NS_PER_US),
	       (unsigned long long)r->worst.throttled_periods, (unsigned long long)r->best.throttled_periods,
	       (unsigned long long)(r->worst.throttled_ns / BC_NS_PER_US),
	       (unsigned long long)(r->worst.delay_p99 / BC_NS_PER_US),
	       (unsigned long long)(r->worst.delay_max / BC_NS_PER_US),
	       bc_goal_met(&a->goal, &r->worst) ? "true" : "false");
}

static void json_mainline(const struct advise_args *a, const struct bc_advice *adv,
			  const struct bc_mainline *ml)
{
	const struct bc_mainline_row *best = &ml->rows[ml->best];
	const struct bc_mainline_row *own = ml->have_own ? &ml->rows[ml->own] : NULL;
	bool best_met = bc_goal_met(&a->goal, &best->worst);

	printf(",\"mainline\":{\"periods_tried\":%zu,", ml->nrows);
	json_mainline_row("best", best, a);
	json_mainline_row("own_period", own, a);
	printf("\"needs_patched_kernel\":%s,\"needs_patched_kernel_at_own_period\":%s}",
	       !best_met && adv->met ? "true" : "false",
	       own && !bc_goal_met(&a->goal, &own->worst) && adv->met ? "true" : "false");
}

static void print_json(const struct bc_trace *t, const struct advise_args *a,
		       const struct bc_advice *adv, const struct bc_mainline *ml)
{
	const struct bwr_config *c = &a->m.cfg;
	size_t i;

	printf("{\"trace\":");
	bc_json_str(stdout, a->trace);
	printf(",\"samples\":%zu,\"duration_us\":%llu,\"cpu_us\":%llu,\"cpus\":%u,", t->n,
	       (unsigned long long)(t->s[t->n - 1].t / BC_NS_PER_US),
	       (unsigned long long)(t->cpu / BC_NS_PER_US), c->cpus);
	json_u64_or_null("recorded_throttled_periods", t->have_throttled, t->throttled, ",");
	printf("\"quota_us\":%llu,\"period_us\":%llu,\"start\":\"%s\",\"onset_percent\":%u,\"phases\":%u,",
	       (unsigned long long)(c->quota / BC_NS_PER_US), (unsigned long long)(c->period / BC_NS_PER_US),
	       c->start_full ? "full" : "fresh", c->onset_percent, a->m.phases);
	if (a->goal.by_delay)
		printf("\"goal\":{\"p99_delay_us\":%llu},", (unsigned long long)(a->goal.p99_delay / BC_NS_PER_US));
	else
		printf("\"goal\":{\"max_throttled_periods\":%llu},", (unsigned long long)a->goal.max_throttled);
	json_u64_or_null("burst_us", adv->met, adv->burst / BC_NS_PER_US, ",");
	json_u64_or_null("quota_without_burst_us", adv->quota_met, adv->quota / BC_NS_PER_US, ",");
	printf("\"table\":[");
	for (i = 0; i < adv->nrows; i++) {
		const struct bc_row *r = &adv->rows[i];

		printf("%s{\"burst_us\":%llu,\"throttled_periods\":{\"worst\":%llu,\"best\":%llu},"
		       "\"throttled_us\":%llu,\"delay_p99_us\":%llu,\"delay_max_us\":%llu,\"meets_goal\":%s}",
		       i ? "," : "", (unsigned long long)(r->burst / BC_NS_PER_US),
		       (unsigned long long)r->worst.throttled_periods,
		       (unsigned long long)r->best.throttled_periods,
		       (unsigned long long)(r->worst.throttled_ns / BC_NS_PER_US),
		       (unsigned long long)(r->worst.delay_p99 / BC_NS_PER_US),
		       (unsigned long long)(r->worst.delay_max / BC_NS_PER_US),
		       bc_goal_met(&a->goal, &r->worst) ? "true" : "false");
	}
	printf("]");
	json_mainline(a, adv, ml);
	printf("}\n");
}

int bc_advise_main(int argc, char **argv)
{
	struct advise_args a;
	struct bc_mainline ml;
	struct bc_advice adv;
	struct bc_trace t;
	int ret;

	parse_args(argc, argv, &a);
	bc_model_load("advise", a.trace, &a.m, &t);
	ret = bc_advise(&t, &a.m, &a.goal, a.bursts, a.nbursts, &adv);
	if (!ret)
		ret = bc_mainline(&t, &a.m, &a.goal, &ml);
	if (ret)
		bc_fail("advise", "replay: %s", strerror(-ret));
	if (a.json) {
		print_json(&t, &a, &adv, &ml);
	} else {
		print_text(&t, &a, &adv);
		print_mainline(&a, &adv, &ml);
	}
	bc_trace_free(&t);
	return adv.met ? 0 : BC_EXIT_FAIL;
}
