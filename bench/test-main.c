// SPDX-License-Identifier: GPL-2.0
/*
 * burstbench's host unit tests: TAP on stdout, the plan at the end, then
 * "N passed, N failed"; exits non-zero when a check failed.
 * Usage: test-bench [BURSTBENCH]  (with the binary, also check the binary)
 */
#include <stdarg.h>
#include <stdio.h>

#include "check.h"

static int passed, failed;

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", passed + failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (cond)
		passed++;
	else
		failed++;
	return cond;
}

void check_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_stats();
	test_args();
	test_cgroup();
	if (argc > 1)
		test_cli(argv[1]);
	printf("1..%d\n", passed + failed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
