// SPDX-License-Identifier: GPL-2.0
/*
 * The long-run limit: however burst is set, a group running flat out for
 * 20 s uses no more than quota per elapsed period plus one burst, and
 * (being limited far below what it asks for) close to that.
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/longrun"
#define Q QUOTA_US
#define RUN_USEC 20000000LL

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 3 * Q : Q, t0, t1, n, used, bound, low, periods;
	struct bw_sample s0, s1;
	int ret;

	ret = bw_group(CG, Q, PERIOD_US, burst);
	if (!tap_ok(ret == 0, "[" F_ABOVE "] group quota %lld, period %lld, burst %lld (ret %d)",
		    Q, PERIOD_US, burst, ret)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	/* Start with the pool as full as it gets: the bound's worst case. */
	sleep_usec(IDLE_USEC);

	t0 = now_usec();
	ret = bw_sample(CG, &s0);
	ret = ret ?: hog_start(CG, "cgroup.procs", cpu_count());
	/* Stall debt near the end would still be owed: end on a quiet second. */
	if (!ret)
		sleep_settled(RUN_USEC, 10 * PERIOD_US, STALL_USEC, 5000000);
	ret = ret ?: bw_sample(CG, &s1);
	t1 = now_usec();
	hog_stop();

	/*
	 * Periods that began in [t0, t1], plus the pool the group started
	 * with (quota + burst at most); the hogs' leftover runtime and tick
	 * overrun add slop. The lower bound, 80% of quota a period, leaves
	 * room for TCG stalls: the group asks for every CPU and gets 0.2.
	 */
	n = (t1 - t0 + PERIOD_US - 1) / PERIOD_US + 1;
	bound = Q * n + burst + slop_us();
	low = Q * n * 8 / 10;
	used = s1.usage - s0.usage;
	periods = s1.nr_periods - s0.nr_periods;
	if (!ret)
		tap_diag("long run: %d hogs, %.2f s: usage %lld us, bound %lld (quota %lld x %lld periods + burst %lld + slop %lld), ratio %.4f; nr_periods +%lld, nr_throttled +%lld",
			 cpu_count(), (t1 - t0) / 1e6, used, bound, Q, n, burst, slop_us(),
			 (double)used / bound, periods, s1.nr_throttled - s0.nr_throttled);
	tap_ok(ret == 0 && used <= bound, "[" F_ABOVE "] usage %lld us <= quota x periods + burst + slop %lld (ret %d)",
	       used, bound, ret);
	tap_ok(ret == 0 && used >= low, "[" F_ABOVE "] usage %lld us >= 80%% of quota x periods %lld", used, low);
	/* The timer ran every period: counted periods match the elapsed time. */
	tap_ok(ret == 0 && periods >= n - 3 && periods <= n,
	       "[" F_ABOVE "] nr_periods rose by %lld over %lld elapsed periods", periods, n - 1);
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "[" F_ABOVE "] remove %s", CG);
}

const struct burst_test test_long_run = { "long-run-limit-v2", 5, run };
