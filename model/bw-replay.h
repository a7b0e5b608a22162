/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay of a CPU demand trace through the reference model's refill rule
 * (bw-model.h: bwm_set, bwm_refill, bwm_spend): what a group limited to a
 * quota per period with a burst would have got, period by period, had it
 * wanted what the trace shows. burstctl's advise and simulate use it, and
 * the benchmark can count the throttles the model says were avoidable.
 *
 * What the replay assumes (docs/burstctl.md, "The model", says why):
 *  - the demand of a sample interval arrives evenly over the interval;
 *  - demand not served waits in a first-in first-out backlog and runs as
 *    soon as the pool and the CPUs allow; the group uses at most
 *    cpus x time in any stretch of time (its parallelism limit);
 *  - the limit is set at the trace's start (a fresh limit: one quota plus
 *    the onset share, or a full pool), and period boundaries fall at
 *    phase + k x period; each one credits a quota (bwm_refill);
 *  - runtime goes straight from the pool to the work: the kernel's 5 ms
 *    slices, the 1 ms an idle CPU keeps and the overrun of up to a tick
 *    before a throttle are not modelled;
 *  - a period is throttled when demand was left waiting in it because the
 *    pool was empty; the group then stays throttled until the boundary
 *    that ends it, which is where the kernel counts it in nr_throttled;
 *  - throttled time is wall time from the pool running dry to that
 *    boundary (the kernel's throttled_usec adds it up per CPU, the same
 *    for a single-threaded service).
 * After the trace ends the replay goes on, with no new demand, until the
 * backlog is served and the period in progress has ended, so every
 * throttle the trace causes is counted.
 *
 * Times and CPU are nanoseconds.
 */
#ifndef BW_REPLAY_H
#define BW_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bw-model.h"

/* One sample interval: it ends at t and the group used cpu in it. */
struct bwr_sample {
	uint64_t t;	/* ns since the trace's start; the first interval starts at 0 */
	uint64_t cpu;	/* ns of CPU */
};

struct bwr_config {
	uint64_t quota, period, burst;	/* ns, as bwm_set() takes them */
	unsigned int cpus;		/* CPUs the group can use at once, >= 1 */
	uint64_t phase;			/* the first boundary, 0 < phase <= period */
	bool start_full;		/* the pool starts at its cap */
	unsigned int onset_percent;	/* kernel.sched_cfs_bw_burst_onset_percent */
};

/* One period as the replay saw it. */
struct bwr_period {
	uint64_t start, end;	/* ns since the trace's start */
	uint64_t pool_start;	/* the pool at its start, after the refill */
	uint64_t demand;	/* what arrived in it */
	uint64_t used;		/* what the group got */
	uint64_t backlog;	/* demand still waiting at its end */
	uint64_t throttled_ns;
	bool throttled;
};

struct bwr_result {
	uint64_t periods;		/* the trace's periods and its drain's, partial ones too */
	uint64_t throttled_periods;
	uint64_t throttled_ns;
	uint64_t demand, used;
	uint64_t drain_ns;		/* from the trace's end until the backlog was served */
	size_t delayed;			/* samples with demand: what the delays are of */
	uint64_t delay_p99, delay_max;	/* added delay of their last nanosecond of demand */
	uint64_t nr_bursts, burst_time;	/* the model's cpu.stat burst statistics */
};

typedef void (*bwr_period_fn)(const struct bwr_period *p, void *arg);

/*
 * Replay n samples (t strictly increasing, the first t > 0) under cfg.
 * fn, when not NULL, sees every period in order. 0, -EINVAL for a setting
 * bwm_set() refuses, no samples, a phase outside (0, period], cpus 0 or
 * times out of order, or -ENOMEM.
 */
int bwr_replay(const struct bwr_sample *s, size_t n, const struct bwr_config *cfg,
	       struct bwr_result *res, bwr_period_fn fn, void *arg);

/* The first boundary after a start at monotonic time start_ns: (0, period]. */
uint64_t bwr_phase_at(uint64_t start_ns, uint64_t period);

/*
 * A later run meets the period at a phase nobody knows: replay at nphases
 * phases spread evenly over (0, period] (cfg->phase is ignored). worst
 * holds the largest value of every field over them, best the smallest
 * (either may be NULL). 0 or bwr_replay()'s error.
 */
int bwr_replay_phases(const struct bwr_sample *s, size_t n, const struct bwr_config *cfg,
		      unsigned int nphases, struct bwr_result *worst, struct bwr_result *best);

#endif
