// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_cfs_bw_burst_enabled: 0 sets the pool to exactly quota at
 * each refill (no carry-over), 1 lets groups save again. Stock has no
 * such sysctl (ENOENT) and always carries over up to burst <= quota.
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/enabled"
#define Q QUOTA_US

static void set_enabled(const char *val, int want_ret, long long want, const char *what)
{
	long long v = -1;
	int ret = sysctl_write(SYSCTL_BURST_ENABLED, val), rret = sysctl_get(SYSCTL_BURST_ENABLED, &v);

	if (expect_patched())
		tap_ok(ret == want_ret && rret == 0 && v == want,
		       "burst_enabled '%s' %s, reads %lld (ret %d, reads %lld)", val, what, want, ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "stock: no burst_enabled sysctl, write '%s' and read are ENOENT (ret %d, read %d)",
		       val, ret, rret);
}

static void burst_after_idle(long long pool, const char *what)
{
	struct bw_burst b;
	int ret;

	ret = bw_burst_after_idle(CG, cpu_count(), IDLE_USEC, THROTTLE_TIMEOUT_US, STALL_USEC, &b);
	hog_stop();
	burst_diag(what, &b, pool, Q);
	tap_ok(ret == 0 && burst_near(&b, pool, Q),
	       "%s: CPU before the first throttle after idling is about %lld us (got %lld..%lld, ret %d)",
	       what, pool, b.lo, b.hi, ret);
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, v = -1;
	int ret;

	ret = sysctl_get(SYSCTL_BURST_ENABLED, &v);
	if (p)
		tap_ok(ret == 0 && v == 1, "burst_enabled defaults to 1 (ret %d, reads %lld)", ret, v);
	else
		tap_ok(ret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ENABLED, ret);

	ret = bw_group(CG, Q, PERIOD_US, burst);
	if (!tap_ok(ret == 0, "group quota %lld, burst %lld (ret %d)", Q, burst, ret)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	set_enabled("0", 0, 0, "accepted");
	set_enabled("2", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("-1", -EINVAL, 0, "is EINVAL, unchanged");
	set_enabled("abc", -EINVAL, 0, "is EINVAL, unchanged");
	/* Stock keeps its usual carry-over: 2 quotas (burst = quota). */
	burst_after_idle(p ? Q : Q + burst, p ? "burst disabled" : "stock");

	set_enabled("1", 0, 1, "accepted");
	burst_after_idle(Q + burst, p ? "burst re-enabled" : "stock");

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_burst_enabled = { "burst-enabled-sysctl", 10, run };
