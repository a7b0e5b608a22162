// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_cfs_bw_burst_enabled, exactly: switched off while a group's
 * pool is full and its period timer runs, the pool is kept until that
 * timer's next refill, which cuts it to the quota; switched on again, the
 * group saves from there. Bad values are EINVAL and change nothing. Pools
 * are compared with the model (pool.h). Stock has no such sysctl (ENOENT).
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/enabled"
#define Q QUOTA_US
#define P PERIOD_US

static struct pool_model m;

static void set_enabled(const char *val, int want_ret, long long want, const char *what)
{
	long long v = -1;
	int ret = sysctl_write(SYSCTL_BURST_ENABLED, val), rret = sysctl_get(SYSCTL_BURST_ENABLED, &v);

	if (expect_patched()) {
		tap_ok(ret == want_ret && rret == 0 && v == want,
		       "[" F_ENABLED "] burst_enabled '%s' %s, reads %lld (ret %d, reads %lld)", val, what,
		       want, ret, v);
		if (!ret)
			m.sys.burst_enabled = (unsigned int)v;
	} else {
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "stock: no burst_enabled sysctl, write '%s' and read are ENOENT (ret %d, read %d)",
		       val, ret, rret);
	}
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, v = -1, start;
	struct pool_read r, rb;
	int ret;

	ret = sysctl_get(SYSCTL_BURST_ENABLED, &v);
	if (p)
		tap_ok(ret == 0 && v == 1, "[" F_ENABLED "] burst_enabled defaults to 1 (ret %d, reads %lld)",
		       ret, v);
	else
		tap_ok(ret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ENABLED, ret);

	ret = pm_new_group(&m, CG, Q, P, burst);
	start = m.start;
	if (!tap_ok(ret == 0, "[" F_ABOVE "] group quota %lld, burst %lld (ret %d)", Q, burst, ret)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	/* A full pool, and a running timer: a short task restarts it. */
	period_wait_index(P, start + 9, 10000);
	ret = pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "nine idle periods: the pool is full");
	ret = ret ?: pinned_burn(CG, "cgroup.procs", 0, 1000);
	ret = ret ?: pool_read(CG, P, &rb);
	if (!ret)
		pm_sync(&m, &rb);

	set_enabled("0", 0, 0, "accepted");
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ENABLED " " F_CURBW,
		 "burst switched off: the pool is kept until the next refill");
	set_enabled("2", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("-1", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("abc", -EINVAL, 0, "is EINVAL, unchanged");

	period_wait_index(P, rb.index + 1, P / 2);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ENABLED " " F_CURBW,
		 "the running timer's refill cut the pool to the quota");
	tap_ok(ret == 0 && r.s.nr_periods == rb.s.nr_periods + 1,
	       "the period timer ran that refill: nr_periods %lld -> %lld", rb.s.nr_periods,
	       r.s.nr_periods);

	set_enabled("1", 0, 1, "accepted");
	period_wait_index(P, rb.index + 3, P / 2);
	ret = ret ?: pool_read(CG, P, &r);
	pm_check(&m, &r, ret, F_ENABLED " " F_CREDIT " " F_CURBW,
		 "switched on again: two more periods saved");

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_burst_enabled = { "burst-enabled-sysctl", 13, run };
