// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_cfs_bw_burst_enabled, exactly, in both directions and for
 * both states of a group's period timer: one group whose timer runs (a
 * short task has just restarted it) and one whose timer stopped while it
 * idled. A write applies at once to both alike: the periods that ended
 * before it are credited under the old value, switching off cuts each pool
 * to its quota, switching on credits nothing for the periods spent off (a
 * task that wakes the idle group then is served one quota and throttled,
 * not a burst it never saved). A group limited while the switch is off
 * starts under it. Bad values are EINVAL and change nothing.
 * Pools are compared with the model (pool.h). Stock has no such sysctl
 * (ENOENT) and caps the pool at two quotas.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG_RUNNING CG2_ROOT "/enabled-running"
#define CG_STOPPED CG2_ROOT "/enabled-stopped"
#define CG_LATE CG2_ROOT "/enabled-late"
#define Q QUOTA_US
#define P PERIOD_US
/* Asked of the idle group right after the switch back on: more than a quota and a refill. */
#define SPEND_US (4 * Q)

static struct pool_model run_m, stop_m, late_m;

/* Write the switch inside the current period (checked) and apply it to both models. */
static void set_enabled(const char *val, int want_ret, long long want, const char *what)
{
	long long v = -1, run_now, stop_now;
	int ret, rret;

	/* Neither group's boundary within 3 ms: the write is inside a period of each. */
	period_wait_clear(&run_m.clk, &stop_m.clk, 3000);
	run_now = period_now(&run_m.clk);
	stop_now = period_now(&stop_m.clk);
	pm_advance(&run_m, run_now);
	pm_advance(&stop_m, stop_now);
	ret = sysctl_write(SYSCTL_BURST_ENABLED, val);
	rret = sysctl_get(SYSCTL_BURST_ENABLED, &v);
	if (expect_patched()) {
		tap_ok(ret == want_ret && rret == 0 && v == want &&
		       period_now(&run_m.clk) == run_now && period_now(&stop_m.clk) == stop_now,
		       "[" F_ENABLED "] burst_enabled '%s' %s, reads %lld (ret %d, reads %lld)", val, what,
		       want, ret, v);
		if (!ret) {
			run_m.sys.burst_enabled = stop_m.sys.burst_enabled = (unsigned int)v;
			bwm_burst_switched(&run_m.g);
			bwm_burst_switched(&stop_m.g);
		}
	} else {
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "stock: no burst_enabled sysctl, write '%s' and read are ENOENT (ret %d, read %d)",
		       val, ret, rret);
	}
}

/*
 * Both groups' pools right after a switch, against their models; @outcome
 * says what the switch must have done, @running_ret how restarting the
 * running group's timer went. The stopped group's reading goes to
 * @stopped; returns how reading it went.
 */
static int check_both(int running_ret, const char *dir, const char *outcome,
		      struct pool_read *stopped)
{
	struct pool_read r;
	int ret = running_ret ?: pool_read(CG_RUNNING, &run_m.clk, &r);

	pm_check(&run_m, &r, ret, F_ENABLED " " F_CURBW, "switched %s, timer running: %s", dir,
		 outcome);
	ret = pool_read(CG_STOPPED, &stop_m.clk, stopped);
	pm_check(&stop_m, stopped, ret, F_ENABLED " " F_CURBW, "switched %s, timer stopped: %s",
		 dir, outcome);
	return ret;
}

/* The running group's model's burst counters at its last read before the switch */
static uint64_t model_bursts, model_burst_time;

/*
 * The pool the switch cut was not spent: the refill after it must count
 * no burst for it (cpu.stat's nr_bursts and burst_usec against the model,
 * from @before, read before the switch, to @after, a refill later). The
 * model's pool comes from current_bw (pm_sync()), hence the tag. Stock
 * has no switch and the group used 1 ms of a quota: no burst either.
 */
