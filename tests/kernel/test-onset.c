// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.sched_cfs_bw_burst_onset_percent: each bandwidth update grants
 * that share of burst at once, the pool capped at the buffer; with burst
 * disabled nothing beyond quota. Stock has no such sysctl (ENOENT) and a
 * freshly limited group starts with one quota.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define Q QUOTA_US

static char cg[128];

/*
 * A fresh group limited by @burst, then cpu.max "Q P": burst goes in
 * first, while unlimited, so cpu.max is the one update that fills the
 * pool. Returns 0 or -errno; *cur gets current_bw_usec (-1: absent).
 */
static int fresh(const char *name, long long burst, long long *cur)
{
	int ret;

	snprintf(cg, sizeof(cg), CG2_ROOT "/%s", name);
	ret = cg_create(cg);
	if (!ret)
		ret = cg_write(cg, "cpu.max.burst", "%lld", burst);
	if (!ret)
		ret = cg_write(cg, "cpu.max", "%lld %lld", Q, PERIOD_US);
	*cur = cg_key(cg, "cpu.stat", "current_bw_usec");
	return ret;
}

static void set_onset(const char *val, int want_ret, long long want, const char *what)
{
	long long v = -1;
	int ret = sysctl_write(SYSCTL_BURST_ONSET, val), rret = sysctl_get(SYSCTL_BURST_ONSET, &v);

	if (expect_patched())
		tap_ok(ret == want_ret && rret == 0 && v == want,
		       "onset '%s' %s, reads %lld (ret %d, reads %lld)", val, what, want, ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "stock: no onset sysctl, write '%s' and read are ENOENT (ret %d, read %d)",
		       val, ret, rret);
}

/*
 * Run every CPU flat out in the fresh group @name (limited by @burst)
 * until its first throttle; a run the guest stalled in is done again on
 * a new fresh group.
 */
