// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy hierarchy: cpu.cfs_burst_us above quota, its bounds, bad
 * input on cfs_quota_us / cfs_period_us / cfs_burst_us, cpu.stat's
 * current_bw (ns) against the model after an onset grant and after idle
 * periods, a burst timed by cpuacct and charged exactly in burst_time.
 * Runs last: it takes the cpu controller away from the v2 hierarchy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define V1 "/tmp/cpuv1"
#define CG V1 "/burst"
#define CG_ONSET V1 "/onset"
#define CG_ACC V1 "/acc"
#define Q QUOTA_US

static long long cur_burst;
static long long r_quota, r_period, r_burst;

static bool unchanged(void)
{
	r_quota = cg_num(CG, "cpu.cfs_quota_us");
	r_period = cg_num(CG, "cpu.cfs_period_us");
	r_burst = cg_num(CG, "cpu.cfs_burst_us");
	return r_quota == Q && r_period == PERIOD_US && r_burst == cur_burst;
}

static void bad(const char *file, const char *val)
{
	int ret = cg_write(CG, file, "%s", val);
	bool same = unchanged();

	tap_ok(ret == -EINVAL && same,
	       "v1 %s '%s' is EINVAL, quota/period/burst unchanged (ret %d; %lld %lld %lld)",
	       file, val, ret, r_quota, r_period, r_burst);
}

/* Write a burst the series takes and stock rejects as above quota. */
static void burst_above_quota(long long val)
{
	int ret = cg_write(CG, "cpu.cfs_burst_us", "%lld", val);
	bool same;

	if (expect_patched() && !ret)
		cur_burst = val;
	same = unchanged();
	if (expect_patched()) {
		tap_ok(ret == 0 && same, "[" F_ABOVE "] v1 burst %lld > quota %lld accepted (ret %d, reads %lld)",
		       val, Q, ret, r_burst);
	} else {
		tap_ok(ret == -EINVAL && same,
		       "v1 burst %lld > quota %lld is EINVAL, burst stays %lld (ret %d, reads %lld)",
		       val, Q, cur_burst, ret, r_burst);
	}
}

static struct pool_model m;
static struct period_clock clk;

/*
 * Where the model and the kernel differ on purpose: the model is one group,
 * the v1 hierarchy also refuses a child whose quota/period exceeds its
 * nearest limited ancestor's (__cfs_schedulable()). The same write, taken
 * by the model, is EINVAL here and leaves the child unlimited.
 */
static void child_above_parent(void)
{
	struct bwm_sysctls sys;
	struct bwm_group g;
	char val[32];
	long long quota;
	int ret, mret;

	bwm_sysctls_init(&sys);
	bwm_group_init(&g, &sys);
	snprintf(val, sizeof(val), "%lld", 2 * Q);
	mret = bwm_write_cfs_quota_us(&g, val, strlen(val));
	ret = cg_create(CG "/child");
	ret = ret ?: cg_write(CG "/child", "cpu.cfs_quota_us", "%s", val);
	quota = cg_num(CG "/child", "cpu.cfs_quota_us");
	tap_ok(ret == -EINVAL && quota == -1 && mret == 0,
	       "v1 child quota %s above its parent's %lld: EINVAL, stays %lld; the one-group model takes it (%d): the hierarchy's rule is not modelled (ret %d)",
	       val, Q, quota, mret, ret);
	cg_destroy(CG "/child", CG);
}

/*
 * A new v1 group @cg (its boundaries learnt in clk) early in a period: burst
 * first (while unlimited), then quota; the model takes the same writes. *r:
 * cpu.stat in the same period.
 */
