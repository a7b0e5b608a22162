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
#include "tap.h"
#include "tests.h"

static const struct burst_test *const tests[] = {
	&test_interface_v2,
};

int main(void)
{
	struct utsname u;
	size_t i;
	int plan = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	tap_diag("kernel %s, expecting %s semantics", u.release,
		 expect_patched() ? "patched" : "stock");
	if (cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu"))
		tap_bail("cannot enable the cpu controller: %s", strerror(errno));

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		plan += tests[i]->checks;
	tap_plan(plan);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		tap_diag("--- %s", tests[i]->name);
		tests[i]->run();
	}
	return tap_failed() ? 1 : 0;
}
