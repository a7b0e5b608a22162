// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.stat current_bw_usec (v2): the pool level, present with the series,
 * absent on stock; sampled while the group runs and idles it never
 * exceeds the buffer min(quota + burst, max_cfs_runtime).
 */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/currentbw"
#define Q QUOTA_US
#define SAMPLE_USEC 2000

struct watch {
	int samples, absent, above;	/* above: samples over the buffer */
	long long max, min, worst_buffer;
};

/* Sample cpu.stat every 2 ms for @usec; the pool may hold at most @buffer. */
static int watch_for(struct watch *w, long long usec, long long buffer)
{
	long long end = now_usec() + usec;
	struct bw_sample s;
	int ret;

	while (now_usec() < end) {
		ret = bw_sample(CG, &s);
		if (ret)
			return ret;
		w->samples++;
		if (s.current_bw < 0) {
			w->absent++;
		} else {
			if (s.current_bw > buffer) {
				w->above++;
				w->worst_buffer = buffer;
			}
			if (s.current_bw > w->max)
				w->max = s.current_bw;
			if (s.current_bw < w->min)
				w->min = s.current_bw;
		}
		sleep_usec(SAMPLE_USEC);
	}
	return 0;
}

static void run(void)
{
	bool p = expect_patched();
	long long burst = p ? 3 * Q : Q, cur, b0, b1, v;
	struct watch w = { .max = -1, .min = 1LL << 62 };
	struct bw_sample s;
	int ret, ncpu = cpu_count();

	/*
	 * Burst first, while there is no limit, so that setting cpu.max is
	 * the only bandwidth update that fills the pool: one quota at the
	 * default onset of 0.
	 */
	ret = cg_create(CG);
	if (!ret)
		ret = cg_write(CG, "cpu.max.burst", "%lld", burst);
	if (!ret)
		ret = cg_write(CG, "cpu.max", "%lld %lld", Q, PERIOD_US);
	cur = cg_key(CG, "cpu.stat", "current_bw_usec");
	if (p)
		tap_ok(ret == 0 && cur == Q,
		       "fresh group (quota %lld, burst %lld): current_bw_usec is one quota (ret %d, reads %lld)",
		       Q, burst, ret, cur);
	else
		tap_ok(ret == 0 && cur == -1 && cg_key(CG, "cpu.stat", "burst_usec") >= 0,
		       "stock cpu.stat has no current_bw_usec (ret %d, reads %lld)", ret, cur);
	if (ret) {
		tap_abandon("cannot set up %s: %s", CG, strerror(-ret));
		cg_destroy(CG, CG2_ROOT);
		return;
	}

	/* Flat out, idle, then flat out again with a smaller burst. */
	b0 = bw_sample(CG, &s) ? -1 : s.nr_bursts;
	ret = hog_start(CG, "cgroup.procs", ncpu);
	if (!ret)
		ret = watch_for(&w, 1500000, Q + burst);
	hog_stop();
	if (!ret)
		ret = watch_for(&w, 5 * PERIOD_US, Q + burst);

	ret = ret ?: cg_write(CG, "cpu.max.burst", "5000");
	v = cg_num(CG, "cpu.max.burst");
	cur = cg_key(CG, "cpu.stat", "current_bw_usec");
	if (p)
		tap_ok(ret == 0 && v == 5000 && cur >= 0 && cur <= Q + 5000,
		       "lowering burst to 5000 caps the pool at once: current_bw_usec %lld <= %lld (ret %d)",
		       cur, Q + 5000, ret);
	else
		tap_ok(ret == 0 && v == 5000 && cur == -1,
		       "lowering burst to 5000 (ret %d, reads %lld), no current_bw_usec", ret, v);

	if (!ret)
		ret = watch_for(&w, 5 * PERIOD_US, Q + 5000);
	if (!ret)
		ret = hog_start(CG, "cgroup.procs", ncpu);
	if (!ret)
		ret = watch_for(&w, 5 * PERIOD_US, Q + 5000);
	hog_stop();
	b1 = bw_sample(CG, &s) ? -1 : s.nr_bursts;

	tap_diag("current_bw_usec: %d samples, max %lld, min %lld, %d above the buffer, %d absent",
		 w.samples, w.max, w.samples > w.absent ? w.min : -1, w.above, w.absent);
	if (p)
		tap_ok(ret == 0 && w.samples >= 100 && !w.absent && !w.above && w.min >= 0,
		       "%d samples while running and idle, none above the buffer (max %lld, %d above %lld, ret %d)",
		       w.samples, w.max, w.above, w.worst_buffer, ret);
	else
		tap_ok(ret == 0 && w.samples >= 100 && w.absent == w.samples,
		       "%d samples while running and idle, current_bw_usec absent in all (ret %d)",
		       w.samples, ret);
	/*
	 * The idle phase after flat out earns quota at the timer's expiries:
	 * with burst 3 quotas the pool must show more than a quota saved.
	 * Both kernels burst (stock: burst = quota) when flat out resumes.
	 */
	if (p)
		tap_ok(w.max > Q && b1 > b0,
		       "pool seen above one quota (max %lld > %lld) and nr_bursts rose (%lld -> %lld)",
		       w.max, Q, b0, b1);
	else
		tap_ok(b1 > b0, "nr_bursts rose (%lld -> %lld)", b0, b1);

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_current_bw = { "current-bw-v2", 5, run };
