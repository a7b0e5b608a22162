// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl status: the limit, the pool and the bandwidth counters of
 * groups, with their rates over an interval, as a table or JSON, once or
 * refreshed (--watch) like iostat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bc.h"

static const char usage[] =
"Usage: burstctl status [TARGET]... [OPTION]...\n"
"Show each group's CPU limit (quota, period, burst), its burst pool\n"
"(current_bw_usec: kernels with the burst-cfs series; n/a elsewhere), the\n"
"counters of cpu.stat, and their rates over an interval. A TARGET is a\n"
"cgroup directory (absolute, or a path below the cgroup2 mount) or a podman\n"
"container (its name, its id or a prefix of it); without one, every group\n"
"with a CPU limit.\n"
"\n"
"  -i, --interval I   measure rates over I (seconds, or with a unit: 500ms;\n"
"                     default 1s; 0: one reading, no rates)\n"
"  -w, --watch        keep reporting, every I, until interrupted\n"
"  -n, --count N      with --watch, stop after N reports\n"
"      --root DIR     the cgroup2 tree to search (default: its mount)\n"
"      --json         a JSON object per report, one a line\n"
"  -h, --help         this text\n";

struct status_args {
	char **targets;
	int ntargets;
	char root[4096];
	uint64_t interval;
	bool watch, json;
	uint64_t count;		/* 0: no end */
};

/* A group and what it read; ok is false when it could not be read. */
struct snap {
	struct bc_group g;
	struct bc_reading r;
	bool ok;
};

struct report {
	struct snap *s;
	size_t n;
};

enum { OPT_ROOT = 1300, OPT_JSON };

static void parse_args(int argc, char **argv, struct status_args *a)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "watch", no_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	memset(a, 0, sizeof(*a));
	a->interval = BC_NS_PER_S;
	while ((c = getopt_long(argc, argv, "i:wn:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		} else if (c == 'i') {
			if (bc_parse_time("--interval", optarg, BC_NS_PER_S, &a->interval, err, sizeof(err)))
				bc_usage_error("status", "%s", err);
		} else if (c == 'n') {
			if (bc_parse_count("--count", optarg, 1, UINT32_MAX, &a->count, err, sizeof(err)))
				bc_usage_error("status", "%s", err);
		} else if (c == 'w') {
			a->watch = true;
		} else if (c == OPT_JSON) {
			a->json = true;
		} else if (c == OPT_ROOT) {
			snprintf(a->root, sizeof(a->root), "%s", optarg);
		} else {
			bc_usage_error("status", "see burstctl status --help");
		}
	}
	if (a->watch && !a->interval)
		bc_usage_error("status", "--watch needs an --interval above 0");
	if (a->count && !a->watch)
		bc_usage_error("status", "--count goes with --watch");
	if (!a->root[0] && bc_cgroup_root(a->root, sizeof(a->root)))
		bc_fail("status", "no cgroup2 mount in /proc/self/mountinfo: cgroup v1 is not supported");
	a->targets = argv + optind;
	a->ntargets = argc - optind;
}

/* The groups to report: the targets (resolved once), or every limited group now. */
static void groups(const struct status_args *a, struct report *rep)
{
	struct bc_group *g = NULL;
	char err[512];
	size_t i, n = 0;

	if (a->ntargets) {
		g = calloc((size_t)a->ntargets, sizeof(*g));
		if (!g)
			bc_fail("status", "out of memory");
		for (n = 0; n < (size_t)a->ntargets; n++)
			if (bc_resolve(a->root, a->targets[n], &g[n], err, sizeof(err)))
				bc_usage_error("status", "%s", err);
	} else if (bc_limited_groups(a->root, &g, &n)) {
		bc_fail("status", "%s: cannot list its groups", a->root);
	}
	rep->s = calloc(n ? n : 1, sizeof(*rep->s));
	if (!rep->s)
		bc_fail("status", "out of memory");
	for (i = 0; i < n; i++)
		rep->s[i].g = g[i];
	rep->n = n;
	free(g);
}

static void read_all(struct report *rep)
{
	size_t i;

	for (i = 0; i < rep->n; i++)
		rep->s[i].ok = !bc_read(rep->s[i].g.dir, &rep->s[i].r);
}

/* The same group in the earlier report, when it was read there. */
static const struct bc_reading *before(const struct report *prev, const struct snap *s)
{
	size_t i;

	for (i = 0; prev && i < prev->n; i++)
		if (prev->s[i].ok && !strcmp(prev->s[i].g.dir, s->g.dir))
			return &prev->s[i].r;
	return NULL;
}

