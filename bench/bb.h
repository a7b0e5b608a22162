/* SPDX-License-Identifier: GPL-2.0 */
/*
 * burstbench: the parts with no threads and no clocks, so the host unit
 * tests (bench/test-*.c) can check them: argument parsing and statistics.
 * The parsers for the cgroup files the benchmark reports are shared with
 * burstctl: lib/cgroup.h.
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
	double tail_alpha;	/* --tail: Pareto shape of request sizes; 0: every request cputime_us */
	uint64_t tail_max_us;	/* --tail-max: the largest request --tail draws */
	uint64_t seed;		/* --seed: which draws */
	uint64_t large_every;	/* --large: every large_every-th batch is large; 0: none */
	uint64_t large_us;	/* ... and its requests spin this long */
	bool latencies;		/* --latencies: every measured request's latency in the JSON */
};

#define BB_EXIT_USAGE	2

/*
 * The CPU time request k (counted from 0, warm-up included) spins, us: a
 * function of the options and k alone, so every run with the same options
 * asks for the same sizes whichever worker takes which request. With
 * --tail, a Pareto draw of shape alpha whose mean before the cap is
 * cputime_us, at most tail_max_us (and at least 1); a request of a
 * --large batch spins large_us instead.
 */
uint64_t bb_request_us(const struct bb_opts *o, uint64_t k);
/* The mean of bb_request_us over requests from..from+n-1 (what the load asks on average). */
double bb_mean_request_us(const struct bb_opts *o, uint64_t from, uint64_t n);

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

#endif
