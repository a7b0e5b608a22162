// SPDX-License-Identifier: GPL-2.0
/* burstctl simulate: the model's period-by-period view of a trace under one limit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

static const char usage[] =
"Usage: burstctl simulate TRACE --quota Q --burst B [OPTION]...\n"
"Replay a demand trace (burstctl record) through the model of the kernel's\n"
"refill rule under one limit and show it period by period: the pool after\n"
"each refill, the demand, what the group got, what was left waiting, and\n"
"the time it was throttled. TRACE - reads standard input.\n"
"\n"
"%s"
"  --burst B          the burst (microseconds, or with a unit: 20ms)\n"
"  --phase X          the first period boundary, X after the trace's start\n"
"                     (default: the recording's own, from its monotonic start)\n"
"  --csv              CSV with a header and units instead of the table\n"
"  --json             one JSON object instead of the table\n"
"  -h, --help         this text\n";

enum format { TABLE, CSV, JSON };

struct sim_args {
	const char *trace;
	struct bc_model m;
	enum format format;
};

enum { OPT_CSV = 256, OPT_JSON };

static void own_opt(int code, const char *val, void *arg)
{
	struct sim_args *a = arg;

	(void)val;
	a->format = code == OPT_CSV ? CSV : JSON;
}

static void parse_args(int argc, char **argv, struct sim_args *a)
{
	static const struct option opts[] = {
		{ "burst", required_argument, NULL, BC_OPT_BURST },
		{ "phase", required_argument, NULL, BC_OPT_PHASE },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct bc_cmd cmd = { "simulate", usage, opts, own_opt, a };

	memset(a, 0, sizeof(*a));
	a->trace = bc_model_args(&cmd, argc, argv, &a->m);
	if (!a->m.burst)
		bc_usage_error("simulate", "--burst is required (microseconds, or with a unit: 20ms)");
}

struct view {
	enum format format;
	unsigned int n;
};

#define US(ns) ((unsigned long long)((ns) / BC_NS_PER_US))

static void show_period(const struct bwr_period *p, void *arg)
{
	struct view *v = arg;
	char d[32], u[32], ps[32], b[32], t[32];

	v->n++;
	if (v->format == CSV) {
		printf("%u,%llu,%llu,%llu,%llu,%llu,%llu,%d,%llu\n", v->n, US(p->start), US(p->end),
		       US(p->pool_start), US(p->demand), US(p->used), US(p->backlog), p->throttled,
		       US(p->throttled_ns));
	} else if (v->format == JSON) {
		printf("%s{\"start_us\":%llu,\"end_us\":%llu,\"pool_start_us\":%llu,\"demand_us\":%llu,"
		       "\"used_us\":%llu,\"backlog_us\":%llu,\"throttled\":%s,\"throttled_us\":%llu}",
		       v->n > 1 ? "," : "", US(p->start), US(p->end), US(p->pool_start),
		       US(p->demand), US(p->used), US(p->backlog), p->throttled ? "true" : "false",
		       US(p->throttled_ns));
	} else {
		printf("%7u %9.3f %8s %8s %8s %8s %10s\n", v->n, (double)p->start / BC_NS_PER_S,
		       bc_ms(p->pool_start, ps, sizeof(ps)), bc_ms(p->demand, d, sizeof(d)),
		       bc_ms(p->used, u, sizeof(u)), bc_ms(p->backlog, b, sizeof(b)),
		       p->throttled ? bc_ms(p->throttled_ns, t, sizeof(t)) : "-");
	}
}

static void print_head(const struct sim_args *a, const struct bc_trace *t)
{
	const struct bwr_config *c = &a->m.cfg;
	char q[32], p[32], b[32], ph[32];

	if (a->format == CSV) {
		printf("period,start_us,end_us,pool_start_us,demand_us,used_us,backlog_us,throttled,throttled_us\n");
		return;
	}
	if (a->format == JSON) {
		printf("{\"trace\":");
		bc_json_str(stdout, a->trace);
		printf(",\"quota_us\":%llu,\"period_us\":%llu,\"burst_us\":%llu,\"cpus\":%u,"
		       "\"start\":\"%s\",\"onset_percent\":%u,\"phase_us\":%llu,\"periods\":[",
		       US(c->quota), US(c->period), US(c->burst), c->cpus,
		       c->start_full ? "full" : "fresh", c->onset_percent, US(c->phase));
		return;
	}
	printf("trace %s: quota %s ms per %s ms period, burst %s ms, %u CPUs, %s at the start\n",
	       a->trace, bc_ms(c->quota, q, sizeof(q)), bc_ms(c->period, p, sizeof(p)),
	       bc_ms(c->burst, b, sizeof(b)), c->cpus, c->start_full ? "a full pool" : "a new limit");
	printf("first boundary %s ms after the start (%s)\n\n", bc_ms(c->phase, ph, sizeof(ph)),
	       a->m.phase ? "--phase" : t->have_start ? "the recording's own" :
	       "the trace does not say: a whole period");
	printf(" period     start     pool   demand     used  backlog  throttled\n");
	printf("                s       ms       ms       ms       ms         ms\n");
}

static void print_totals(const struct sim_args *a, const struct bwr_result *r)
{
	char thr[32], p99[32], max[32], drain[32], burst[32];

	if (a->format == CSV)
		return;
	if (a->format == JSON) {
		printf("],\"throttled_periods\":%llu,\"throttled_us\":%llu,\"delay_p99_us\":%llu,"
		       "\"delay_max_us\":%llu,\"drain_us\":%llu,\"nr_bursts\":%llu,\"burst_time_us\":%llu}\n",
		       (unsigned long long)r->throttled_periods, US(r->throttled_ns), US(r->delay_p99),
		       US(r->delay_max), US(r->drain_ns), (unsigned long long)r->nr_bursts,
		       US(r->burst_time));
		return;
	}
	printf("\n%llu periods, %llu throttled (%s ms); added delay p99 %s ms, max %s ms; "
	       "done %s ms after the trace's end; %llu bursts, %s ms beyond quota\n",
	       (unsigned long long)r->periods, (unsigned long long)r->throttled_periods,
	       bc_ms(r->throttled_ns, thr, sizeof(thr)), bc_ms(r->delay_p99, p99, sizeof(p99)),
	       bc_ms(r->delay_max, max, sizeof(max)), bc_ms(r->drain_ns, drain, sizeof(drain)),
	       (unsigned long long)r->nr_bursts, bc_ms(r->burst_time, burst, sizeof(burst)));
}

int bc_simulate(int argc, char **argv)
{
	struct sim_args a;
	struct bwr_result r;
	struct bc_trace t;
	struct view v;
	int ret;

	parse_args(argc, argv, &a);
	bc_model_load("simulate", a.trace, &a.m, &t);
	v = (struct view){ .format = a.format };
	print_head(&a, &t);
	ret = bwr_replay(t.s, t.n, &a.m.cfg, &r, show_period, &v);
	if (ret)
		bc_fail("simulate", "replay: %s", strerror(-ret));
	print_totals(&a, &r);
	bc_trace_free(&t);
	return 0;
}
