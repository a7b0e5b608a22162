// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_cfs_bw_burst_onset_percent, exactly: a group that gets a
 * limit starts with quota + onset% of its burst, whichever of quota and
 * burst was written first; rewriting the same burst grants nothing;
 * raising a lowered burst grants onset% of the increase; all within
 * min(quota + burst, max_cfs_runtime), and nothing beyond quota with
 * burst disabled. Pools are read in the period of the writes and compared
 * with the model; one run shows the group can really spend an onset grant.
 * Stock has no such sysctl (ENOENT) and no current_bw_usec.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define Q QUOTA_US
#define P PERIOD_US

static char cg[128];
static struct pool_model m;
static struct period_clock clk;

/* The model's sysctls follow the kernel's. */
static void set_onset(const char *val, int want_ret, long long want, const char *what)
{
	long long v = -1;
	int ret = sysctl_write(SYSCTL_BURST_ONSET, val), rret = sysctl_get(SYSCTL_BURST_ONSET, &v);

	if (expect_patched())
		tap_ok(ret == want_ret && rret == 0 && v == want,
		       "[" F_ONSET "] onset '%s' %s, reads %lld (ret %d, reads %lld)", val, what, want,
		       ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "stock: no onset sysctl, write '%s' and read are ENOENT (ret %d, read %d)",
		       val, ret, rret);
}

/* A model group with the kernel's sysctls as they are now. */
static void model_new(long long index)
{
	long long v;

	pm_init(&m, index);
	if (!sysctl_get(SYSCTL_BURST_ONSET, &v))
		m.sys.onset_percent = (unsigned int)v;
	if (!sysctl_get(SYSCTL_BURST_ENABLED, &v))
		m.sys.burst_enabled = (unsigned int)v;
}

static int wr(const char *file, const char *fmt, long long a, long long b)
{
	char val[64];

	snprintf(val, sizeof(val), fmt, a, b);
	if (!strcmp(file, "cpu.max"))
		bwm_write_cpu_max(&m.g, val, strlen(val));
	else
		bwm_write_cpu_max_burst(&m.g, val, strlen(val));
	return cg_write(cg, file, "%s", val);
}

/*
 * A new group @name, its boundaries learnt, then early in a period given
 * @burst and quota in the order @burst_first says; *r gets its cpu.stat in
 * the same period.
 */
static int fresh(const char *name, long long burst, bool burst_first, struct pool_read *r)
{
	int ret;

	snprintf(cg, sizeof(cg), CG2_ROOT "/%s", name);
	ret = period_group(cg, P, &clk);
	period_wait(&clk, 5000);
	model_new(period_now(&clk));
	if (burst_first) {
		ret = ret ?: wr("cpu.max.burst", "%lld", burst, 0);
		ret = ret ?: wr("cpu.max", "%lld %lld", Q, P);
	} else {
		ret = ret ?: wr("cpu.max", "%lld %lld", Q, P);
		ret = ret ?: wr("cpu.max.burst", "%lld", burst, 0);
	}
	return ret ?: pool_read(cg, &clk, r);
}

/*
 * Run every CPU flat out in the fresh group @name until its first throttle;
 * the group is made again for a run the guest stalled in.
 */
