// SPDX-License-Identifier: GPL-2.0
/*
 * What a bandwidth update does to the pool, exactly, against the model:
 * rewriting the same settings adds nothing (a fresh group and a drained
 * one); lowering burst cuts the pool to the new cap and raising quota
 * adds nothing; a limit removed drops the pool and a new limit starts
 * with one quota; an update first credits the periods an idle group
 * earned under the old settings while its timer was stopped; a new period
 * length applies from the old period's next boundary. Each step runs
 * inside one period (pool.h); a step that a guest stall pushed across a
 * boundary is done again. Stock has no current_bw_usec: there
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
static struct period_clock clk;
static long long burst;

/* A new group limited early in a period; the model follows it. */
static int fresh(long long *start)
{
	int ret;

	ret = period_group(CG, P, &clk);
	period_wait(&clk, 5000);
	ret = ret ?: cg_write(CG, "cpu.max.burst", "%lld", burst);
	ret = ret ?: cg_write(CG, "cpu.max", "%lld %lld", Q, P);
	*start = period_now(&clk);
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
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW,
		 "new group, cpu.max and cpu.max.burst rewritten 7 times: still one quota");

	/* Drained: the throttle left the pool empty, less what slack came back. */
	for (i = 1; i <= TRIES; i++) {
		struct pool_read r1;

		ret = bw_drain(CG, cpu_count(), THROTTLE_TIMEOUT_US);
		period_wait(&clk, 20000);
		ret = ret ?: pool_read(CG, &clk, &r1);
		if (!ret)
			pm_sync(&m, &r1);
		ret = ret ?: rewrite("20000 100000", 7);
		ret = ret ?: pool_read(CG, &clk, &r);
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
	period_wait_index(&clk, start + 9, 10000);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "nine idle periods: saturated");
	ret = ret ?: write_burst(10000);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CURBW,
		 "burst lowered to 10000: the pool is cut to quota + burst");
	ret = ret ?: rewrite("50000 100000", 1);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_KEEP " " F_CURBW, "quota raised to 50000: nothing added");

	ret = ret ?: rewrite("max", 1);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_CURBW, "limit removed: no pool");
	ret = ret ?: rewrite("20000 100000", 1);
	ret = ret ?: pool_read(CG, &clk, &r);
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
	 * at the group's next 100 ms boundary, which is also a 50 ms one.
	 */
	ret = fresh(&start);
	period_wait_index(&clk, start + 5, P / 2 + 5000);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "five idle periods: six quotas");
	ret = ret ?: rewrite("40000 100000", 1);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_CREDIT " " F_KEEP " " F_CURBW,
		 "quota changed while idle: the periods earned under the old quota are kept");
	ret = ret ?: rewrite("40000 50000", 1);
	ret = ret ?: pool_read(CG, &clk, &r);
	pm_check(&m, &r, ret, F_CREDIT " " F_KEEP " " F_CURBW, "period changed: the pool is kept");
	cg_destroy(CG, CG2_ROOT);
}

static void wait_until(long long t)
{
	long long now = now_usec();

	if (t > now)
		sleep_usec(t - now);
}

/* One period-change run's readings, judged once a run read each on its side of its boundary. */
struct period_change_run {
	int ret_stopped, ret_running;
	long long edge;			/* the old 100 ms boundary the stopped half waits for */
	long long pool[3], model[3];	/* stopped timer: 15 ms before edge, 15 after, 65 after */
	long long n0, n[4];		/* running timer: nr_periods at the write and at 4 reads */
	long long edge2;		/* the old 50 ms boundary the running half waits for */
	bool on_time;
};

/* Read at @at, which must fall on the @after side of @edge with the whole read. */
static long long read_at(long long at, long long edge, bool after, bool *on_time,
			 long long (*read)(void))
{
	long long t0, t1, v;

	wait_until(at);
	t0 = now_usec();
	v = read();
	t1 = now_usec();
	if (after ? t0 <= edge : t1 >= edge)
		*on_time = false;
	return v;
}

static long long read_pool(void)
{
	struct bw_sample s;

	return bw_sample(CG, &s) ? -2 : s.current_bw;
}

static long long read_periods(void)
{
	return cg_key(CG, "cpu.stat", "nr_periods");
}

