// SPDX-License-Identifier: GPL-2.0
/* Demand traces: what a good one holds, and every way a bad one is refused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bc.h"
#include "test.h"

static char err[512];

static const char good[] =
	"# burstctl record: web (/sys/fs/cgroup/web)\r\n"
	"# cpus: 4\r\n"
	"# monotonic_start_us: 1000050\r\n"
	"time_us,cpu_us,nr_throttled\r\n"
	"500,0,0\r\n"
	"10500,7000,0\r\n"
	"\r\n"
	"20600,12000,2\r\n"
	"# ended: the group went away after 0.020 s\r\n";

static void test_good(void)
{
	struct bc_trace t;
	int ret = bc_trace_parse("good.csv", good, &t, err, sizeof(err));

	if (!tap_ok(!ret, "a recorded trace with CRLF line ends, a blank line and comments parses"))
		tap_diag("%s", err);
	if (ret)
		return;
	tap_ok(t.n == 2 && t.s[0].t == 10 * BC_NS_PER_MS && t.s[0].cpu == 7 * BC_NS_PER_MS &&
	       t.s[1].t == 20100 * BC_NS_PER_US && t.s[1].cpu == 12 * BC_NS_PER_MS,
	       "two intervals, times from the start row, in ns");
	tap_ok(t.cpus == 4 && t.have_start && t.start_ns == 1000050 * BC_NS_PER_US,
	       "cpus and the monotonic start read from the comments");
	tap_ok(t.have_throttled && t.throttled == 2 && t.cpu == 19 * BC_NS_PER_MS,
	       "throttled periods and CPU summed");
	tap_ok(bc_trace_cpus(&t) == 4, "CPUs: the trace's own");
	bc_trace_free(&t);
	ret = bc_trace_parse("two.csv", "time_us,cpu_us\n0,0\n10000,15000\n20000,3000\n", &t, err,
			     sizeof(err));
	tap_ok(!ret && !t.have_throttled && !t.have_start && bc_trace_cpus(&t) == 2,
	       "two columns; CPUs unsaid: 15 ms in 10 ms needs 2");
	bc_trace_free(&t);
}

/* Refused with -EINVAL and a message that starts "NAME:LINE:" and says why. */
static void bad(const char *text, const char *where, const char *why)
{
	struct bc_trace t;
	int ret = bc_trace_parse("bad.csv", text, &t, err, sizeof(err));

	tap_ok(ret == -EINVAL && !strncmp(err, where, strlen(where)) && strstr(err, why),
	       "refused at %s (%s): %s", where, why, ret ? err : "accepted");
}

static void test_bad(void)
{
	bad("", "bad.csv: no header", "not a burstctl trace");
	bad("# only a comment\n", "bad.csv: no header", "not a burstctl trace");
	bad("time,cpu\n0,0\n", "bad.csv:1:", "expected the header");
	bad("time_us,cpu_us\n", "bad.csv: no samples", "its start row and at least one more");
	bad("time_us,cpu_us\n0,0\n", "bad.csv: no samples", "its start row and at least one more");
	bad("time_us,cpu_us\n0,5\n10,1\n", "bad.csv:2:", "its cpu_us must be 0, not 5");
	bad("time_us,cpu_us\n0,0\n10,1\n10,1\n", "bad.csv:4:", "time_us 10 is not after the row before's 10");
	bad("time_us,cpu_us\n0,0\n5,1\n3,1\n", "bad.csv:4:", "not after");
	bad("time_us,cpu_us\n0,0\n10,x\n", "bad.csv:3:", "cpu_us 'x': expected a whole number");
	bad("time_us,cpu_us\n0,0\n10,-1\n", "bad.csv:3:", "cpu_us '-1'");
	bad("time_us,cpu_us\n0,0\n10,1.5\n", "bad.csv:3:", "cpu_us '1.5'");
	bad("time_us,cpu_us\n0,0\n10, 1\n", "bad.csv:3:", "cpu_us ' 1'");
	bad("time_us,cpu_us\n0,0\n10,1,0\n", "bad.csv:3:", "3 columns, the header has 2");
	bad("time_us,cpu_us,nr_throttled\n0,0,0\n10,1\n", "bad.csv:3:", "2 columns, the header has 3");
	bad("time_us,cpu_us\n0,0\n10,1,\n", "bad.csv:3:", "3 columns");
	bad("time_us,cpu_us\n0,0\n99999999999999999,1\n", "bad.csv:3:", "must be between 0 and");
	bad("# cpus: 0\ntime_us,cpu_us\n0,0\n10,1\n", "bad.csv:1:", "cpus '0': must be between 1 and 4096");
	bad("# monotonic_start_us: soon\ntime_us,cpu_us\n0,0\n10,1\n", "bad.csv:1:", "monotonic_start_us 'soon'");
}

void test_trace(void)
{
	struct bc_trace t;

	test_good();
	test_bad();
	tap_ok(bc_trace_load("/nonexistent/trace.csv", &t, err, sizeof(err)) == -ENOENT &&
	       strstr(err, "/nonexistent/trace.csv: No such file"), "a missing file: %s", err);
}