static void burst_counters(const struct pool_read *after, const struct pool_read *before, int ret)
{
	long long nr = after->s.nr_bursts - before->s.nr_bursts;
	long long us = after->s.burst_usec - before->s.burst_usec;
	long long want_nr = 0, want_us = 0;

	if (expect_patched()) {
		want_nr = (long long)(run_m.g.nr_bursts - model_bursts);
		want_us = (long long)((run_m.g.burst_time - model_burst_time) / 1000);
	}
	/* usec from cpu.stat, ns in the model: 1 us either way */
	tap_ok(ret == 0 && nr == want_nr && us >= want_us - 1 && us <= want_us + 1,
	       "[" F_ENABLED " " F_CURBW "] switched off, a refill later: nr_bursts +%lld, burst_usec +%lld, model +%lld, +%lld (ret %d)",
	       nr, us, want_nr, want_us, ret);
}

/* Restart @cg's period timer with a 1 ms task and take the pool it left as the model's. */
static int restart_timer(const char *cg, struct pool_model *m, struct pool_read *r)
{
	int ret = pinned_burn(cg, "cgroup.procs", 0, 1000);

	ret = ret ?: pool_read(cg, &m->clk, r);
	if (!ret)
		pm_sync(m, r);
	return ret;
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, v = -1, stopped_periods, throttled, off_period;
	struct pool_read r, rr, rs;
	int ret;

	ret = sysctl_get(SYSCTL_BURST_ENABLED, &v);
	if (p)
		tap_ok(ret == 0 && v == 1, "[" F_ENABLED "] burst_enabled defaults to 1 (ret %d, reads %lld)",
		       ret, v);
	else
		tap_ok(ret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ENABLED, ret);

	ret = pm_new_group(&run_m, CG_RUNNING, Q, P, burst);
	ret = ret ?: pm_new_group(&stop_m, CG_STOPPED, Q, P, burst);
	if (!tap_ok(ret == 0, "[" F_ABOVE "] two groups quota %lld, burst %lld (ret %d)", Q, burst, ret)) {
		tap_abandon("cannot set up %s and %s", CG_RUNNING, CG_STOPPED);
		cg_destroy(CG_RUNNING, CG2_ROOT);
		cg_destroy(CG_STOPPED, CG2_ROOT);
		return;
	}

	/* Both full; then one timer running, the other stopped (since two idle periods). */
	period_wait_index(&stop_m.clk, stop_m.start + 9, 5000);
	ret = pool_read(CG_STOPPED, &stop_m.clk, &rs);
	pm_check(&stop_m, &rs, ret, F_ABOVE " " F_CREDIT " " F_CURBW,
		 "nine idle periods: the pool is full");
	stopped_periods = rs.s.nr_periods;
	ret = restart_timer(CG_RUNNING, &run_m, &rr);

	/* On to off: both pools cut to the quota by the write itself. */
	model_bursts = run_m.g.nr_bursts;
	model_burst_time = run_m.g.burst_time;
	set_enabled("0", 0, 0, "accepted");
	/* The running group's period of the write: set_enabled() advanced its model there. */
	off_period = run_m.index;
	check_both(ret, "off", "the pool is cut to the quota at once", &r);
	set_enabled("2", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("-1", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("abc", -EINVAL, 0, "is EINVAL, unchanged");

	/*
	 * The boundary after the write: the running timer refilled to the
	 * quota, the stopped one is still. The write may have waited past a
	 * boundary of the running group (set_enabled()), so the timer, which
	 * runs two periods from its restart, counts each boundary since.
	 */
	period_wait_index(&run_m.clk, off_period + 1, P / 2);
	ret = pool_read(CG_RUNNING, &run_m.clk, &r);
	pm_check(&run_m, &r, ret, F_ENABLED " " F_CURBW, "a period later, off: the quota");
	burst_counters(&r, &rr, ret);
	tap_ok(ret == 0 && r.s.nr_periods == rr.s.nr_periods + (r.index - rr.index),
	       "that group's timer ran the refill: nr_periods %lld -> %lld over %lld boundaries",
	       rr.s.nr_periods, r.s.nr_periods, r.index - rr.index);
	ret = pool_read(CG_STOPPED, &stop_m.clk, &r);
	pm_check(&stop_m, &r, ret, F_ENABLED " " F_CURBW, "a period later, off, timer stopped: the quota");
	tap_ok(ret == 0 && r.s.nr_periods == stopped_periods,
	       "that group's timer stayed stopped: nr_periods %lld -> %lld", stopped_periods,
	       r.s.nr_periods);

	/*
	 * A group limited while off saves nothing either: the write walked
	 * the groups limited then, this one takes the switch's value when it
	 * gets its limit.
	 */
	ret = pm_new_group(&late_m, CG_LATE, Q, P, burst);
	late_m.sys.burst_enabled = p ? 0 : 1;
	tap_ok(ret == 0, "[" F_ABOVE "] %s limited while off: quota %lld, burst %lld (ret %d)",
	       CG_LATE, Q, burst, ret);

	/*
	 * Off to on, after three more periods off: the running group's timer
	 * restarted just before, the other's stopped all along. Neither gets
	 * anything for the periods that ended while off.
	 */
	period_wait_index(&stop_m.clk, r.index + 3, 5000);
	period_wait_index(&late_m.clk, late_m.start + 2, 5000);
	ret = pool_read(CG_LATE, &late_m.clk, &r);
	pm_check(&late_m, &r, ret, F_ENABLED " " F_CURBW,
		 "limited while off, idle two periods: the quota, nothing saved");
	tap_ok(cg_destroy(CG_LATE, CG2_ROOT) == 0, "remove %s", CG_LATE);
	ret = restart_timer(CG_RUNNING, &run_m, &rr);
	set_enabled("1", 0, 1, "accepted");
	ret = check_both(ret, "on", "nothing credited for the periods off", &rs);

	/* Spent at once: the one quota the idle group holds does not cover SPEND_US. */
	throttled = rs.s.nr_throttled;
	ret = ret ?: pinned_burn(CG_STOPPED, "cgroup.procs", 0, SPEND_US);
	ret = ret ?: pool_read(CG_STOPPED, &stop_m.clk, &r);
	tap_ok(ret == 0 && r.s.nr_throttled > throttled,
	       "[" F_ENABLED "] a task asking %lld us right after: throttled, as a pool of %lld us says (nr_throttled %lld -> %lld, periods %lld..%lld, ret %d)",
	       SPEND_US, rs.s.current_bw, throttled, r.s.nr_throttled, rs.index, r.index, ret);

	/* Saving again since the switch on, whether the timer ran or not. */
	period_wait_index(&stop_m.clk, rs.index + 3, P / 2);
	ret = pool_read(CG_RUNNING, &run_m.clk, &r);
	pm_check(&run_m, &r, ret, F_ENABLED " " F_CREDIT " " F_CURBW,
		 "switched on, periods later: saving again");
	if (!ret) {
		ret = pool_read(CG_STOPPED, &stop_m.clk, &rs);
		if (!ret)
			pm_sync(&stop_m, &rs);
		period_wait_index(&stop_m.clk, rs.index + 2, P / 2);
	}
	ret = ret ?: pool_read(CG_STOPPED, &stop_m.clk, &r);
	pm_check(&stop_m, &r, ret, F_ENABLED " " F_CREDIT " " F_CURBW,
		 "the group that spent: two quotas saved since");

	tap_ok(cg_destroy(CG_RUNNING, CG2_ROOT) == 0, "remove %s", CG_RUNNING);
	tap_ok(cg_destroy(CG_STOPPED, CG2_ROOT) == 0, "remove %s", CG_STOPPED);
}

const struct burst_test test_burst_enabled = { "burst-enabled-sysctl", 25, run };
