// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy hierarchy: cpu.cfs_burst_us above quota, its bounds, bad
 * input on cfs_quota_us / cfs_period_us / cfs_burst_us, cpu.stat's
 * current_bw (ns), and accumulation across idle measured by cpuacct.
 * Runs last: it takes the cpu controller away from the v2 hierarchy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define V1 "/tmp/cpuv1"
#define CG V1 "/burst"
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
		tap_ok(ret == 0 && same, "v1 burst %lld > quota %lld accepted (ret %d, reads %lld)",
		       val, Q, ret, r_burst);
	} else {
		tap_ok(ret == -EINVAL && same,
		       "v1 burst %lld > quota %lld is EINVAL, burst stays %lld (ret %d, reads %lld)",
		       val, Q, cur_burst, ret, r_burst);
	}
}

static int mount_v1(void)
{
	int ret, tries;

	ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "-cpu");
	if (ret)
		return ret;
	if (mkdir(V1, 0755) && errno != EEXIST)
		return -errno;
	/* The v2 css of removed groups go away asynchronously: EBUSY meanwhile. */
	for (tries = 0; tries < 50; tries++) {
		if (!mount("none", V1, "cgroup", 0, "cpu,cpuacct"))
			return 0;
		ret = -errno;
		if (ret != -EBUSY)
			break;
		sleep_usec(100000);
	}
	return ret;
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q;
	char buf[64];
	struct bw_burst b;
	bool same;
	int ret;

	ret = mount_v1();
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

	tap_ok(cg_key(CG, "cpu.stat", "nr_periods") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_throttled") >= 0 &&
	       cg_key(CG, "cpu.stat", "throttled_time") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_bursts") >= 0 &&
	       cg_key(CG, "cpu.stat", "burst_time") >= 0 &&
	       cg_num(CG, "cpuacct.usage") >= 0,
	       "v1 cpu.stat has nr_periods, nr_throttled, throttled_time, nr_bursts, burst_time; cpuacct.usage reads");

	ret = cg_write(CG, "cpu.cfs_burst_us", "%lld", burst);
	if (!ret)
		cur_burst = burst;
	if (p)
		tap_ok(ret == 0 && cg_key(CG, "cpu.stat", "current_bw") >= 0 &&
		       cg_key(CG, "cpu.stat", "current_bw") <= (Q + burst) * 1000,
		       "v1 burst %lld set; cpu.stat current_bw %lld ns within quota + burst (ret %d)",
		       burst, cg_key(CG, "cpu.stat", "current_bw"), ret);
	else
		tap_ok(ret == 0 && cg_key(CG, "cpu.stat", "current_bw") == -1,
		       "v1 burst %lld set; stock cpu.stat has no current_bw (ret %d)", burst, ret);

	ret = bw_burst_after_idle(CG, cpu_count(), IDLE_USEC, THROTTLE_TIMEOUT_US, STALL_USEC, &b);
	hog_stop();
	burst_diag("v1 accumulation", &b, Q + burst, Q);
	tap_ok(ret == 0 && burst_near(&b, Q + burst, Q),
	       "v1: after idling, CPU before the first throttle is about quota + burst %lld (got %lld..%lld, ret %d)",
	       Q + burst, b.lo, b.hi, ret);
	if (p)
		tap_ok(ret == 0 && b.max_bw >= 0 && b.max_bw <= Q + burst,
		       "v1 current_bw sampled %d times during the run, highest %lld us <= %lld",
		       b.samples, b.max_bw, Q + burst);
	else
		tap_ok(ret == 0 && b.max_bw == -1 && b.samples > 0,
		       "v1 current_bw absent in all %d samples on stock", b.samples);

out:
	hog_stop();
	ret = cg_destroy(CG, V1);
	ret = ret ?: (umount(V1) ? -errno : 0);
	tap_ok(ret == 0, "removed %s, unmounted %s (ret %d)", CG, V1, ret);
	/* Give cpu back to v2 for whatever runs next; no check, it may lag. */
	cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
}

const struct burst_test test_v1 = { "cgroup-v1", 19, run };