static void burst_from_fresh(const char *name, long long burst, long long pool, const char *what)
{
	struct pool_read r;
	struct bw_burst b;
	int ret, run;

	for (run = 1; ; run++) {
		ret = bw_until_throttled(cg, NULL, cpu_count(), THROTTLE_TIMEOUT_US, &b);
		hog_stop();
		if (ret || b.max_gap <= STALL_USEC || run == 3)
			break;
		tap_diag("the guest stalled for %lld us during the run: measuring again", b.max_gap);
		cg_destroy(cg, CG2_ROOT);
		ret = fresh(name, burst, true, &r);
		if (ret)
			break;
	}
	burst_diag(what, &b, pool, Q);
	tap_ok(ret == 0 && burst_near(&b, pool, Q),
	       "[" F_ONSET "] %s: CPU before the first throttle is about %lld us (got %lld..%lld, ret %d)",
	       what, pool, b.lo, b.hi, ret);
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, v = -1;
	struct pool_read r;
	int ret, rret;

	rret = sysctl_get(SYSCTL_BURST_ONSET, &v);
	if (p)
		tap_ok(rret == 0 && v == 0, "[" F_ONSET "] onset percent defaults to 0 (ret %d, reads %lld)",
		       rret, v);
	else
		tap_ok(rret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ONSET, rret);

	/* 100%: a new group starts with quota + burst, and can spend it. */
	set_onset("100", 0, 100, "accepted");
	ret = fresh("onset100", burst, true, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_CURBW, "onset 100, new group: quota + burst");
	burst_from_fresh("onset100", burst, p ? Q + burst : Q, p ? "onset 100" : "stock new group");
	cg_destroy(cg, CG2_ROOT);

	set_onset("0", 0, 0, "accepted");
	ret = fresh("onset0", burst, true, &r);
	pm_check(&m, &r, ret, F_CURBW, "onset 0, new group: one quota");
	cg_destroy(cg, CG2_ROOT);

	/* 50%: both orders of the two writes grant it once. */
	set_onset("50", 0, 50, "accepted");
	set_onset("101", -EINVAL, 50, "is EINVAL, unchanged");
	ret = fresh("onset50a", burst, true, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_CURBW, "onset 50, burst then quota: quota + burst/2");
	cg_destroy(cg, CG2_ROOT);
	ret = fresh("onset50b", burst, false, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_CURBW, "onset 50, quota then burst: quota + burst/2");
	ret = ret ?: wr("cpu.max.burst", "%lld", burst, 0);
	ret = ret ?: wr("cpu.max", "%lld %lld", Q, P);
	ret = ret ?: pool_read(cg, &clk, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_KEEP " " F_CURBW,
		 "onset 50, the same burst and quota written again: nothing more");
	/* Lowered, the pool is cut; raised again, half the increase is granted. */
	ret = ret ?: wr("cpu.max.burst", "%lld", burst * 2 / 7, 0);
	ret = ret ?: wr("cpu.max.burst", "%lld", burst, 0);
	ret = ret ?: pool_read(cg, &clk, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_KEEP " " F_CURBW,
		 "onset 50, burst lowered to %lld then raised to %lld: cut, then half the increase",
		 burst * 2 / 7, burst);
	cg_destroy(cg, CG2_ROOT);

	/* Burst disabled: onset grants nothing beyond quota. */
	set_onset("100", 0, 100, "accepted");
	ret = sysctl_write(SYSCTL_BURST_ENABLED, "0");
	if (p) {
		ret = ret ?: fresh("onsetoff", burst, true, &r);
		pm_check(&m, &r, ret, F_ENABLED " " F_ONSET " " F_CURBW,
			 "onset 100 with burst disabled: one quota");
		cg_destroy(cg, CG2_ROOT);
		sysctl_write(SYSCTL_BURST_ENABLED, "1");
	} else {
		tap_ok(ret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ENABLED, ret);
	}

	/* The pool is capped at max_cfs_runtime even when quota + burst is not. */
	ret = fresh("onsetmax", MAX_CFS_RUNTIME_US, true, &r);
	if (p)
		pm_check(&m, &r, ret, F_ABOVE " " F_ONSET " " F_CURBW,
			 "onset 100, burst max_cfs_runtime: capped at max_cfs_runtime");
	else
		tap_ok(ret == -EINVAL && cg_num(cg, "cpu.max.burst") == MAX_CFS_RUNTIME_US,
		       "stock: quota %lld under burst max_cfs_runtime is EINVAL (ret %d)", Q, ret);
	cg_destroy(cg, CG2_ROOT);

	set_onset("-1", -EINVAL, 100, "is EINVAL, unchanged");
	ret = sysctl_write(SYSCTL_BURST_ONSET, "0");
	rret = sysctl_get(SYSCTL_BURST_ONSET, &v);
	if (p)
		tap_ok(ret == 0 && rret == 0 && v == 0 && sysctl_num(SYSCTL_BURST_ENABLED) == 1,
		       "[" F_ONSET " " F_ENABLED "] defaults restored: onset 0, enabled 1 (ret %d, onset %lld)",
		       ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT, "stock: onset stays absent (ret %d)", ret);
}

const struct burst_test test_onset = { "onset-percent", 17, run };
