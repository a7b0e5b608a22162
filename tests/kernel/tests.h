/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BURSTCFS_TESTS_H
#define BURSTCFS_TESTS_H

#include <stdbool.h>

#include "cg.h"
#include "../../lib/tap.h"

/* A group of checks; @checks is how many tap_ok() calls run() always makes. */
struct burst_test {
	const char *name;
	int checks;
	void (*run)(void);
};

extern const struct burst_test test_interface_v2;
extern const struct burst_test test_three_field;
extern const struct burst_test test_bad_input;
extern const struct burst_test test_pool_idle;
extern const struct burst_test test_pool_updates;
/* Credit spent through each path: one group of checks per set of values */
#define CREDIT_PATH_CASES 5
extern const struct burst_test test_credit_paths[CREDIT_PATH_CASES];
extern const struct burst_test test_slack_return;
extern const struct burst_test test_onset;
extern const struct burst_test test_accumulate;
extern const struct burst_test test_burst_enabled;
extern const struct burst_test test_nested;
extern const struct burst_test test_long_run;
extern const struct burst_test test_v1;
extern const struct burst_test test_mint;
extern const struct burst_test test_late_timer;

/* The largest quota or burst the kernel takes: MAX_BW usec. */
#define MAX_CFS_RUNTIME_US	17592186044415LL

/* Bandwidth the timing tests use: 0.2 CPU at the default period. */
#define PERIOD_US		100000LL
#define QUOTA_US		20000LL
/*
 * Idle long enough that stock's period timer has stopped (it does after
 * two idle periods) and that a patched pool refills from empty for any
 * burst up to 8 quotas; counted from a period boundary, the extra 5 ms
 * start the next run just after one (see bw_burst_after_idle).
 */
#define IDLE_USEC		(10 * PERIOD_US + 5000)
/* A group running flat out is throttled well within this. */
#define THROTTLE_TIMEOUT_US	3000000LL

/*
 * Group CPU a measurement may be off by, per CPU: a cfs_rq keeps up to
 * 1 ms of runtime when it goes idle, and a running one overruns its
 * runtime by up to a tick (4 ms at the stock kernel's HZ=250, 1 ms at
 * the guest config's HZ=1000) before the throttle takes effect. Under
 * TCG on a busy host a vCPU thread can be descheduled for many ms; the
 * guest then charges the whole stall to the running hog at the next
 * tick, past its runtime. Measured on a 2-core host that was compiling
 * kernels: up to 28 ms over pool + refills with 2 vCPUs (stock; patched
 * up to 19 ms), while the poller got 2 samples in 100 ms.
 */
#define SLOP_PER_CPU_US		20000LL

/*
 * A poller gap longer than this means the whole guest stalled (host
 * scheduling), not that it was busy: it samples every 1 ms and normally
 * waits at most ~13 ms for a CPU. A stall of S ms lets a hog overrun
 * its runtime by S ms on each CPU, beyond any slack worth having, so such
 * a run is measured again and a window is extended until it has been
 * quiet for a while (the overrun is debt, repaid in the next periods).
 */
#define STALL_USEC		30000LL

static inline long long slop_us(void)
{
	return SLOP_PER_CPU_US * cpu_count();
}

/*
 * A running task's CPU time reaches usage_usec at its CPU's next tick (or
 * switch): a reading may lack up to a tick per CPU (4 ms at the stock
 * kernel's HZ=250, 1 ms at the guest config's HZ=1000).
 */
#define TICK_US			4000LL

static inline long long tick_slop_us(void)
{
	return TICK_US * cpu_count();
}

/*
 * Bounds for "the group had @pool saved and ran flat out until its first
 * throttle". The throttle comes only once the pool is empty, and the
 * sample that sees it is taken after the period timer counted it, so by
 * then the group has run at least @pool, less the slice (5 ms) another
 * CPU may still have held and the ticks not yet accounted: never less,
 * whatever the host does, since a stalled vCPU is charged for the stall
 * (usage rises). It gets at most @pool plus a quota for each period
 * boundary that fell inside the burst (counted by nr_periods, so exactly
 * the refills the timer made), plus what each CPU ran past its runtime
 * before its tick saw it: a tick, and any time its vCPU was not run while
 * its task stayed current, which the guest charges at once. The run's own
 * sampler measures the latter: no vCPU waited longer than its longest gap
 * between two samples (measured 4-11 ms on a quiet host, over-runs then
 * -4..+7 ms). So the slop is a tick and that gap per CPU, well under a
 * quota on a quiet run, where a fixed allowance for a stalled one (40 ms)
 * would let a kernel through that gave a quota too many. The first bound
 * is checked on the sample after nr_throttled rose, the second on the
 * sample before: the true value lies between them.
 */
static inline long long burst_min(long long pool)
{
	return pool - 5000 - tick_slop_us();
}

static inline long long burst_max(const struct bw_burst *b, long long pool, long long quota)
{
	return pool + quota * b->refills + cpu_count() * (TICK_US + b->max_gap);
}

static inline bool burst_near(const struct bw_burst *b, long long pool, long long quota)
{
	return b->hi >= burst_min(pool) && b->lo <= burst_max(b, pool, quota);
}

/* One diagnostic line with everything a burst measurement saw. */
static inline void burst_diag(const char *what, const struct bw_burst *b, long long pool,
			      long long quota)
{
	tap_diag("%s: got %lld us before the first throttle (%lld..%lld, %.2f quotas; %s; %d samples over %lld us, longest gap %lld us; %lld refills, the first at %lld us with %lld us used; %lld us over pool + refills; highest current_bw %lld), expected %lld..%lld",
		 what, b->lo, b->lo, b->hi, (double)b->lo / quota,
		 b->plateau ? "throttled plateau seen" : "no plateau", b->samples, b->wall,
		 b->max_gap, b->refills, b->edge_wall, b->edge_usage, b->lo - pool - quota * b->refills,
		 b->max_bw, burst_min(pool), burst_max(b, pool, quota));
}

#endif