static void period_change_once(struct period_change_run *pc)
{
	long long start;
	int i;

	pc->on_time = true;
	pc->ret_stopped = fresh(&start);
	period_wait_index(&clk, start + 5, 20000);
	pm_advance(&m, start + 5);
	pc->edge = period_start(&clk, start + 6);
	pc->ret_stopped = pc->ret_stopped ?: rewrite("20000 50000", 1);
	if (now_usec() >= pc->edge - 15000)
		pc->on_time = false;
	for (i = 0; i < 3; i++) {
		static const long long at[3] = { -15000, 15000, 65000 };

		if (i)
			bwm_refill(&m.g, 1);
		pc->model[i] = pm_usec(&m);
		pc->pool[i] = read_at(pc->edge + at[i], pc->edge + (i == 2 ? 50000 : 0), i > 0,
				      &pc->on_time, read_pool);
	}

	/*
	 * Running timer: a task that runs 0.2 ms every 5 ms keeps it running
	 * (never throttled); boundaries are still every 50 ms from edge.
	 */
	pc->ret_running = pc->ret_stopped ?: blinker_start(CG, "cgroup.procs", 1, 200, 5000);
	pc->edge2 = pc->edge + 150000;
	wait_until(pc->edge2 - 30000);
	pc->ret_running = pc->ret_running ?: rewrite("20000 100000", 1);
	pc->n0 = read_periods();
	if (now_usec() >= pc->edge2 - 15000)
		pc->on_time = false;
	for (i = 0; i < 4; i++) {
		static const long long at[4] = { -15000, 15000, 65000, 115000 };
		static const long long edge[4] = { 0, 0, 100000, 100000 };

		pc->n[i] = read_at(pc->edge2 + at[i], pc->edge2 + edge[i], i == 1 || i == 3,
				   &pc->on_time, read_periods);
	}
	hog_stop();
	cg_destroy(CG, CG2_ROOT);
}

/*
 * The rule for a period change (docs/kernel.md): the period in progress
 * ends where the old period would have ended, and the new length applies
 * from that boundary on, whether the period timer runs or is stopped. A
 * 50 ms period written 20 ms into a 100 ms one, timer stopped, first sees
 * a boundary 80 ms later, not 50 ms later (the pool shows the credit);
 * then one each 50 ms. Back to 100 ms, timer running, 20 ms into a 50 ms
 * period: the next boundary is 30 ms later, the one after it 100 ms after
 * that (nr_periods counts the timer's expiries). Each read is 15 ms from a
 * boundary, on a known side of it; a run in which a read landed on the
 * other side (the guest overslept, a stall) measured nothing and is done
 * again on a new group, three runs at most.
 */
static void period_change(void)
{
	static const char *const pool_what[3] = {
		"before the old boundary, nothing added", "just after the old boundary, one quota",
		"50 ms later, one more" };
	static const char *const timer_what[4] = {
		"before the old boundary", "after it", "where a 50 ms boundary would be",
		"100 ms after the old boundary" };
	static const long long timer_want[4] = { 0, 1, 1, 2 };
	struct period_change_run pc;
	int i, tries;

	for (tries = 1;; tries++) {
		period_change_once(&pc);
		if (pc.ret_stopped || pc.on_time || tries == TRIES)
			break;
		tap_diag("period change: a read fell on the wrong side of its boundary (rule: every read 15 ms on its side): again on a new group");
	}
	if (!tap_ok(pc.ret_stopped == 0 && pc.on_time,
		    "[" F_ABOVE "] timer stopped, 20 ms into a 100 ms period: period set to 50 ms, every read on its side of its boundary (ret %d, try %d)",
		    pc.ret_stopped, tries)) {
		tap_abandon("period change: not measured (ret %d)", pc.ret_stopped);
		return;
	}
	for (i = 0; i < 3; i++) {
		if (expect_patched())
			tap_ok(pc.pool[i] == pc.model[i],
			       "[" F_CREDIT " " F_CURBW "] period change: %s: current_bw_usec %lld, model %lld",
			       pool_what[i], pc.pool[i], pc.model[i]);
		else
			tap_ok(pc.pool[i] == -1, "stock: period change: %s: no current_bw_usec (read %lld)",
			       pool_what[i], pc.pool[i]);
	}
	tap_ok(pc.ret_running == 0,
	       "[" F_ABOVE "] timer running, 20 ms into a 50 ms period: period set to 100 ms (ret %d)",
	       pc.ret_running);
	for (i = 0; i < 4; i++)
		tap_ok(pc.n0 >= 0 && pc.n[i] == pc.n0 + timer_want[i],
		       "period change, timer running: %s: nr_periods +%lld, want +%lld", timer_what[i],
		       pc.n[i] - pc.n0, timer_want[i]);
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
