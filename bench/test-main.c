// SPDX-License-Identifier: GPL-2.0
/*
 * burstbench's host unit tests: TAP on stdout, the plan at the end, then
 * "N passed, N failed"; exits non-zero when a check failed.
 * Usage: test-bench [BURSTBENCH]  (with the binary, also check the binary)
 */
#include <stdio.h>

#include "test.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_stats();
	test_args();
	test_cgroup();
	if (argc > 1)
		test_cli(argv[1]);
	printf("1..%d\n", tap_count());
	printf("%d passed, %d failed\n", tap_count() - tap_failed(), tap_failed());
	return tap_failed() ? 1 : 0;
}
