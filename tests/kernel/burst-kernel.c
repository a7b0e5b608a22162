// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest suite for CFS bandwidth burst. Every check asserts what the
 * kernel under test must do: BURSTCFS_EXPECT=patched for our series,
 * =stock for Debian's kernel (mainline semantics: burst <= quota).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cg.h"
#include "../../lib/tap.h"
#include "tests.h"

/* Legacy-hierarchy tests come last: they take the cpu controller from v2. */
static const struct burst_test *const tests[] = {
	&test_interface_v2,
	&test_three_field,
	&test_bad_input,
	&test_pool_idle,
	&test_pool_updates,
	&test_credit_paths[0],
	&test_credit_paths[1],
	&test_credit_paths[2],
	&test_credit_paths[3],
	&test_credit_paths[4],
	&test_slack_return,
	&test_onset,
	&test_accumulate,
	&test_burst_enabled,
	&test_nested,
	&test_long_run,
	&test_mint,
	&test_late_timer,
	&test_v1,
};

int main(void)
{
	long long start = now_usec();
	struct utsname u;
	size_t i;
	int plan = 0, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	tap_diag("kernel %s, expecting %s semantics, %d CPUs", u.release,
		 expect_patched() ? "patched" : "stock", cpu_count());
	ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
	if (ret)
		tap_bail("cannot enable the cpu controller: %s", strerror(-ret));
	burst_sysctls_default();

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		plan += tests[i]->checks;
	tap_plan(plan);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct burst_test *t = tests[i];
		int first = tap_count(), done;
		long long t0 = now_usec();
		const char *why;

		tap_diag("--- %s", t->name);
		t->run();
		hog_stop();
		burst_sysctls_default();
		why = tap_abandoned();
		done = tap_count() - first;
		if (done > t->checks)
			tap_diag("ERROR: %s made %d checks, declares %d", t->name, done, t->checks);
		for (; done < t->checks; done++)
			tap_ok(false, "%s: check %d not reached: %s", t->name, done + 1,
			       why ? why : "the group returned early without a reason");
		tap_diag("%s took %.1f s", t->name, (now_usec() - t0) / 1e6);
	}
	tap_diag("suite took %.1f s", (now_usec() - start) / 1e6);
	return tap_failed() ? 1 : 0;
}
