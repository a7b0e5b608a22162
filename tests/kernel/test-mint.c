// SPDX-License-Identifier: GPL-2.0
/*
 * A drained group whose cpu.max is rewritten 7 times must not get run-time
 * it never saved. Mainline refills the pool by one quota on every write,
 * up to quota + burst, so the seven writes hand a drained group up to
 * quota + burst at once; with the keep-pool patch a write leaves the pool
 * as it was. The check reads only what the group ran (usage_usec), not
 * current_bw, and keeps burst at quota, which mainline accepts: it runs on
 * every prefix of the series and on Debian's kernel. A long period (1 s,
 * quota and burst 200 ms) leaves room for the drain, the writes and a
 * window of hogs inside one period, and makes the minted run-time (400 ms
 * on mainline) ten times the slop a TCG guest's stalls may add (tests.h).
 * Stock is expected to mint at least a quota: the check's teeth, shown on
 * the unpatched kernel in every run of the stock suite.
 */
#include <stdbool.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/mint"
#define MP 1000000LL
#define MQ 200000LL
#define TRIES 3
/* The window of hogs ends this long before the period's end. */
#define MARGIN_US 150000LL
/* Long enough for the hogs to spend a minted quota + burst on one CPU */
#define MIN_WINDOW_US 450000LL
/* No usage for this long, hogs running: throttled (a tick is 1 or 4 ms) */
#define FLAT_US 20000LL

/*
 * Run hogs in @cg from 5 ms into a period until its usage stops rising for
 * FLAT_US (throttled: the pool is spent), then rewrite cpu.max 7 times and
 * count what the hogs run until MARGIN_US before the period ends. 0, 1 when
 * the period ended too soon (try again), or -errno.
 */
static int once(const struct period_clock *clk, long long *got)
{
	struct bw_sample s0, s1;
	long long k, end, flat_since, last;
	bool in_k;
	int ret, w;

	period_wait(clk, 5000);
	k = period_now(clk);
	end = period_start(clk, k + 1) - MARGIN_US;
	ret = hog_start(CG, "cgroup.procs", cpu_count()) ?: bw_sample(CG, &s0);
	last = s0.usage;
	flat_since = now_usec();
	while (!ret && now_usec() - flat_since < FLAT_US) {
		if (now_usec() > end - MIN_WINDOW_US) {
			hog_stop();
			return 1;
		}
		sleep_usec(2000);
		ret = bw_sample(CG, &s0);
		if (!ret && s0.usage != last) {
			last = s0.usage;
			flat_since = now_usec();
		}
	}
	for (w = 0; w < 7 && !ret; w++)
		ret = cg_write(CG, "cpu.max", "%lld %lld", MQ, MP);
	ret = ret ?: bw_sample(CG, &s0);
	if (!ret && now_usec() < end)
		sleep_usec(end - now_usec());
	ret = ret ?: bw_sample(CG, &s1);
	/*
	 * The drain, the writes and the window all in period k. Read before
	 * the hogs are stopped: a throttled task exits only once the next
	 * refill lets it run.
	 */
	in_k = period_now(clk) == k;
	hog_stop();
	if (ret)
		return ret;
	if (!in_k)
		return 1;
	*got = s1.usage - s0.usage;
	return 0;
}

static void run(void)
{
	struct period_clock clk;
	long long got = -1;
	int ret, i;

	ret = period_group(CG, MP, &clk);
	ret = ret ?: cg_write(CG, "cpu.max.burst", "%lld", MQ);
	ret = ret ?: cg_write(CG, "cpu.max", "%lld %lld", MQ, MP);
	for (i = 1; i <= TRIES && !ret; i++) {
		ret = once(&clk, &got);
		if (ret == 1 && i < TRIES) {
			tap_diag("mint: the drain or the window did not fit in one period: again");
			ret = 0;
			continue;
		}
		break;
	}
	if (expect_patched())
		tap_ok(!ret && got >= 0 && got <= slop_us(),
		       "[" F_KEEP "] drained group, cpu.max rewritten 7 times: ran %lld us before the next refill, at most %lld (slop), mainline up to %lld (ret %d)",
		       got, slop_us(), 2 * MQ, ret);
	else
		tap_ok(!ret && got >= MQ,
		       "stock: drained group, cpu.max rewritten 7 times: ran %lld us before the next refill, minted at least a quota %lld (ret %d)",
		       got, MQ, ret);
	cg_destroy(CG, CG2_ROOT);
}

const struct burst_test test_mint = { "mint-v2", 1, run };