static void burst_from_fresh(const char *name, long long burst, long long pool, const char *what)
{
	struct bw_burst b;
	long long cur;
	int ret, run;

	for (run = 1; ; run++) {
		ret = bw_until_throttled(cg, NULL, cpu_count(), THROTTLE_TIMEOUT_US, &b);
		hog_stop();
		if (ret || b.max_gap <= STALL_USEC || run == 3)
			break;
		tap_diag("the guest stalled for %lld us during the run: measuring again", b.max_gap);
		cg_destroy(cg, CG2_ROOT);
		ret = fresh(name, burst, &cur);
		if (ret)
			break;
	}
	burst_diag(what, &b, pool, Q);
	tap_ok(ret == 0 && burst_near(&b, pool, Q),
	       "%s: CPU before the first throttle is about %lld us (got %lld..%lld, ret %d)",
	       what, pool, b.lo, b.hi, ret);
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 7 * Q : Q, cur, v = -1;
	int ret, rret;

	rret = sysctl_get(SYSCTL_BURST_ONSET, &v);
	if (p)
		tap_ok(rret == 0 && v == 0, "onset percent defaults to 0 (ret %d, reads %lld)", rret, v);
	else
		tap_ok(rret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ONSET, rret);

	/* 100%: a fresh group starts with quota + burst. */
	set_onset("100", 0, 100, "accepted");
	ret = fresh("onset100", burst, &cur);
	if (p)
		tap_ok(ret == 0 && cur == Q + burst,
		       "onset 100: fresh group's pool is quota + burst %lld (ret %d, current_bw_usec %lld)",
		       Q + burst, ret, cur);
	else
		tap_ok(ret == 0 && cur == -1, "stock: fresh group, no current_bw_usec (ret %d, %lld)",
		       ret, cur);
	burst_from_fresh("onset100", burst, p ? Q + burst : Q, p ? "onset 100" : "stock fresh group");
	cg_destroy(cg, CG2_ROOT);

	/* 0: just the quota. */
	set_onset("0", 0, 0, "accepted");
	ret = fresh("onset0", burst, &cur);
	if (p)
		tap_ok(ret == 0 && cur == Q,
		       "onset 0: fresh group's pool is one quota (ret %d, current_bw_usec %lld)", ret, cur);
	else
		tap_ok(ret == 0 && cur == -1, "stock: fresh group, no current_bw_usec (ret %d, %lld)",
		       ret, cur);
	burst_from_fresh("onset0", burst, Q, p ? "onset 0" : "stock fresh group");
	cg_destroy(cg, CG2_ROOT);

	/* 50%, and every update grants again up to the buffer. */
	set_onset("50", 0, 50, "accepted");
	set_onset("101", -EINVAL, 50, "is EINVAL, unchanged");
	ret = fresh("onset50", burst, &cur);
	if (p)
		tap_ok(ret == 0 && cur == Q + burst / 2,
		       "onset 50: fresh group's pool is quota + burst/2 = %lld (ret %d, current_bw_usec %lld)",
		       Q + burst / 2, ret, cur);
	else
		tap_ok(ret == 0 && cur == -1, "stock: fresh group, no current_bw_usec (ret %d, %lld)",
		       ret, cur);
	ret = ret ?: cg_write(cg, "cpu.max.burst", "%lld", burst);
	cur = cg_key(cg, "cpu.stat", "current_bw_usec");
	if (p)
		tap_ok(ret == 0 && cur == Q + burst,
		       "onset 50: rewriting burst grants again, capped at quota + burst %lld (ret %d, current_bw_usec %lld)",
		       Q + burst, ret, cur);
	else
		tap_ok(ret == 0 && cur == -1, "stock: rewriting burst ok, no current_bw_usec (ret %d, %lld)",
		       ret, cur);
	cg_destroy(cg, CG2_ROOT);

	/* Burst disabled: onset grants nothing beyond quota. */
	set_onset("100", 0, 100, "accepted");
	ret = sysctl_write(SYSCTL_BURST_ENABLED, "0");
	if (p) {
		ret = ret ?: fresh("onsetoff", burst, &cur);
		tap_ok(ret == 0 && cur == Q,
		       "onset 100 with burst disabled: fresh group's pool is one quota (ret %d, current_bw_usec %lld)",
		       ret, cur);
		cg_destroy(cg, CG2_ROOT);
		sysctl_write(SYSCTL_BURST_ENABLED, "1");
	} else {
		tap_ok(ret == -ENOENT, "stock: no %s (ret %d)", SYSCTL_BURST_ENABLED, ret);
	}

	/* The pool is capped at max_cfs_runtime even when quota + burst is not. */
	ret = fresh("onsetmax", MAX_CFS_RUNTIME_US, &cur);
	if (p)
		tap_ok(ret == 0 && cur == MAX_CFS_RUNTIME_US,
		       "onset 100, burst max_cfs_runtime: pool capped at %lld (ret %d, current_bw_usec %lld)",
		       MAX_CFS_RUNTIME_US, ret, cur);
	else
		tap_ok(ret == -EINVAL && cg_num(cg, "cpu.max.burst") == MAX_CFS_RUNTIME_US,
		       "stock: quota %lld under burst max_cfs_runtime is EINVAL (ret %d)", Q, ret);
	cg_destroy(cg, CG2_ROOT);

	set_onset("-1", -EINVAL, 100, "is EINVAL, unchanged");
	ret = sysctl_write(SYSCTL_BURST_ONSET, "0");
	rret = sysctl_get(SYSCTL_BURST_ONSET, &v);
	if (p)
		tap_ok(ret == 0 && rret == 0 && v == 0 && sysctl_num(SYSCTL_BURST_ENABLED) == 1,
		       "defaults restored: onset 0, enabled 1 (ret %d, onset %lld)", ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT, "stock: onset stays absent (ret %d)", ret);
}

const struct burst_test test_onset = { "onset-percent", 16, run };
