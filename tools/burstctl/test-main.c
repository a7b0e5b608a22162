// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl's host unit tests: TAP on stdout, the plan at the end, then
 * "burstctl: N passed, N failed"; exits non-zero when a check failed.
 * Usage: test-burstctl BURSTCTL  (the binary, for its command-line checks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		tap_bail("cannot write %s", path);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/test-burstctl.XXXXXX", cmd[64], bin[4096];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2)
		tap_bail("usage: test-burstctl BURSTCTL");
	/* The command-line checks run in tmp. */
	if (!realpath(argv[1], bin))
		tap_bail("%s: not found", argv[1]);
	if (!mkdtemp(tmp))
		tap_bail("mkdtemp failed");
	test_values();
	test_trace();
	test_advise();
	test_target(tmp);
	test_cli(bin, tmp);
	test_check(bin, tmp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		tap_diag("could not remove %s", tmp);
	printf("1..%d\n", tap_count());
	printf("burstctl: %d passed, %d failed\n", tap_count() - tap_failed(), tap_failed());
	return tap_failed() ? 1 : 0;
}