/* Per second, of counter k; negative when it cannot be had (went back, absent). */
static double rate(const struct bc_reading *b, const struct bc_reading *r, enum cg_stat k)
{
	if (!b || !b->st.have[k] || !r->st.have[k] || r->st.v[k] < b->st.v[k] ||
	    r->time_ns <= b->time_ns)
		return -1;
	return (double)(r->st.v[k] - b->st.v[k]) * BC_NS_PER_S / (double)(r->time_ns - b->time_ns);
}

/* --- text ------------------------------------------------------------------- */

static const char *ms_or(bool have, uint64_t us, const char *none, char *buf, size_t len)
{
	if (!have)
		return none;
	return bc_ms(us * BC_NS_PER_US, buf, len);
}

static const char *count_or(bool have, uint64_t v, char *buf, size_t len)
{
	if (!have)
		return "n/a";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static const char *rate_str(double v, double scale, const char *fmt, char *buf, size_t len)
{
	if (v < 0)
		return "-";
	snprintf(buf, len, fmt, v * scale);
	return buf;
}

static void text_head(int w, bool rates)
{
	printf("%-*s %7s %7s %7s %7s %9s %9s %9s %8s %9s", w, "group", "quota", "period", "burst",
	       "pool", "periods", "throttled", "throttled", "bursts", "burst");
	if (rates)
		printf(" | %6s %7s %9s %9s %7s %7s", "cpus", "periods", "throttled", "throttled",
		       "bursts", "burst");
	printf("\n%-*s %7s %7s %7s %7s %9s %9s %9s %8s %9s", w, "", "ms", "ms", "ms", "ms", "", "",
	       "ms", "", "ms");
	if (rates)
		printf(" | %6s %7s %9s %9s %7s %7s", "", "/s", "/s", "ms/s", "/s", "ms/s");
	putchar('\n');
}

static void text_row(const struct snap *s, const struct bc_reading *b, int w)
{
	const struct bc_reading *r = &s->r;
	const uint64_t *v = r->st.v;
	const bool *have = r->st.have;
	char q[32], p[32], bu[32], po[32], n1[32], n2[32], t[32], n3[32], bt[32];
	char c[32], r1[32], r2[32], r3[32], r4[32], r5[32];

	printf("%-*s %7s %7s %7s %7s %9s %9s %9s %8s %9s", w, s->g.label,
	       ms_or(r->quota_us, r->quota_us, "max", q, sizeof(q)),
	       ms_or(r->period_us, r->period_us, "-", p, sizeof(p)),
	       ms_or(r->have_burst, r->burst_us, "n/a", bu, sizeof(bu)),
	       ms_or(r->have_pool, r->pool_us, "n/a", po, sizeof(po)),
	       count_or(have[CG_NR_PERIODS], v[CG_NR_PERIODS], n1, sizeof(n1)),
	       count_or(have[CG_NR_THROTTLED], v[CG_NR_THROTTLED], n2, sizeof(n2)),
	       ms_or(have[CG_THROTTLED_USEC], v[CG_THROTTLED_USEC], "n/a", t, sizeof(t)),
	       count_or(have[CG_NR_BURSTS], v[CG_NR_BURSTS], n3, sizeof(n3)),
	       ms_or(have[CG_BURST_USEC], v[CG_BURST_USEC], "n/a", bt, sizeof(bt)));
	if (b)
		printf(" | %6s %7s %9s %9s %7s %7s",
		       rate_str(rate(b, r, CG_USAGE_USEC), 1e-6, "%.3f", c, sizeof(c)),
		       rate_str(rate(b, r, CG_NR_PERIODS), 1, "%.2f", r1, sizeof(r1)),
		       rate_str(rate(b, r, CG_NR_THROTTLED), 1, "%.2f", r2, sizeof(r2)),
		       rate_str(rate(b, r, CG_THROTTLED_USEC), 1e-3, "%.1f", r3, sizeof(r3)),
		       rate_str(rate(b, r, CG_NR_BURSTS), 1, "%.2f", r4, sizeof(r4)),
		       rate_str(rate(b, r, CG_BURST_USEC), 1e-3, "%.1f", r5, sizeof(r5)));
	putchar('\n');
}

static void when(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_text(const struct status_args *a, const struct report *prev,
		       const struct report *rep)
{
	char t[32], iv[32];
	int w = 5;
	size_t i;

	for (i = 0; i < rep->n; i++)
		if ((int)strlen(rep->s[i].g.label) > w)
			w = (int)strlen(rep->s[i].g.label);
	when(t, sizeof(t));
	if (prev)
		printf("%s, rates over %s\n", t, bc_time_str(a->interval, iv, sizeof(iv)));
	else
		printf("%s\n", t);
	text_head(w, prev);
	for (i = 0; i < rep->n; i++) {
		if (!rep->s[i].ok)
			printf("%-*s (gone)\n", w, rep->s[i].g.label);
		else
			text_row(&rep->s[i], prev ? before(prev, &rep->s[i]) : NULL, w);
	}
	if (!rep->n)
		printf("(no group under %s has a CPU limit)\n", a->root);
}

/* --- JSON ------------------------------------------------------------------- */

static void json_num(const char *key, bool have, uint64_t v)
{
	if (have)
		printf(",\"%s\":%llu", key, (unsigned long long)v);
	else
		printf(",\"%s\":null", key);
}

static void json_rates(const struct bc_reading *b, const struct bc_reading *r)
{
	int k;

	if (!b) {
		printf(",\"rates\":null");
		return;
	}
	printf(",\"rates\":{");
	for (k = 0; k < CG_NSTAT; k++) {
		double v = rate(b, r, k);

		printf("%s\"%s\":", k ? "," : "", cg_stat_names[k]);
		if (v < 0)
			printf("null");
		else
			printf("%.3f", v);
	}
	printf("}");
}

static void json_group(const struct snap *s, const struct bc_reading *b)
{
	const struct bc_reading *r = &s->r;
	int k;

	printf("{\"group\":");
	bc_json_str(stdout, s->g.label);
	printf(",\"path\":");
	bc_json_str(stdout, s->g.dir);
	json_num("quota_us", r->quota_us, r->quota_us);
	json_num("period_us", r->period_us, r->period_us);
	json_num("burst_us", r->have_burst, r->burst_us);
	json_num("pool_us", r->have_pool, r->pool_us);
	for (k = 0; k < CG_NSTAT; k++)
		json_num(cg_stat_names[k], r->st.have[k], r->st.v[k]);
	json_rates(b, r);
	printf("}");
}

static void print_json(const struct status_args *a, const struct report *prev,
		       const struct report *rep)
{
	char t[32];
	size_t i, shown = 0;

	when(t, sizeof(t));
	printf("{\"time\":\"%s\",\"interval_s\":%.3f,\"groups\":[", t,
	       prev ? (double)a->interval / BC_NS_PER_S : 0.0);
	for (i = 0; i < rep->n; i++) {
		if (!rep->s[i].ok)
			continue;
		printf("%s", shown++ ? "," : "");
		json_group(&rep->s[i], prev ? before(prev, &rep->s[i]) : NULL);
	}
	printf("]}\n");
}

/* --- the loop ------------------------------------------------------------------- */

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / BC_NS_PER_S), (long)(ns % BC_NS_PER_S) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void report(const struct status_args *a, const struct report *prev, const struct report *rep)
{
	if (a->json)
		print_json(a, prev, rep);
	else
		print_text(a, prev, rep);
	fflush(stdout);
}

int bc_status(int argc, char **argv)
{
	struct status_args a;
	struct report prev = { 0 }, cur = { 0 };
	uint64_t next, reports = 0;

	parse_args(argc, argv, &a);
	groups(&a, &cur);
	read_all(&cur);
	if (!a.interval) {
		report(&a, NULL, &cur);
		return 0;
	}
	for (next = bc_now_ns() + a.interval;; next += a.interval) {
		free(prev.s);
		prev = cur;
		sleep_until(next);
		if (a.ntargets) {
			/* The same targets, read again: no second lookup. */
			cur.s = malloc(prev.n * sizeof(*cur.s) + 1);
			if (!cur.s)
				bc_fail("status", "out of memory");
			memcpy(cur.s, prev.s, prev.n * sizeof(*cur.s));
			cur.n = prev.n;
		} else {
			groups(&a, &cur);
		}
		read_all(&cur);
		report(&a, &prev, &cur);
		if (!a.watch || (a.count && ++reports == a.count))
			break;
		if (!a.json)
			putchar('\n');
	}
	free(prev.s);
	free(cur.s);
	return 0;
}
