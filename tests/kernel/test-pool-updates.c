// SPDX-License-Identifier: GPL-2.0
/*
 * What a bandwidth update does to the pool, exactly, against the model:
 * rewriting the same settings adds nothing (a fresh group and a drained
 * one); lowering burst cuts the pool to the new cap and raising quota
 * adds nothing; a limit removed drops the pool and a new limit starts
 * with one quota; an update first credits the periods an idle group
 * earned under the old settings while its timer was stopped. Each step
 * runs inside one period (pool.h); a step that a guest stall pushed
 * across a boundary is done again. Stock has no current_bw_usec: there
 * every write must succeed and the field must be absent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/poolupd"
#define Q QUOTA_US
#define P PERIOD_US
#define TRIES 3

static struct pool_model m;
static long long burst;

/* A new group limited early in a period; the model follows it. */
static int fresh(long long *start)
{
	int ret;

	period_wait(P, 5000);
	ret = cg_create(CG);
	ret = ret ?: cg_write(CG, "cpu.max.burst", "%lld", burst);
	ret = ret ?: cg_write(CG, "cpu.max", "%lld %lld", Q, P);
	*start = period_now(P);
	pm_init(&m, *start);
	bwm_set(&m.g, P * 1000, Q * 1000, burst * 1000);
	return ret;
}

/* Write cpu.max @n times; the model takes each write too. */
static int rewrite(const char *val, int n)
{
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		ret = cg_write(CG, "cpu.max", "%s", val);
		bwm_write_cpu_max(&m.g, val, strlen(val));
	}
	return ret;
}

static int write_burst(long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	bwm_write_cpu_max_burst(&m.g, buf, strlen(buf));
	return cg_write(CG, "cpu.max.burst", "%s", buf);
}

static void no_minting(void)
{
	struct pool_read r;
	long long start;
	int ret, i;

	ret = fresh(&start);
	for (i = 0; i < 7 && !ret; i++)
		ret = rewrite("20000 100000", 1) ?: write_burst(burst);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW,
		 "new group, cpu.max and cpu.max.burst rewritten 7 times: still one quota");

	/* Drained: the throttle left the pool empty, less what slack came back. */
	for (i = 1; i <= TRIES; i++) {
		struct pool_read r1;

		ret = bw_drain(CG, cpu_count(), THROTTLE_TIMEOUT_US);
		period_wait(P, 20000);
		ret = ret ?: pool_read(CG, P, &r1);
		if (!ret)
			pm_sync(&m, &r1);
		ret = ret ?: rewrite("20000 100000", 7);
		ret = ret ?: pool_read(CG, P, &r);
		if (!ret && expect_patched())
			tap_diag("drained group: current_bw_usec %lld before 7 rewrites, %lld after",
				 r1.s.current_bw, r.s.current_bw);
		if (ret || r.index == r1.index || i == TRIES)
			break;
		tap_diag("a period ended during the rewrites: again");
	}
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW,
		 "drained group rewritten 7 times: the pool it had, nothing more");
	cg_destroy(CG, CG2_ROOT);
}

static void cut_and_drop(void)
{
	struct pool_read r;
	long long start;
	int ret;

	ret = fresh(&start);
	period_wait_index(P, start + 9, 10000);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "nine idle periods: saturated");
	ret = ret ?: write_burst(10000);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CURBW,
		 "burst lowered to 10000: the pool is cut to quota + burst");
	ret = ret ?: rewrite("50000 100000", 1);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW, "quota raised to 50000: nothing added");

	ret = ret ?: rewrite("max", 1);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_CURBW, "limit removed: no pool");
	ret = ret ?: rewrite("20000 100000", 1);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW,
		 "limited again: one quota, nothing saved before carries over");
	cg_destroy(CG, CG2_ROOT);
}

static void credit_first(void)
{
	struct pool_read r;
	long long start;
	int ret;

	/*
	 * The timer stops after two idle periods; at period 5 the group has
	 * earned three more that only a runtime request or an update credits.
	 * The second half of the period: a 50 ms period written there starts
	 * at the next 100 ms boundary, which is also a 50 ms one.
	 */
	ret = fresh(&start);
	period_wait_index(P, start + 5, P / 2 + 5000);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "five idle periods: six quotas");
	ret = ret ?: rewrite("40000 100000", 1);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_CREDIT " " F_KEEP " " F_CURBW,
		 "quota changed while idle: the periods earned under the old quota are kept");
	ret = ret ?: rewrite("40000 50000", 1);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_CREDIT " " F_KEEP " " F_CURBW, "period changed: the pool is kept");
	cg_destroy(CG, CG2_ROOT);
}

