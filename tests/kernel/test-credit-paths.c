// SPDX-License-Identifier: GPL-2.0
/*
 * Credit spent through each path the series changed, against the model,
 * for several quotas, bursts and idle times. A new group idles until its
 * period timer has stopped (nr_periods shows it); a pinned task then wakes
 * it, so that __assign_cfs_rq_runtime() credits the periods the timer
 * missed and hands out slices from the pool, spends a given amount and
 * exits; its CPU hands the rest of its last slice back (slack return),
 * less the 1 ms a runqueue keeps. Its burst is written right after (an
 * update in between: cut, raised or the same again). Then the running timer
 * refills at the next boundary, counting the burst: what the pool gave out
 * beyond one quota since the refill before, with the update's cut left
 * out. The timer runs one more period and stops.
 *
 * Each pool is compared with the model (the reading before the wake-up is
 * the credit the kernel must make, the model's refill snapshot); the pool
 * after the spend may exceed the model's by at most the 1 ms the runqueue
 * keeps (the task may run on that without a new request). nr_bursts and
 * burst_usec after the refill must be the model's exactly (to the
 * microseconds the two rounded reads cost), nr_throttled must not move.
 * A spend that crossed a period boundary, ended too late for the update
 * to follow in its period, or in which the guest stalled (the spin took
 * 5 ms more wall time than asked, or the group 5 ms more CPU) measured
 * something else: that case
 * is run again on a new group, with the reason printed, three times at
 * most. Stock: burst at most the quota, spends of a quarter quota, no
 * current_bw_usec; its update refills the pool as its timer does and
 * counts the burst the task's use beyond a quota makes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/credit"
#define P PERIOD_US
/* A spin, or a task's CPU, this much beyond what it asked for was stalled by the host. */
#define SPEND_STALL_US 5000LL
#define TRIES 3
/* What the update and its read after the spend need of the period. */
#define UPDATE_ROOM_US 10000LL
/* Two rounded reads on each side of a difference: 2 us either way. */
#define ROUND_US 2LL

struct credit_case {
	long long quota, burst;
	long long idle;		/* periods idle before the wake-up (>= 3: the timer stopped) */
	long long spend;	/* CPU the woken task uses */
	long long update_burst;	/* burst written right after the spend, -1: the same again */
};

/*
 * Pools still filling at the wake-up (all but one, which is full: a credit
 * too many would be capped away there), spends below and above a quota, an
 * update that cuts, raises or rewrites the burst.
 */
static const struct credit_case cases[] = {
	{ 20000, 140000, 3, 40000, -1 },
	{ 20000, 140000, 9, 8000, -1 },
	{ 10000, 60000, 4, 25000, -1 },
	{ 30000, 150000, 3, 40000, 40000 },
	{ 20000, 100000, 4, 30000, 140000 },
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))
/* tap_ok() calls per case: set-up, timer stopped, pool and statistics after the spend, the update, refill pool and statistics, the next period, its timer, removal. */
#define CHECKS_PER_CASE 11

/*
 * The spend measured what it is meant to: it began and ended in one period
 * with room left for the update after it, and the host did not stall it:
 * neither the spin (its wall time) nor the task's start and exit (the CPU
 * the group used beyond the spin; a stalled vCPU is charged the stall).
 */
static bool measured(const struct period_clock *clk, const struct pool_read *before,
		     const struct pool_read *after, const long long spun[2], long long spend)
{
	return after->index == before->index &&
	       after->t - period_start(clk, after->index) < P - UPDATE_ROOM_US &&
	       spun[1] - spun[0] <= spend + SPEND_STALL_US &&
	       after->s.usage - before->s.usage <= spend + SPEND_STALL_US;
}

