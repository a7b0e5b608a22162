/* SPDX-License-Identifier: GPL-2.0 */
/*
 * burstbench: the parts with no threads and no clocks, so the host unit
 * tests (bench/test-*.c) can check them: argument parsing, statistics,
 * and the parsers for the cgroup files the benchmark reports.
 */
#ifndef BURSTBENCH_BB_H
#define BURSTBENCH_BB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- options (args.c) ------------------------------------------------------ */

struct bb_opts {
	unsigned int threads;	/* worker threads */
	unsigned int batch;	/* requests per wake-up; 0 until parsed: = threads */
	double rate;		/* requests per second */
	uint64_t cputime_us;	/* CPU time each request spins */
	double runtime_s;	/* measured run time */
	double warmup_s;	/* run before measuring, not reported */
	bool json;
	const char *cgroup;	/* NULL: the process's own cgroup */
};

#define BB_EXIT_USAGE	2

enum bb_parse {
	BB_PARSE_OK,
	BB_PARSE_HELP,
	BB_PARSE_ERROR,		/* err holds the message */
};

void bb_opts_default(struct bb_opts *o);
/* Resets getopt state itself, so it can be called more than once. */
enum bb_parse bb_parse_args(int argc, char **argv, struct bb_opts *o, char *err, size_t errlen);
extern const char bb_usage[];
/*
 * The time between batches, batch/rate seconds, in ns rounded to nearest
 * and at least 1; 0 when it does not fit a uint64_t (or rate is not above
 * 0). bb_parse_args refuses a rate whose interval is 0 or longer than the
 * run, and burstbench paces its batches with this, so both agree.
 */
uint64_t bb_interval_ns(unsigned int batch, double rate);

/* --- statistics (stats.c) --------------------------------------------------- */

#define BB_NPCT	7
extern const double bb_pcts[BB_NPCT];	/* 50 75 90 95 99 99.5 99.9 */
extern const char *const bb_pct_names[BB_NPCT];

struct bb_summary {
	size_t n;
	uint64_t min, max, mean;
	uint64_t pct[BB_NPCT];
};

/* Nearest rank: the smallest value with at least p% of the samples <= it. */
uint64_t bb_percentile(const uint64_t *sorted, size_t n, double p);
/* Sorts v in place; an empty set gives all zeroes. */
void bb_summarise(uint64_t *v, size_t n, struct bb_summary *s);
/*
 * The most CPU a group limited to quota per period with burst may use in
 * elapsed time: quota for every period the window touches (at most
 * ceil(elapsed / period) + 1) plus what it had saved (at most burst).
 */
uint64_t bb_usage_bound(uint64_t quota, uint64_t period, uint64_t burst, uint64_t elapsed);
/*
 * How long the measured requests took to serve, ns: from start, when the
 * first measured batch was due, to the later of end, when the window
 * closes (one interval after the last measured batch was due), and
 * last_done, when the last measured request completed (0 if none did).
 */
uint64_t bb_served_ns(uint64_t start, uint64_t end, uint64_t last_done);
/* completed requests per second over elapsed ns; 0 when elapsed is 0. */
double bb_achieved_rps(uint64_t completed, uint64_t elapsed);

/* --- cgroup files (cgroup.c) ----------------------------------------------- */

enum bb_stat {
	BB_USAGE_USEC,
	BB_NR_PERIODS,
	BB_NR_THROTTLED,
	BB_THROTTLED_USEC,
	BB_NR_BURSTS,
	BB_BURST_USEC,
	BB_NSTAT,
};
extern const char *const bb_stat_names[BB_NSTAT];

struct bb_cpustat {
	uint64_t v[BB_NSTAT];
	bool have[BB_NSTAT];
};

/* The guest's CPU time by kind, the first line of /proc/stat (costbench). */
enum bb_procstat_kind {
	BB_CPU_USER,
	BB_CPU_NICE,
	BB_CPU_SYSTEM,
	BB_CPU_IDLE,
	BB_CPU_IOWAIT,
	BB_CPU_IRQ,
	BB_CPU_SOFTIRQ,
	BB_CPU_STEAL,
	BB_NPROCSTAT,
};
extern const char *const bb_procstat_names[BB_NPROCSTAT];

struct bb_procstat {
	uint64_t v[BB_NPROCSTAT];	/* clock ticks, summed over CPUs */
};

/*
 * The "cpu " line of a /proc/stat text: its first eight numbers (guest time
 * is already in user and nice). 0, or -EINVAL without such a line.
 */
int bb_parse_procstat(const char *text, struct bb_procstat *st);

/* Fills the keys it finds in a cpu.stat text; returns how many. */
int bb_parse_cpustat(const char *text, struct bb_cpustat *st);
/* after - before, for the keys both have. */
void bb_cpustat_delta(const struct bb_cpustat *before, const struct bb_cpustat *after,
		      struct bb_cpustat *delta);
/* "QUOTA PERIOD" or "max PERIOD"; quota 0 means no limit. 0 or -EINVAL. */
int bb_parse_cpumax(const char *text, uint64_t *quota, uint64_t *period);
/* A single decimal number (cpu.max.burst). 0 or -EINVAL. */
int bb_parse_u64(const char *text, uint64_t *v);
/* The cgroup2 path from a /proc/PID/cgroup text ("0::/a/b"). 0 or -ENOENT. */
int bb_own_cgroup(const char *proc_cgroup, char *out, size_t len);
/*
 * The directory of cgroup path cg (as /proc/self/cgroup shows it) given a
 * /proc/self/mountinfo text: the cgroup2 mount point plus cg relative to
 * the mount's root. 0, -ENOENT (no cgroup2 mount) or -ENAMETOOLONG.
 */
int bb_cgroup_dir(const char *mountinfo, const char *cg, char *out, size_t len);

#endif
