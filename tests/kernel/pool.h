/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact pool checks: read current_bw at a known period and compare it with
 * the reference model (model/bw-model.c).
 *
 * Why period boundaries are known: a group's period timer keeps one grid
 * of expiries for as long as its period stays the same. Starting and
 * stopping the timer, and crediting the periods it missed, move the expiry
 * by whole periods (hrtimer_forward_now()), so the group's boundaries are
 * at its phase plus the multiples of its period on CLOCK_MONOTONIC, and
 * current_bw counts every boundary that has passed (the kernel adds the
 * ones its timer has not yet credited). The phase is where the expiry
 * started: 0 on 6.1, a random time below the default period on 6.12
 * (init_cfs_bandwidth(): "so that timers interleave"), fixed when the
 * group is made. period_learn() finds it for each new group, and every
 * period below is counted from it. A read whose clock readings before and
 * after fall in the same period, with the phase's uncertainty on either
 * side, therefore saw exactly that period's count of boundaries, however
 * late the timer runs.
 */
#ifndef BURSTCFS_POOL_H
#define BURSTCFS_POOL_H

#include <stdbool.h>

#include "../../model/bw-model.h"
#include "cg.h"

/*
 * Feature tags: each check names, in brackets at the start of its
 * description, the patches of kernel/series it needs (the names follow
 * "# feature:" in kernel/series). `make test-series-prefixes` boots the
 * suite on every prefix of the series and checks that exactly the checks
 * whose features are missing fail. A check without a tag must pass on
 * every prefix.
 */
#define F_PARSE		"parse"
#define F_ABOVE		"above-quota"
#define F_CREDIT	"credit"
#define F_KEEP		"keep-pool"
#define F_ENABLED	"enabled"
#define F_ONSET		"onset"
#define F_CURBW		"current-bw"
#define F_SLACK		"slack-cap"
#define F_THREE		"three-field"

/* The slice a CPU takes from the pool (sched_cfs_bandwidth_slice_us) */
#define SLICE_US		5000LL
/* What a cfs_rq keeps when it hands its slack back (min_cfs_rq_runtime) */
#define MIN_CFS_RQ_RUNTIME_US	1000LL

/* Where a group's period boundaries fall: at @phase + k * @period. */
struct period_clock {
	long long period;	/* usec */
	long long phase;	/* usec on CLOCK_MONOTONIC modulo @period */
	long long err;		/* usec: the true phase is within @phase +- @err */
};

/* One cpu.stat read that fell inside one period. */
struct pool_read {
	struct bw_sample s;	/* s.current_bw: the pool, in usec */
	long long index;	/* the period it fell into (period_now()) */
	long long t;		/* usec on CLOCK_MONOTONIC, just before the read */
};

/*
 * Learn where the boundaries of @cg (made, no limit yet, v1 or v2) fall for
 * period @period_us. Once no other group's period timer is armed (waited
 * for, up to 2 s), a limit written to the group arms its timer at the next
 * boundary, /proc/timer_list shows that expiry, and the limit comes off
 * again; the timer then stops (waited for, up to 2 s). When more than one
 * timer is armed after the limit (another group's woke in between), all of
 * that is done again, up to 3 times, each printed (pool.c, LEARN_TRIES).
 * On a 6.1 kernel without the series the phase is 0 (its code), and nothing is
 * written. One line of diagnostics says what was learnt. 0 or -errno.
 *
 * Should a boundary fall in the milliseconds the learning limit is on, the
 * timer counts a period and marks the group idle, and the timer of the
 * next limit stops a period sooner: a group that stays idle counts two
 * periods in all either way (cfs_b->idle is cleared only by a runtime
 * request).
 */
int period_learn(const char *cg, long long period_us, struct period_clock *c);
/*
 * Make @cg and learn its boundaries into @c; @c has period @period_us
 * whatever fails, so the caller may wait on it. 0 or -errno.
 */
int period_group(const char *cg, long long period_us, struct period_clock *c);
/* The period of @c that CLOCK_MONOTONIC time @t (usec) falls in. */
long long period_at(const struct period_clock *c, long long t);
/* The period of @c that CLOCK_MONOTONIC is in now. */
long long period_now(const struct period_clock *c);
/* When period @index of @c begins, usec on CLOCK_MONOTONIC. */
long long period_start(const struct period_clock *c, long long index);
/* Read @cg's cpu.stat inside one period of @c; 0 or -errno. */
int pool_read(const char *cg, const struct period_clock *c, struct pool_read *r);
/* Sleep until @offset_us into a period (the next one unless this one is early enough). */
void period_wait(const struct period_clock *c, long long offset_us);
/* Sleep until period @index has begun, @offset_us into it. */
void period_wait_index(const struct period_clock *c, long long index, long long offset_us);
/*
 * Sleep until no boundary of @a or @b is within @margin_us of now (a write
 * that two groups must see inside one period each); at once if none is, and
 * no longer than both periods.
 */
void period_wait_clear(const struct period_clock *a, const struct period_clock *b,
		       long long margin_us);

/*
 * The model of one group, advanced period by period alongside the kernel.
 * @index is the last period the model has credited.
 */
struct pool_model {
	struct bwm_sysctls sys;
	struct bwm_group g;
	long long index;
	long long start;	/* the period in which the model began */
	struct period_clock clk;	/* the group's boundaries (pm_new_group()) */
};

/* A group the model has just seen limited at period @index (sysctls: defaults). */
void pm_init(struct pool_model *m, long long index);
/* Credit the boundaries passed up to period @index. */
void pm_advance(struct pool_model *m, long long index);
/* The model's current_bw in usec. */
long long pm_usec(const struct pool_model *m);
/*
 * One check of reading @r (ret: how getting it went) against the model,
 * advanced to @r's period: on our kernel current_bw_usec must equal the
 * model's; on stock it must be absent. @tags: the features it needs.
 */
bool pm_check(struct pool_model *m, const struct pool_read *r, int ret, const char *tags,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Take the kernel's reading as the model's pool (after CPU use the model cannot see). */
void pm_sync(struct pool_model *m, const struct pool_read *r);

/*
 * Make @cg, learn its boundaries (m->clk), then early in a period give it
 * quota @quota_us, period @period_us and then burst @burst_us (bw_group()),
 * and set @m up as the same new limit from that period on (m->start). 0 or
 * -errno.
 */
int pm_new_group(struct pool_model *m, const char *cg, long long quota_us, long long period_us,
		 long long burst_us);

/*
 * Fork a child pinned to @cpu, move it into @cg while it sleeps, then let
 * it spin for about @spin_us of CPU time and exit; waits for it. The one
 * wake-up takes a slice from the pool (restarting the period timer and
 * crediting the periods it missed); the exit hands back all but
 * MIN_CFS_RQ_RUNTIME_US of what the child did not use.
 */
int pinned_burn(const char *cg, const char *procs_file, int cpu, long long spin_us);

/*
 * pinned_burn(), the child let go at @go_at_us (now_usec() time; 0: at
 * once); @spun gets when its spin started and ended (now_usec() times).
 */
int pinned_burn_at(const char *cg, const char *procs_file, int cpu, long long spin_us,
		   long long go_at_us, long long spun[2]);

#endif
