// SPDX-License-Identifier: GPL-2.0
/*
 * The long-run limit: however burst is set, a group that asks for far more
 * than its quota for 20 s uses no more than the pool it started with plus
 * one quota for each refill its period timer made (nr_periods), to within
 * a slice and a tick per CPU, and close to that. The load is one process
 * per CPU that spins 3 ms and sleeps 1 ms, over and over: 1.5 CPUs asked
 * of a group given 0.2, and every sleep empties a runqueue, which hands
 * its runtime back. A kernel that returned one slice too many per return,
 * or gave one quota too many in the whole run, is above the bound.
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
#define ON_US 3000LL
#define OFF_US 1000LL

static void run(void)
{
	long long burst = expect_patched() ? 3 * Q : Q, t0, t1, n, used, bound, low, periods, start_pool, margin;
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
	ret = ret ?: blinker_start(CG, "cgroup.procs", cpu_count(), ON_US, OFF_US);
	/* Stall debt near the end would still be owed: end on a quiet second. */
	if (!ret)
		sleep_settled(RUN_USEC, 10 * PERIOD_US, STALL_USEC, 5000000);
	ret = ret ?: bw_sample(CG, &s1);
	t1 = now_usec();
	hog_stop();

	/*
	 * What the group may have used: the pool it started with (our kernel
	 * reports it, every missed period credited; without current_bw_usec,
	 * the cap, which bounds any pool) and a quota for each refill the timer
	 * made. Beyond it: runtime a CPU overran before its tick noticed, still
	 * owed at the end (at most a tick per CPU once the guest was quiet),
	 * and a slice per CPU for the accounting of the reads. The lower bound, 80% of quota a
	 * period, leaves room for TCG stalls.
	 */
	n = (t1 - t0 + PERIOD_US - 1) / PERIOD_US;
	periods = s1.nr_periods - s0.nr_periods;
	start_pool = s0.current_bw >= 0 ? s0.current_bw : Q + burst;
	margin = cpu_count() * (SLICE_US + TICK_US);
	bound = start_pool + Q * periods + margin;
	low = Q * n * 8 / 10;
	used = s1.usage - s0.usage;
	if (!ret)
		tap_diag("long run: %d blinkers (%lld us on, %lld us off), %.2f s: usage %lld us, bound %lld (pool %lld + quota %lld x %lld refills + %lld), %lld us over pool + refills; nr_throttled +%lld",
			 cpu_count(), ON_US, OFF_US, (t1 - t0) / 1e6, used, bound, start_pool, Q, periods,
			 margin, used - start_pool - Q * periods, s1.nr_throttled - s0.nr_throttled);
	tap_ok(ret == 0 && used <= bound,
	       "[" F_ABOVE "] usage %lld us <= pool %lld + quota x refills %lld + a slice and a tick per CPU %lld (ret %d)",
	       used, start_pool, Q * periods, margin, ret);
	tap_ok(ret == 0 && used >= low, "[" F_ABOVE "] usage %lld us >= 80%% of quota x periods %lld", used, low);
	/* The timer ran every period: counted periods match the elapsed time. */
	tap_ok(ret == 0 && periods >= n - 3 && periods <= n + 1,
	       "[" F_ABOVE "] nr_periods rose by %lld over %lld elapsed periods", periods, n);
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "[" F_ABOVE "] remove %s", CG);
}

const struct burst_test test_long_run = { "long-run-limit-v2", 5, run };
