// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks that run briefly and sleep return their CPUs' unused runtime
 * slices to the pool.  That return must respect the pool's cap too: the
 * pool never holds more than min(quota + burst, max_cfs_runtime), even when
 * a refill has just capped it while CPUs still held slices. One exact check
 * makes that happen on purpose (a child spinning across a boundary on one
 * slice); many blinking tasks then look for it happening by chance.
 */
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/slack"
#define Q QUOTA_US
#define BURST_US 5000LL
#define BLINKERS 2
#define BLINK_ON_US 100LL
#define BLINK_OFF_US 3000LL
#define RUN_USEC 3000000LL
#define CG_CAP CG2_ROOT "/slackcap"
/*
 * A slice as large as the quota: the child's one slice then covers the
 * CPU that TCG stalls charge to it (several ms at times).
 */
#define SLICE_SYSCTL "sched_cfs_bandwidth_slice_us"
#define CAP_SLICE_US 20000LL
/* The child starts this long before a boundary and spins past it. */
#define LEAD_US 1500LL
#define SPIN_US 2500LL
#define CAP_TRIES 5

/*
 * The boundary's refill caps the pool while the child's CPU holds what is
 * left of its slice; the child's exit hands that back (less the 1 ms the
 * runqueue keeps). With the cap the pool stays at quota + burst; without
 * it, it ends above by what was handed back. A run the guest delayed past
 * the boundary, or that needed a second slice, is done again. The refill
 * fills the pool to its cap whatever it held: quota + burst - slice +
 * quota > quota + burst.
 */
static void refill_then_return(void)
{
	long long cap = Q + BURST_US, boundary = 0, used = 0, spun[2] = { 0, 0 };
	struct period_clock clk = { PERIOD_US, 0, 0 };
	struct pool_read r = { 0 };
	struct bw_sample s0;
	bool across = false;
	int ret, tries;

	ret = sysctl_write(SLICE_SYSCTL, "20000");
	ret = ret ?: period_group(CG_CAP, PERIOD_US, &clk);
	ret = ret ?: cg_write(CG_CAP, "cpu.max.burst", "%lld", BURST_US);
	ret = ret ?: cg_write(CG_CAP, "cpu.max", "%lld %lld", Q, PERIOD_US);
	for (tries = 1; !ret && !across && tries <= CAP_TRIES; tries++) {
		/* The rewrite zeroes what runqueues kept; two idle boundaries fill the pool. */
		ret = bw_reset(CG_CAP);
		period_wait(&clk, PERIOD_US / 2);
		period_wait(&clk, PERIOD_US / 2);
		boundary = period_start(&clk, period_now(&clk) + 1);
		ret = ret ?: bw_sample(CG_CAP, &s0);
		ret = ret ?: pinned_burn_at(CG_CAP, "cgroup.procs", 0, SPIN_US, boundary - LEAD_US, spun);
		ret = ret ?: pool_read(CG_CAP, &clk, &r);
		if (ret)
			break;
		used = r.s.usage - s0.usage;
		across = spun[0] < boundary && spun[1] > boundary && r.index == period_at(&clk, boundary) &&
			 used < CAP_SLICE_US - MIN_CFS_RQ_RUNTIME_US;
		if (!across)
			tap_diag("try %d: spun %+lld..%+lld us around the boundary, used %lld us, read %lld periods later: again",
				 tries, spun[0] - boundary, spun[1] - boundary, used,
				 r.index - period_at(&clk, boundary));
	}
	if (expect_patched())
		tap_ok(!ret && across && r.s.current_bw == cap,
		       "[" F_CURBW " " F_SLACK "] runtime handed back after a refill capped the pool: current_bw_usec %lld, the cap %lld (spun %+lld..%+lld us around the boundary, used %lld us, %d tries, ret %d)",
		       r.s.current_bw, cap, spun[0] - boundary, spun[1] - boundary, used, tries - 1, ret);
	else
		tap_ok(!ret && r.s.current_bw == -1,
		       "stock: a child ran across a boundary, no current_bw_usec (ret %d)", ret);
	sysctl_write(SLICE_SYSCTL, "5000");
	cg_destroy(CG_CAP, CG2_ROOT);
}

static void run(void)
{
	long long buffer = Q + BURST_US, end, max = -1;
	int ret, samples = 0, above = 0, absent = 0;
	struct bw_sample s;

	refill_then_return();
	ret = cg_create(CG);
	if (!ret)
		ret = cg_write(CG, "cpu.max.burst", "%lld", BURST_US);
	if (!ret)
		ret = cg_write(CG, "cpu.max", "%lld %lld", Q, PERIOD_US);
	/* Spin a little, sleep 3 ms, forever: slices are taken and handed back. */
	ret = ret ?: blinker_start(CG, "cgroup.procs", BLINKERS, BLINK_ON_US, BLINK_OFF_US);
	tap_ok(ret == 0, "%d blinking tasks in %s (quota %lld, burst %lld; ret %d)",
	       BLINKERS, CG, Q, BURST_US, ret);

	end = now_usec() + RUN_USEC;
	while (!ret && now_usec() < end) {
		ret = bw_sample(CG, &s);
		if (ret)
			break;
		samples++;
		if (s.current_bw < 0)
			absent++;
		else if (s.current_bw > buffer)
			above++;
		if (s.current_bw > max)
			max = s.current_bw;
		sleep_usec(500);
	}
	hog_stop();
	tap_diag("slack return: %d samples, max current_bw_usec %lld, %d above buffer %lld",
		 samples, max, above, buffer);
	if (expect_patched())
		tap_ok(ret == 0 && samples >= 1000 && !absent && !above,
		       "[" F_CURBW " " F_SLACK "] pool never above quota + burst (%d of %d samples above %lld, max %lld)",
		       above, samples, buffer, max);
	else
		tap_ok(ret == 0 && samples >= 1000 && absent == samples,
		       "stock reports no pool level (%d of %d samples without it)", absent, samples);
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_slack_return = { "slack-return-v2", 4, run };