static void wait_until(long long t)
{
	long long now = now_usec();

	if (t > now)
		sleep_usec(t - now);
}

/* current_bw_usec read at @t against the model; the read must not cross a boundary at @edge. */
static void pool_at(long long t, long long edge, const char *what)
{
	struct bw_sample s;
	long long t0, t1;
	int ret;

	wait_until(t);
	t0 = now_usec();
	ret = bw_sample(CG, &s);
	t1 = now_usec();
	if (expect_patched())
		tap_ok(ret == 0 && (t0 < edge) == (t1 < edge) && s.current_bw == pm_usec(&m),
		       "[" F_CREDIT " " F_CURBW "] period change: %s: current_bw_usec %lld, model %lld (%+lld us from the old boundary, ret %d)",
		       what, s.current_bw, pm_usec(&m), t0 - edge, ret);
	else
		tap_ok(ret == 0 && s.current_bw == -1,
		       "stock: period change: %s: no current_bw_usec (ret %d)", what, ret);
}

/* nr_periods read at @t, relative to @n0. */
static void timer_at(long long t, long long n0, long long want, long long edge, const char *what)
{
	long long n;

	wait_until(t);
	n = cg_key(CG, "cpu.stat", "nr_periods");
	tap_ok(n == n0 + want, "period change, timer running: %s: nr_periods +%lld, want +%lld (%+lld us from the old boundary)",
	       what, n - n0, want, now_usec() - edge);
}

/*
 * The rule for a period change (docs/kernel.md): the period in progress
 * ends where the old period would have ended, and the new length applies
 * from that boundary on, whether the period timer runs or is stopped. A
 * 50 ms period written 20 ms into a 100 ms one, timer stopped, first sees
 * a boundary 80 ms later, not 50 ms later (the pool shows the credit);
 * then one each 50 ms. Back to 100 ms, timer running, 20 ms into a 50 ms
 * period: the next boundary is 30 ms later, the one after it 100 ms after
 * that (nr_periods counts the timer's expiries). Read 15 ms either side of
 * each boundary (a late timer, a TCG stall, is far shorter than that).
 */
static void period_change(void)
{
	long long start, edge, n0;
	int ret;

	ret = fresh(&start);
	period_wait_index(P, start + 5, 20000);
	pm_advance(&m, start + 5);
	edge = (start + 6) * P;
	ret = ret ?: rewrite("20000 50000", 1);
	if (!tap_ok(ret == 0 && now_usec() < edge - 15000,
		    "[" F_ABOVE "] timer stopped, 20 ms into a 100 ms period: period set to 50 ms (ret %d)",
		    ret)) {
		tap_abandon("period change: no group to change (ret %d)", ret);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	pool_at(edge - 15000, edge, "before the old boundary, nothing added");
	bwm_refill(&m.g, 1);
	pool_at(edge + 15000, edge, "just after the old boundary, one quota");
	bwm_refill(&m.g, 1);
	pool_at(edge + 65000, edge + 50000, "50 ms later, one more");

	/*
	 * Running timer: a task that runs 0.2 ms every 5 ms keeps it running
	 * (never throttled); boundaries are still every 50 ms from edge.
	 */
	ret = blinker_start(CG, "cgroup.procs", 1, 200, 5000);
	edge += 150000;
	wait_until(edge - 30000);
	ret = ret ?: rewrite("20000 100000", 1);
	n0 = cg_key(CG, "cpu.stat", "nr_periods");
	tap_ok(ret == 0 && now_usec() < edge - 15000,
	       "[" F_ABOVE "] timer running, 20 ms into a 50 ms period: period set to 100 ms (ret %d)", ret);
	timer_at(edge - 15000, n0, 0, edge, "before the old boundary");
	timer_at(edge + 15000, n0, 1, edge, "after it");
	timer_at(edge + 65000, n0, 1, edge, "where a 50 ms boundary would be");
	timer_at(edge + 115000, n0, 2, edge, "100 ms after the old boundary");
	hog_stop();
	cg_destroy(CG, CG2_ROOT);
}

static void run(void)
{
	burst = expect_patched() ? 7 * Q : Q;
	no_minting();
	cut_and_drop();
	credit_first();
	period_change();
}

const struct burst_test test_pool_updates = { "pool-updates-v2", 19, run };
