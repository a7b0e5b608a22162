// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks that run briefly and sleep return their CPUs' unused runtime
 * slices to the pool.  That return must respect the pool's cap too: the
 * pool never holds more than min(quota + burst, max_cfs_runtime), even when
 * a refill has just capped it while CPUs still held slices.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg.h"
#include "pool.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/slack"
#define Q QUOTA_US
#define BURST_US 5000LL
#define BLINKERS 2
#define RUN_USEC 3000000LL

/* Spin a little, sleep 3 ms, forever: slices are taken and handed back. */
static pid_t blinker_start(void)
{
	volatile unsigned long i;
	pid_t pid = fork();

	if (pid)
		return pid;
	for (;;) {
		for (i = 0; i < 20000; i++)
			;
		usleep(3000);
	}
}

static void run(void)
{
	long long buffer = Q + BURST_US, end, max = -1;
	int i, ret, samples = 0, above = 0, absent = 0;
	pid_t pids[BLINKERS];
	struct bw_sample s;

	ret = cg_create(CG);
	if (!ret)
		ret = cg_write(CG, "cpu.max.burst", "%lld", BURST_US);
	if (!ret)
		ret = cg_write(CG, "cpu.max", "%lld %lld", Q, PERIOD_US);
	for (i = 0; i < BLINKERS; i++) {
		pids[i] = blinker_start();
		if (!ret)
			ret = cg_write(CG, "cgroup.procs", "%d", pids[i]);
	}
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
	for (i = 0; i < BLINKERS; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
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

const struct burst_test test_slack_return = { "slack-return-v2", 3, run };
