// SPDX-License-Identifier: GPL-2.0
/*
 * A group that idled saves quota + burst (exact, against the model), can
 * spend it at once (timed: CPU before the first throttle), and is charged
 * for it in the burst statistics exactly: over the refills during the
 * burst, what was used beyond their quota sums to what the pool held above
 * one quota, because the pool went from full to empty with no slack handed
 * back (the hogs never sleep). So burst_usec rises by quota + burst -
 * quota = burst, on our kernel (burst 7 quotas) and on stock (burst =
 * quota, saved by the two timer refills before the timer stops); each
 * refill during the burst counts one nr_bursts. Then the group is held to
 * one quota a period.
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/accumulate"
#define Q QUOTA_US
#define P PERIOD_US
#define WINDOW_PERIODS 5

static struct pool_model m;

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, pool = Q + burst, used, k, start;
	struct bw_sample s0, s1, after;
	struct pool_read r;
	struct bw_burst b;
	int ret;

	ret = pm_new_group(&m, CG, Q, P, burst);
	start = m.start;
	if (!tap_ok(ret == 0, "[" F_ABOVE "] group quota %lld, period %lld, burst %lld (ret %d)",
		    Q, P, burst, ret)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	/* Just after a boundary, so that the burst is over before the next one. */
	period_wait_index(&m.clk, start + 10, 2000);
	ret = pool_read(CG, &m.clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_CREDIT " " F_CURBW,
		 "ten idle periods: quota + burst saved");
	ret = ret ?: bw_until_throttled(CG, NULL, cpu_count(), THROTTLE_TIMEOUT_US, &b);
	if (!tap_ok(ret == 0, "ran %d hogs until throttled (ret %d)", cpu_count(), ret)) {
		tap_abandon("no throttle: %s", strerror(-ret));
		hog_stop();
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	ret = bw_sample(CG, &after);
	burst_diag(p ? "accumulation (patched: pool = quota + burst = 8 quotas)" :
		       "accumulation (stock: pool = quota + burst = 2 quotas)", &b, pool, Q);
	tap_ok(burst_near(&b, pool, Q),
	       "[" F_ABOVE " " F_CREDIT "] after idling, CPU before the first throttle is about quota + burst %lld (got %lld..%lld)",
	       pool, b.lo, b.hi);
	tap_ok(ret == 0 && after.burst_usec - r.s.burst_usec == burst,
	       "[" F_ABOVE " " F_CREDIT "] burst_usec rose by exactly the burst %lld (%lld -> %lld)",
	       burst, r.s.burst_usec, after.burst_usec);
	tap_ok(ret == 0 && after.nr_bursts > r.s.nr_bursts &&
	       after.nr_bursts - r.s.nr_bursts <= after.nr_periods - r.s.nr_periods,
	       "nr_bursts rose by one for each refill during the burst: %lld over %lld refills",
	       after.nr_bursts - r.s.nr_bursts, after.nr_periods - r.s.nr_periods);

	/*
	 * Then one quota per refill. Over a window with k refills (nr_periods)
	 * the hogs use at least the k - 1 quotas whose periods ended inside it,
	 * less the usage of a running task not yet accounted at either end (a
	 * tick per CPU); at most those k quotas, what the pool held at the
	 * start (one quota at most: the hogs empty it every period) and the
	 * overrun of guest stalls (slop). A stall inside is debt repaid later:
	 * the window goes on until it is.
	 */
	ret = bw_sample(CG, &s0);
	sleep_settled(WINDOW_PERIODS * P, 5 * P, STALL_USEC, 2000000);
	ret = ret ?: bw_sample(CG, &s1);
	k = s1.nr_periods - s0.nr_periods;
	used = s1.usage - s0.usage;
	tap_diag("then %lld us in %lld refills (%.2f quotas a refill)", used, k,
		 k ? (double)used / Q / k : 0.0);
	tap_ok(ret == 0 && k >= WINDOW_PERIODS - 1 && used >= Q * (k - 1) - 2 * tick_slop_us() &&
	       used <= Q * (k + 1) + slop_us(),
	       "next %d periods use a quota each: %lld us over %lld refills within %lld..%lld",
	       WINDOW_PERIODS, used, k, Q * (k - 1) - 2 * tick_slop_us(), Q * (k + 1) + slop_us());
	hog_stop();
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_accumulate = { "accumulate-idle-v2", 8, run };