static int fresh_v1(const char *cg, long long burst, struct pool_read *r)
{
	char val[32];
	long long v;
	int ret;

	ret = period_group(cg, PERIOD_US, &clk);
	period_wait(&clk, 5000);
	pm_init(&m, period_now(&clk));
	if (!sysctl_get(SYSCTL_BURST_ONSET, &v))
		m.sys.onset_percent = (unsigned int)v;
	snprintf(val, sizeof(val), "%lld", burst);
	bwm_write_cfs_burst_us(&m.g, val, strlen(val));
	ret = ret ?: cg_write(cg, "cpu.cfs_burst_us", "%s", val);
	snprintf(val, sizeof(val), "%lld", Q);
	bwm_write_cfs_quota_us(&m.g, val, strlen(val));
	ret = ret ?: cg_write(cg, "cpu.cfs_quota_us", "%s", val);
	return ret ?: pool_read(cg, &clk, r);
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, start;
	struct bw_sample after;
	struct pool_read r;
	char buf[64];
	struct bw_burst b;
	bool same;
	int ret;

	ret = cg_mount_v1_cpu(V1);
	if (!tap_ok(ret == 0, "cpu,cpuacct mounted as cgroup v1 at %s (ret %d)", V1, ret)) {
		tap_abandon("no v1 hierarchy: %s", strerror(-ret));
		return;
	}
	cur_burst = 0;
	ret = cg_create(CG);
	ret = ret ?: cg_write(CG, "cpu.cfs_period_us", "%lld", PERIOD_US);
	ret = ret ?: cg_write(CG, "cpu.cfs_quota_us", "%lld", Q);
	same = unchanged();
	if (!tap_ok(ret == 0 && same, "v1 group quota %lld period %lld (ret %d; %lld %lld %lld)",
		    Q, PERIOD_US, ret, r_quota, r_period, r_burst)) {
		tap_abandon("cannot set up %s", CG);
		goto out;
	}

	burst_above_quota(3 * Q);
	burst_above_quota(MAX_CFS_RUNTIME_US);
	snprintf(buf, sizeof(buf), "%lld", MAX_CFS_RUNTIME_US + 1);
	bad("cpu.cfs_burst_us", buf);
	bad("cpu.cfs_burst_us", "-1");
	bad("cpu.cfs_burst_us", "abc");
	bad("cpu.cfs_period_us", "999");
	bad("cpu.cfs_period_us", "1000001");
	bad("cpu.cfs_period_us", "abc");
	bad("cpu.cfs_period_us", "-1");
	bad("cpu.cfs_quota_us", "500");
	bad("cpu.cfs_quota_us", "abc");
	bad("cpu.cfs_quota_us", buf);

	child_above_parent();

	tap_ok(cg_key(CG, "cpu.stat", "nr_periods") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_throttled") >= 0 &&
	       cg_key(CG, "cpu.stat", "throttled_time") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_bursts") >= 0 &&
	       cg_key(CG, "cpu.stat", "burst_time") >= 0 &&
	       cg_num(CG, "cpuacct.usage") >= 0,
	       "v1 cpu.stat has nr_periods, nr_throttled, throttled_time, nr_bursts, burst_time; cpuacct.usage reads");

	/* Onset on v1: burst written while unlimited, then the quota. */
	ret = p ? sysctl_write(SYSCTL_BURST_ONSET, "50") : 0;
	ret = ret ?: fresh_v1(CG_ONSET, burst, &r);
	pm_check(&m, &r, ret, F_ONSET " " F_CURBW, "v1 new group at onset 50: quota + burst/2");
	if (p)
		sysctl_write(SYSCTL_BURST_ONSET, "0");
	cg_destroy(CG_ONSET, V1);

	/* Saved in idle periods, spent just after a boundary (test-accumulate.c says why). */
	ret = fresh_v1(CG_ACC, burst, &r);
	start = r.index;
	period_wait_index(&clk, start + 10, 2000);
	ret = ret ?: pool_read(CG_ACC, &clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW, "v1, ten idle periods: quota + burst");
	ret = ret ?: bw_until_throttled(CG_ACC, NULL, cpu_count(), THROTTLE_TIMEOUT_US, &b);
	ret = ret ?: bw_sample(CG_ACC, &after);
	hog_stop();
	burst_diag("v1 accumulation", &b, Q + burst, Q);
	tap_ok(ret == 0 && burst_near(&b, Q + burst, Q),
	       "[" F_ABOVE " " F_CREDIT "] v1: after idling, CPU before the first throttle is about quota + burst %lld (got %lld..%lld, ret %d)",
	       Q + burst, b.lo, b.hi, ret);
	tap_ok(ret == 0 && after.burst_usec - r.s.burst_usec == burst,
	       "[" F_ABOVE " " F_CREDIT "] v1 burst_time rose by exactly the burst %lld us (%lld -> %lld)",
	       burst, r.s.burst_usec, after.burst_usec);
	if (p)
		tap_ok(ret == 0 && b.max_bw >= 0 && b.max_bw <= Q + burst,
		       "[" F_ABOVE " " F_CURBW "] v1 current_bw sampled %d times during the run, highest %lld us <= %lld",
		       b.samples, b.max_bw, Q + burst);
	else
		tap_ok(ret == 0 && b.max_bw == -1 && b.samples > 0,
		       "v1 current_bw absent in all %d samples on stock", b.samples);
	cg_destroy(CG_ACC, V1);

out:
	hog_stop();
	ret = cg_destroy(CG, V1);
	ret = ret ?: (umount(V1) ? -errno : 0);
	tap_ok(ret == 0, "removed %s, unmounted %s (ret %d)", CG, V1, ret);
	/* Give cpu back to v2 for whatever runs next; no check, it may lag. */
	cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
}

const struct burst_test test_v1 = { "cgroup-v1", 22, run };
