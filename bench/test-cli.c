// SPDX-License-Identifier: GPL-2.0
/* The burstbench binary itself: exit statuses, messages, a short real run. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"

/* Run "BIN ARGS 2>&1", keep the first len bytes of output; the exit status. */
static int run(const char *bin, const char *args, char *out, size_t len)
{
	char cmd[1024];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", bin, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && fgets(out + n, len - n, p))
		n += strlen(out + n);
	while (fgetc(p) != EOF)
		;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void test_cli(const char *bin)
{
	char out[8192];
	int rc;

	rc = run(bin, "--help", out, sizeof(out));
	check(rc == 0 && strstr(out, "Usage: burstbench"), "burstbench --help: usage, status 0");
	rc = run(bin, "--rate 0", out, sizeof(out));
	if (!check(rc == 2 && strstr(out, "--rate: '0'"), "burstbench --rate 0: names it, status 2"))
		check_diag("status %d: %s", rc, out);
	rc = run(bin, "--cputime abc", out, sizeof(out));
	check(rc == 2 && strstr(out, "--cputime: 'abc'"), "burstbench --cputime abc: status 2");
	rc = run(bin, "--runtime", out, sizeof(out));
	check(rc == 2 && strstr(out, "needs a value"), "burstbench --runtime (no value): status 2");
	rc = run(bin, "--cgroup /nonexistent/cg --runtime 0.1", out, sizeof(out));
	check(rc == 2 && strstr(out, "'/nonexistent/cg'"),
	      "burstbench --cgroup with a missing directory: named, status 2");
	/* 0.25 s at 40 requests/s in batches of 2: 10 requests of 1 ms. */
	rc = run(bin, "--json --threads 2 --rate 40 --cputime 1000 --runtime 0.25 --warmup 0.05",
		 out, sizeof(out));
	if (!check(rc == 0 && out[0] == '{' && strstr(out, "\"requests\":10,") &&
		   strstr(out, "\"unfinished\":0,") && strstr(out, "\"p99.9\":") &&
		   strstr(out, "\"cpu_stat\":{") && strstr(out, "}\n"),
		   "a short --json run: 10 requests, all finished, one JSON object"))
		check_diag("status %d: %s", rc, out);
	rc = run(bin, "--threads 1 --rate 20 --cputime 2000 --runtime 0.2 --warmup 0", out,
		 sizeof(out));
	check(rc == 0 && strstr(out, "99.9th") && strstr(out, "achieved") &&
	      strstr(out, "cpu.stat"), "a short run prints the percentile table");
}
