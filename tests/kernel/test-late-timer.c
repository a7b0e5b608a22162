// SPDX-License-Identifier: GPL-2.0
/*
 * A running period timer that fires late must credit every period that
 * ended meanwhile (the credit patch passes the timer's overrun), not one
 * quota as mainline does. Under TCG the guest's timer interrupts are late
 * now and then by a millisecond or more (the emulator, the host); against
 * a 100 ms period that is never a whole period, so no other check sees a
 * lost one. Here the period is the shortest the kernel takes, 1 ms, with a
 * quota of 1 ms and a spinner on every CPU: the group always wants twice
 * its quota, so whatever a refill brings is used at once, and over a few
 * seconds the group must have used a quota for every period nr_periods
 * counted (nr_periods adds the overrun on every kernel), less what may
 * still be held at the end: the pool (read where the kernel reports it,
 * else one quota), and a slice and a tick per CPU. The slice is set to
 * 1 ms for the run, so that margin stays small. Burst far above quota
 * keeps every late expiry's credit below the pool's cap. The window ends
 * on a quiet stretch, so no stall's debt is still owed.
 * Mainline credits one quota per expiry and loses the rest: the stock run
 * checks only that nothing was minted, and its diagnostic shows how much
 * mainline lost in the same run (the check's teeth on the unpatched
 * kernel; kernel/teeth/timer-credits-one-period.diff is the same fault
 * in the series).
 */
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/late"
#define LP 1000LL
#define LQ 1000LL
#define LB 200000LL
#define SLICE_SYSCTL "sched_cfs_bandwidth_slice_us"
/* The slice while the test runs: what a CPU may still hold at the end. */
#define LSLICE 1000LL
#define WINDOW_USEC 6000000LL

static void run(void)
{
	long long burst = expect_patched() ? LB : LQ, slice, k, used, pool_end, low, high, t0, t1;
	struct bw_sample s0 = { 0 }, s1 = { 0 };
	char num[32];
	int ret;

	slice = sysctl_num(SLICE_SYSCTL);
	ret = bw_group(CG, LQ, LP, burst);
	snprintf(num, sizeof(num), "%lld", LSLICE);
	ret = ret ?: sysctl_write(SLICE_SYSCTL, num);
	ret = ret ?: hog_start(CG, "cgroup.procs", cpu_count());
	/* The start-up's pool spent and the timer running before the window. */
	if (!ret)
		sleep_usec(100000);
	t0 = now_usec();
	ret = ret ?: bw_sample(CG, &s0);
	if (!ret)
		sleep_settled(WINDOW_USEC, 20 * LP, STALL_USEC, 2000000);
	ret = ret ?: bw_sample(CG, &s1);
	t1 = now_usec();
	hog_stop();
	if (slice > 0) {
		snprintf(num, sizeof(num), "%lld", slice);
		sysctl_write(SLICE_SYSCTL, num);
	}

	k = s1.nr_periods - s0.nr_periods;
	used = s1.usage - s0.usage;
	pool_end = s1.current_bw >= 0 ? s1.current_bw : LQ;
	low = LQ * (k - 1) - pool_end - cpu_count() * LSLICE - tick_slop_us();
	high = (s0.current_bw >= 0 ? s0.current_bw : LQ + burst) + LQ * k + cpu_count() * LSLICE +
	       tick_slop_us();
	if (ret)
		tap_diag("late timer: no run: %s", strerror(-ret));
	else
		tap_diag("late timer: %.2f s, %lld periods counted (%lld elapsed), %lld us used: %lld us less than a quota for every period counted (the pool at the end %lld us)",
			 (t1 - t0) / 1e6, k, (t1 - t0) / LP, used, LQ * k - used, pool_end);
	if (expect_patched())
		tap_ok(ret == 0 && k > 0 && used >= low && used <= high,
		       "[" F_ABOVE " " F_CREDIT "] late expiries of a running timer credit every period: %lld us used for %lld periods of %lld us, within %lld..%lld (ret %d)",
		       used, k, LQ, low, high, ret);
	else
		tap_ok(ret == 0 && k > 0 && used <= high,
		       "stock: late expiries of a running timer: %lld us used for %lld periods of %lld us, at most %lld (ret %d)",
		       used, k, LQ, high, ret);
	cg_destroy(CG, CG2_ROOT);
}

const struct burst_test test_late_timer = { "late-timer-v2", 1, run };
