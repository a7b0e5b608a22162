// SPDX-License-Identifier: GPL-2.0
/* The burstbench binary itself: exit statuses, messages, a short real run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test.h"

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

/* A number after "key": in a JSON text; -1 if absent. */
static double json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

/*
 * Asked for far more than one worker can serve: 100 requests of 5 ms CPU
 * due within 0.05 s on one thread take 0.5 s or more, so the achieved
 * rate is at most 200/s whatever the host does, 10 times below the 2000
 * asked for.
 */
static void test_overload(const char *bin)
{
	double rate, rps, served, requests;
	char out[8192];
	const char *json;
	int rc;

	rc = run(bin, "--json --threads 1 --rate 2000 --cputime 5000 --runtime 0.05 --warmup 0",
		 out, sizeof(out));
	json = strchr(out, '{');	/* after the warning that requests will queue */
	if (!json)
		json = "";
	rate = json_num(json, "rate");
	rps = json_num(json, "rps");
	served = json_num(json, "rps_elapsed_s");
	requests = json_num(json, "requests");
	if (!tap_ok(rc == 0 && rate == 2000 && rps > 0 && rps <= 200 && served >= 0.5 &&
		    requests > 0 && fabs(requests / served - rps) <= 0.01 * rps,
		    "an overloaded run reports the rate it served (<= 200/s), not the 2000/s asked for"))
		tap_diag("status %d, rate %g, rps %g, rps_elapsed_s %g, requests %g: %s", rc, rate,
			 rps, served, requests, out);
}

void test_cli(const char *bin)
{
	char out[8192];
	int rc;

	rc = run(bin, "--help", out, sizeof(out));
	tap_ok(rc == 0 && strstr(out, "Usage: burstbench"), "burstbench --help: usage, status 0");
	rc = run(bin, "--rate 0", out, sizeof(out));
	if (!tap_ok(rc == 2 && strstr(out, "--rate: '0'"),
		    "burstbench --rate 0: names it, status 2"))
		tap_diag("status %d: %s", rc, out);
	rc = run(bin, "--rate 0.1 --runtime 10", out, sizeof(out));
	if (!tap_ok(rc == 2 && strstr(out, "--rate: '0.1'") && strstr(out, "at least 0.2"),
		    "burstbench --rate 0.1 --runtime 10: names it and the least rate, status 2"))
		tap_diag("status %d: %s", rc, out);
	rc = run(bin, "--cputime abc", out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "--cputime: 'abc'"), "burstbench --cputime abc: status 2");
	rc = run(bin, "--runtime", out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "needs a value"),
	       "burstbench --runtime (no value): status 2");
	rc = run(bin, "--cgroup /nonexistent/cg --runtime 0.1", out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "'/nonexistent/cg'"),
	       "burstbench --cgroup with a missing directory: named, status 2");
	/* 0.25 s at 40 requests/s in batches of 2: 10 requests of 1 ms. */
	rc = run(bin, "--json --threads 2 --rate 40 --cputime 1000 --runtime 0.25 --warmup 0.05",
		 out, sizeof(out));
	if (!tap_ok(rc == 0 && out[0] == '{' && strstr(out, "\"requests\":10,") &&
		    strstr(out, "\"unfinished\":0,") && strstr(out, "\"p99.9\":") &&
		    strstr(out, "\"rate\":40,") && strstr(out, "\"rps_elapsed_s\":") &&
		    strstr(out, "\"cpu_stat\":{") && strstr(out, "}\n"),
		    "a short --json run: 10 requests, all finished, one JSON object"))
		tap_diag("status %d: %s", rc, out);
	rc = run(bin, "--threads 1 --rate 20 --cputime 2000 --runtime 0.2 --warmup 0", out,
		 sizeof(out));
	tap_ok(rc == 0 && strstr(out, "99.9th") && strstr(out, "achieved") &&
	       strstr(out, "(requested 20)") && strstr(out, "cpu.stat"),
	       "a short run prints the percentile table and both rates");
	test_overload(bin);
}