static void one_case(const struct credit_case *c)
{
	bool p = expect_patched();
	long long burst = p ? c->burst : c->quota, spend = p ? c->spend : c->quota / 4;
	long long used = 0, lo, hi, db, dn, want_db, want_dn, nb, spun[2] = { 0, 0 };
	struct pool_read before, after, r, r2;
	struct pool_model m;
	uint64_t bursts0, time0;
	int ret, tries;
	char what[96];

	snprintf(what, sizeof(what), "quota %lld, burst %lld, idle %lld, spend %lld", c->quota,
		 burst, c->idle, spend);
	for (tries = 1;; tries++) {
		ret = pm_new_group(&m, CG, c->quota, P, burst);
		if (!ret) {
			period_wait_index(&m.clk, m.start + c->idle, 2000);
			ret = pool_read(CG, &m.clk, &before);
		}
		ret = ret ?: pinned_burn_at(CG, "cgroup.procs", 0, spend, 0, spun);
		ret = ret ?: pool_read(CG, &m.clk, &after);
		if (ret)
			break;
		used = after.s.usage - before.s.usage;
		if (measured(&m.clk, &before, &after, spun, spend))
			break;
		if (tries == TRIES)
			break;
		tap_diag("%s: the spin took %lld us of wall time, the group used %lld us, in periods %lld..%lld, ending %lld us into the last (rule: one period, ending %lld us before its end, the spin's wall time and the group's CPU at most %lld us over the spin): again on a new group",
			 what, spun[1] - spun[0], used, before.index, after.index,
			 after.t - period_start(&m.clk, after.index),
			 UPDATE_ROOM_US, SPEND_STALL_US);
		cg_destroy(CG, CG2_ROOT);
	}
	if (!tap_ok(ret == 0 && measured(&m.clk, &before, &after, spun, spend),
		    "[" F_ABOVE "] %s: set up and spent inside one period, unstalled (ret %d, spin %lld us, used %lld, periods %lld..%lld, try %d)",
		    what, ret, spun[1] - spun[0], used, before.index, after.index, tries)) {
		tap_abandon("%s: not measured", what);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	tap_ok(before.s.nr_periods == 2,
	       "%s: the timer stopped after two idle periods (counted since the group was made, period_learn() says why): nr_periods %lld",
	       what, before.s.nr_periods);

	/* The wake-up's credit and the slack return. */
	if (p) {
		pm_check(&m, &before, 0, F_CREDIT " " F_CURBW, "%s: before the wake-up", what);
		lo = before.s.current_bw - used - MIN_CFS_RQ_RUNTIME_US - ROUND_US;
		hi = before.s.current_bw - used + ROUND_US;
		tap_ok(after.s.current_bw >= lo && after.s.current_bw <= hi,
		       "[" F_CREDIT " " F_CURBW "] %s: woken, spent %lld us, slack back less at most 1 ms kept: pool %lld..%lld (got %lld)",
		       what, used, lo, hi, after.s.current_bw);
	} else {
		tap_ok(before.s.current_bw == -1, "stock: %s: no current_bw_usec", what);
		tap_ok(after.s.current_bw == -1 && used >= spend,
		       "stock: %s: the task used %lld us of the group's CPU", what, used);
	}
	tap_ok(after.s.nr_throttled == before.s.nr_throttled && after.s.nr_bursts == before.s.nr_bursts &&
	       after.s.burst_usec == before.s.burst_usec,
	       "%s: no throttle, and no burst counted before a refill (nr_throttled %lld, nr_bursts %lld, burst_usec %lld)",
	       what, after.s.nr_throttled - before.s.nr_throttled, after.s.nr_bursts - before.s.nr_bursts,
	       after.s.burst_usec - before.s.burst_usec);

	/*
	 * The model from here: the refill snapshot is the credited pool read
	 * before the wake-up, the pool what was read after the spend.
	 */
	pm_advance(&m, after.index);
	m.g.snap = (uint64_t)before.s.current_bw * BWM_NSEC_PER_USEC;
	m.g.pool = (uint64_t)after.s.current_bw * BWM_NSEC_PER_USEC;
	bursts0 = m.g.nr_bursts;
	time0 = m.g.burst_time;

	/* An update in between: never adds runtime, and what it cuts is not a burst. */
	nb = c->update_burst >= 0 && p ? c->update_burst : burst;
	ret = cg_write(CG, "cpu.max.burst", "%lld", nb);
	ret = ret ?: pool_read(CG, &m.clk, &r);
	if (p) {
		bwm_set(&m.g, P * 1000, c->quota * 1000, nb * 1000);
		tap_ok(ret == 0 && r.index == after.index && r.s.current_bw == pm_usec(&m),
		       "[" F_KEEP " " F_CURBW "] %s: burst written %lld in between: pool %lld, model %lld (ret %d)",
		       what, nb, r.s.current_bw, pm_usec(&m), ret);
	} else {
		tap_ok(ret == 0 && r.index == after.index,
		       "stock: %s: burst written %lld again in between (ret %d)", what, nb, ret);
	}

	/* The running timer's refill: the pool and the burst it counts. */
	period_wait_index(&m.clk, after.index + 1, P / 2);
	ret = pool_read(CG, &m.clk, &r);
	if (p) {
		pm_advance(&m, after.index + 1);
		tap_ok(ret == 0 && r.index == after.index + 1 && r.s.current_bw == pm_usec(&m),
		       "[" F_CREDIT " " F_CURBW "] %s: the running timer refilled: pool %lld, model %lld (ret %d)",
		       what, r.s.current_bw, pm_usec(&m), ret);
		want_dn = (long long)(m.g.nr_bursts - bursts0);
		want_db = (long long)((m.g.burst_time - time0) / BWM_NSEC_PER_USEC);
		lo = hi = want_db;
	} else {
		tap_ok(ret == 0 && r.s.current_bw == -1, "stock: %s: no current_bw_usec after the refill",
		       what);
		/*
		 * Stock's update refills like its timer: it counts what the
		 * pool gave out beyond a quota since the last refill, the
		 * task's use and up to the 1 ms kept; the timer then nothing.
		 */
		lo = used > c->quota ? used - c->quota : 0;
		hi = used + MIN_CFS_RQ_RUNTIME_US > c->quota ? used + MIN_CFS_RQ_RUNTIME_US - c->quota : 0;
		want_db = hi;
		want_dn = hi > 0;
	}
	dn = r.s.nr_bursts - after.s.nr_bursts;
	db = r.s.burst_usec - after.s.burst_usec;
	tap_ok(ret == 0 && db >= lo - ROUND_US && db <= hi + ROUND_US &&
	       (p ? dn == want_dn : dn == (db > 0)) && r.s.nr_throttled == before.s.nr_throttled,
	       "[" F_ABOVE " " F_CREDIT " " F_CURBW "] %s: the refill counted nr_bursts +%lld, burst_usec +%lld; expected +%lld, +%lld..%lld; no throttle",
	       what, dn, db, want_dn, lo, hi);

	/* One more refill by the timer, then it stops; the pool goes on being credited. */
	period_wait_index(&m.clk, after.index + 3, P / 2);
	ret = pool_read(CG, &m.clk, &r2);
	pm_check(&m, &r2, ret, F_CREDIT " " F_CURBW, "%s: two periods later", what);
	tap_ok(ret == 0 && r2.s.nr_periods == after.s.nr_periods + 2,
	       "%s: the woken timer ran two periods, then stopped: nr_periods %lld -> %lld", what,
	       after.s.nr_periods, r2.s.nr_periods);

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "%s: remove %s", what, CG);
}

/* One group of checks per case: a case that gives up leaves the next ones their numbers. */
#define CASE_RUN(i) static void run_case_##i(void) { one_case(&cases[i]); }
CASE_RUN(0)
CASE_RUN(1)
CASE_RUN(2)
CASE_RUN(3)
CASE_RUN(4)

const struct burst_test test_credit_paths[CREDIT_PATH_CASES] = {
	{ "credit-paths-1", CHECKS_PER_CASE, run_case_0 },
	{ "credit-paths-2", CHECKS_PER_CASE, run_case_1 },
	{ "credit-paths-3", CHECKS_PER_CASE, run_case_2 },
	{ "credit-paths-4", CHECKS_PER_CASE, run_case_3 },
	{ "credit-paths-5", CHECKS_PER_CASE, run_case_4 },
};
_Static_assert(NCASES == CREDIT_PATH_CASES, "a burst_test for each case");
