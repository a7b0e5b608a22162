// SPDX-License-Identifier: GPL-2.0
/*
 * Accumulation across idle periods. With the series a group idle for N
 * periods gains N quotas, capped at quota + burst, even though the
 * period timer stopped while it idled; burst may be 7 quotas, so the
 * group finds 8 quotas. Stock: burst <= quota and the timer credits at
 * most the two periods before it stops, so the group finds 2 quotas.
 * With the slack of burst_near() the ranges stay apart: patched needs at
 * least 8 quotas - 45 ms = 115 ms, stock allows at most 2 quotas + 40 ms
 * (+ a quota per refill the timer made during the burst; runs start just
 * after a boundary, so there is usually none). Before idling, the pool
 * is spent and reset to one quota (bw_burst_after_idle), so a kernel
 * that credits only the periods its timer ran would find 3 quotas.
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/accumulate"
#define Q QUOTA_US
#define FALLBACK_PERIODS 5

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, pool = Q + burst, used, k;
	struct bw_sample before, s0, s1;
	struct bw_burst b;
	int ret;

	ret = bw_group(CG, Q, PERIOD_US, burst);
	if (!tap_ok(ret == 0, "group quota %lld, period %lld, burst %lld (ret %d)",
		    Q, PERIOD_US, burst, ret)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	ret = bw_sample(CG, &before);
	ret = ret ?: bw_burst_after_idle(CG, cpu_count(), IDLE_USEC, THROTTLE_TIMEOUT_US, STALL_USEC, &b);
	if (!tap_ok(ret == 0, "drained, idled %lld periods, ran %d hogs until throttled (ret %d)",
		    IDLE_USEC / PERIOD_US, cpu_count(), ret)) {
		tap_abandon("no throttle: %s", strerror(-ret));
		hog_stop();
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	burst_diag(p ? "accumulation (patched: pool = quota + burst = 8 quotas)" :
		       "accumulation (stock: pool = quota + burst = 2 quotas)", &b, pool, Q);
	tap_ok(burst_near(&b, pool, Q),
	       "after idling, CPU before the first throttle is about quota + burst %lld (got %lld..%lld)",
	       pool, b.lo, b.hi);

	/*
	 * Then the saving is spent: one quota per refill. Over a window with
	 * k refills (nr_periods) the hogs use at most what the pool held at
	 * its start, at most a quota, plus k quotas, and at least the k - 1
	 * quotas whose periods ended inside it; slop either way. A stall
	 * inside is debt repaid later: the window goes on until it is.
	 */
	ret = bw_sample(CG, &s0);
	sleep_settled(FALLBACK_PERIODS * PERIOD_US, 5 * PERIOD_US, STALL_USEC, 2000000);
	ret = ret ?: bw_sample(CG, &s1);
	k = s1.nr_periods - s0.nr_periods;
	used = s1.usage - s0.usage;
	tap_diag("then %lld us in %lld refills (%.2f quotas a refill)", used, k,
		 k ? (double)used / Q / k : 0.0);
	tap_ok(ret == 0 && k >= FALLBACK_PERIODS - 1 && used >= Q * (k - 1) - slop_us() &&
	       used <= Q * (k + 1) + slop_us(),
	       "next %d periods use a quota each: %lld us over %lld refills within %lld..%lld",
	       FALLBACK_PERIODS, used, k, Q * (k - 1) - slop_us(), Q * (k + 1) + slop_us());
	hog_stop();

	s0 = before;
	ret = bw_sample(CG, &s1);
	tap_ok(ret == 0 && s1.nr_bursts > s0.nr_bursts && s1.burst_usec > s0.burst_usec,
	       "nr_bursts %lld -> %lld, burst_usec %lld -> %lld",
	       s0.nr_bursts, s1.nr_bursts, s0.burst_usec, s1.burst_usec);
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_accumulate = { "accumulate-idle-v2", 6, run };
