// SPDX-License-Identifier: GPL-2.0
/*
 * Nested v2 groups: a child with burst bursts on its own savings while
 * its parent has room, but the parent's limit holds over the whole
 * subtree even when the child has saved more than the parent's quota.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define PARENT CG2_ROOT "/nest"
#define CHILD PARENT "/child"
#define OTHER PARENT "/other"
/* The child: 0.4 CPU, burst 4 quotas (stock: 1). */
#define QC 40000LL
/* The parent: first 3 CPUs, room for the child's whole burst; then 0.3 CPU. */
#define QP_WIDE 300000LL
#define QP 30000LL
#define WINDOW_USEC 3000000LL

static void cleanup(void)
{
	hog_stop();
	cg_destroy(CHILD, CG2_ROOT);
	cg_destroy(OTHER, CG2_ROOT);
	cg_destroy(PARENT, CG2_ROOT);
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 4 * QC : QC, pool = QC + burst, t0, t1, n, bound, low;
	struct bw_sample a0, a1, c0, c1;
	int ncpu = cpu_count(), ret, run;
	struct bw_burst b;

	ret = cg_create(PARENT);
	ret = ret ?: cg_write(PARENT, "cgroup.subtree_control", "+cpu");
	ret = ret ?: cg_write(PARENT, "cpu.max", "%lld %lld", QP_WIDE, PERIOD_US);
	ret = ret ?: bw_group(CHILD, QC, PERIOD_US, burst);
	ret = ret ?: cg_create(OTHER);
	if (!tap_ok(ret == 0, "[" F_ABOVE "] parent quota %lld; child quota %lld, burst %lld; unlimited sibling (ret %d)",
		    QP_WIDE, QC, burst, ret)) {
		tap_abandon("cannot set up %s: %s", PARENT, strerror(-ret));
		cleanup();
		return;
	}

	/* The child bursts on its own savings. */
	ret = bw_burst_after_idle(CHILD, ncpu, IDLE_USEC, THROTTLE_TIMEOUT_US, STALL_USEC, &b);
	hog_stop();
	burst_diag("nested: child after idling", &b, pool, QC);
	tap_ok(ret == 0 && burst_near(&b, pool, QC),
	       "[" F_ABOVE " " F_CREDIT "] child under a wide parent bursts to about quota + burst %lld (got %lld..%lld, ret %d)",
	       pool, b.lo, b.hi, ret);

	/* Now the parent's quota is below what the child saves. */
	ret = cg_write(PARENT, "cpu.max", "%lld %lld", QP, PERIOD_US);
	tap_ok(ret == 0, "[" F_ABOVE "] parent quota lowered to %lld, below the child's quota + burst (ret %d)",
	       QP, ret);
	for (run = 1; !ret && run <= 3; run++) {
		/* Neither group may start with debt from the run before. */
		ret = bw_reset(CHILD) ?: bw_reset(PARENT);
		if (ret)
			break;
		sleep_usec(IDLE_USEC);
		ret = bw_until_throttled(CHILD, PARENT, ncpu, THROTTLE_TIMEOUT_US, &b);
		if (ret || b.max_gap <= STALL_USEC || run == 3)
			break;
		tap_diag("the guest stalled for %lld us during the run: measuring again", b.max_gap);
		hog_stop();
	}
	burst_diag("nested: child until the parent's throttle", &b, QP, QP);
	tap_ok(ret == 0 && burst_near(&b, QP, QP),
	       "[" F_ABOVE "] child with %lld saved is held to the parent's quota %lld (got %lld..%lld, ret %d)",
	       pool, QP, b.lo, b.hi, ret);

	/* Child and sibling flat out: the subtree stays within the parent's limit. */
	ret = ret ?: hog_start(OTHER, "cgroup.procs", ncpu);
	t0 = now_usec();
	ret = ret ?: bw_sample(PARENT, &a0);
	ret = ret ?: bw_sample(CHILD, &c0);
	if (!ret)
		sleep_settled(WINDOW_USEC, 5 * PERIOD_US, STALL_USEC, 2000000);
	ret = ret ?: bw_sample(CHILD, &c1);
	ret = ret ?: bw_sample(PARENT, &a1);
	t1 = now_usec();
	hog_stop();
	/* The parent has no burst: its pool holds at most one quota. */
	n = (t1 - t0 + PERIOD_US - 1) / PERIOD_US + 1;
	bound = QP * n + slop_us();
	low = QP * n * 8 / 10;
	if (ret) {
		tap_ok(false, "[" F_ABOVE "] subtree usage within the parent's bound: not measured (ret %d)", ret);
	} else {
		tap_diag("nested: subtree used %lld us in %.2f s (child %lld, sibling %lld), bound %lld, ratio %.3f",
			 a1.usage - a0.usage, (t1 - t0) / 1e6, c1.usage - c0.usage,
			 a1.usage - a0.usage - (c1.usage - c0.usage), bound,
			 (double)(a1.usage - a0.usage) / bound);
		tap_ok(a1.usage - a0.usage <= bound && a1.usage - a0.usage >= low,
		       "[" F_ABOVE "] subtree used %lld us in %lld periods: within %lld..%lld (parent quota x periods)",
		       a1.usage - a0.usage, n, low, bound);
	}

	cleanup();
	tap_ok(access(PARENT, F_OK) != 0, "removed %s", PARENT);
}

const struct burst_test test_nested = { "nested-v2", 6, run };
