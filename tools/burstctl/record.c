// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl record: sample a group's CPU usage at a fine interval and write
 * its demand trace (trace.c's format). The trace is the group's demand
 * only while nothing held it back: throttled periods during the recording
 * are counted, written into the trace and warned about.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bc.h"

#define MIN_INTERVAL	(100 * BC_NS_PER_US)

static const char usage[] =
"Usage: burstctl record TARGET --duration D [OPTION]...\n"
"Sample a group's CPU usage every interval for D and write its demand trace:\n"
"CSV with a header and units (time_us, cpu_us: CPU used since the row before,\n"
"nr_throttled), for burstctl advise and simulate. TARGET as for status.\n"
"Record without a limit (or under a generous one): a throttled group's usage\n"
"is what it got, not what it wanted; throttled periods are warned about.\n"
"Stops early, keeping what it has, when the group goes away or on SIGINT.\n"
"\n"
"  -d, --duration D   how long (seconds, or with a unit: 500ms)\n"
"  -i, --interval I   between samples (default: the group's period / 10,\n"
"                     at least 100us)\n"
"  -o, --output FILE  the trace (default: standard output)\n"
"      --root DIR     the cgroup2 tree to search (default: its mount)\n"
"  -h, --help         this text\n";

struct record_args {
	const char *target, *output;
	char root[4096];
	uint64_t duration, interval;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { OPT_ROOT = 1400 };

static void parse_args(int argc, char **argv, struct record_args *a)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	memset(a, 0, sizeof(*a));
	while ((c = getopt_long(argc, argv, "d:i:o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		} else if (c == 'd' || c == 'i') {
			if (bc_parse_time(c == 'd' ? "--duration" : "--interval", optarg, BC_NS_PER_S,
					  c == 'd' ? &a->duration : &a->interval, err, sizeof(err)))
				bc_usage_error("record", "%s", err);
		} else if (c == 'o') {
			a->output = optarg;
		} else if (c == OPT_ROOT) {
			snprintf(a->root, sizeof(a->root), "%s", optarg);
		} else {
			bc_usage_error("record", "see burstctl record --help");
		}
	}
	if (optind != argc - 1)
		bc_usage_error("record", "expected one TARGET (a cgroup or a podman container)");
	a->target = argv[optind];
	if (!a->duration)
		bc_usage_error("record", "--duration is required and must be more than 0");
	if (!a->root[0] && bc_cgroup_root(a->root, sizeof(a->root)))
		bc_fail("record", "no cgroup2 mount in /proc/self/mountinfo: cgroup v1 is not supported");
}

/* The interval: as asked, or a tenth of the period; within [100us, duration]. */
static void pick_interval(struct record_args *a, const struct bc_reading *r)
{
	char iv[32], d[32];

	if (!a->interval)
		a->interval = (r->period_us ? r->period_us : 100000) * BC_NS_PER_US / 10;
	if (a->interval < MIN_INTERVAL)
		bc_usage_error("record", "--interval %s: must be at least 100us",
			       bc_time_str(a->interval, iv, sizeof(iv)));
	if (a->interval > a->duration)
		bc_usage_error("record", "--interval %s: must not be longer than --duration %s",
			       bc_time_str(a->interval, iv, sizeof(iv)),
			       bc_time_str(a->duration, d, sizeof(d)));
}

/* A file's first line, for the trace's head. */
static const char *first_line(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4352];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "n/a");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void write_head(FILE *out, const struct record_args *a, const struct bc_group *g,
		       const struct bc_reading *r)
{
	char max[128], burst[128];
	struct bc_trace_meta m = {
		.target = a->target,
		.path = g->dir,
		.cpu_max = first_line(g->dir, "cpu.max", max, sizeof(max)),
		.cpu_max_burst = first_line(g->dir, "cpu.max.burst", burst, sizeof(burst)),
		.cpus = bc_group_cpus(g->dir),
		.interval_ns = a->interval,
		.start_ns = r->time_ns,
	};

	bc_trace_write_head(out, &m);
	bc_trace_write_row(out, 0, 0, 0);
}

struct totals {
	uint64_t rows, cpu_us, throttled, span_ns;
	bool gone;
};

/* Sample until the duration is over, the group is gone or a signal came. */
static void sample(FILE *out, const struct record_args *a, const struct bc_group *g,
		   const struct bc_reading *first, struct totals *tot)
{
	struct bc_reading prev = *first, r;
	uint64_t next = first->time_ns, t_us, last_us = 0;

	while (!stop && next - first->time_ns < a->duration) {
		struct timespec ts;

		next += a->interval;
		ts = (struct timespec){ (time_t)(next / BC_NS_PER_S), (long)(next % BC_NS_PER_S) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
		if (stop)
			break;
		if (bc_read(g->dir, &r)) {
			tot->gone = true;
			break;
		}
		t_us = (r.time_ns - first->time_ns) / BC_NS_PER_US;
		if (t_us <= last_us)
			continue;	/* two reads within a microsecond: the next row has both */
		bc_trace_write_row(out, t_us, r.st.v[CG_USAGE_USEC] - prev.st.v[CG_USAGE_USEC],
				   r.st.v[CG_NR_THROTTLED] - prev.st.v[CG_NR_THROTTLED]);
		tot->rows++;
		tot->cpu_us += r.st.v[CG_USAGE_USEC] - prev.st.v[CG_USAGE_USEC];
		tot->throttled += r.st.v[CG_NR_THROTTLED] - prev.st.v[CG_NR_THROTTLED];
		tot->span_ns = r.time_ns - first->time_ns;
		last_us = t_us;
		prev = r;
	}
}

static void finish(FILE *out, const struct record_args *a, const struct totals *tot)
{
	double secs = (double)tot->span_ns / BC_NS_PER_S;

	if (tot->gone)
		fprintf(out, "# ended: the group went away after %.3f s\n", secs);
	else if (stop)
		fprintf(out, "# ended: interrupted after %.3f s\n", secs);
	if (tot->throttled) {
		fprintf(out, "# warning: throttled in %llu periods: this is what the group got, not what it wanted\n",
			(unsigned long long)tot->throttled);
		bc_warn("record", "'%s' was throttled in %llu periods while recorded: the trace underestimates its demand, and advise the burst it needs; record it without a limit",
			a->target, (unsigned long long)tot->throttled);
	}
	fprintf(stderr, "burstctl record: %llu samples over %.3f s, %.1f ms of CPU, %llu throttled periods%s -> %s\n",
		(unsigned long long)tot->rows, secs, (double)tot->cpu_us / 1000,
		(unsigned long long)tot->throttled, tot->gone ? " (the group went away)" : "",
		a->output ? a->output : "standard output");
}

int bc_record(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct record_args a;
	struct bc_reading first;
	struct totals tot = { 0 };
	struct bc_group g;
	char err[512];
	FILE *out = stdout;

	parse_args(argc, argv, &a);
	if (bc_resolve(a.root, a.target, &g, err, sizeof(err)))
		bc_usage_error("record", "%s", err);
	if (bc_read(g.dir, &first))
		bc_usage_error("record", "'%s': cannot read %s/cpu.stat", a.target, g.dir);
	pick_interval(&a, &first);
	if (a.output)
		out = fopen(a.output, "w");
	if (!out)
		bc_fail("record", "%s: %s", a.output, strerror(errno));
	/* No SA_RESTART: the sleep ends at once and the trace is closed properly. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	write_head(out, &a, &g, &first);
	sample(out, &a, &g, &first, &tot);
	finish(out, &a, &tot);
	if (fflush(out) || ferror(out) || (out != stdout && fclose(out)))
		bc_fail("record", "%s: write error", a.output ? a.output : "standard output");
	return 0;
}
