// SPDX-License-Identifier: GPL-2.0
/*
 * The burstctl binary: exit statuses, where messages go and what they say,
 * each command on hand-made input, record against a made-up group that a
 * child process keeps busy and then removes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bc.h"
#include "test.h"

static const char *bin, *tmp;
static char out[65536], errout[8192];

static void slurp(const char *name, char *buf, size_t len)
{
	char path[4096];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Run "burstctl ARGS" in tmp; out and errout get its stdout and stderr. The exit status. */
static int run(const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >cli.out 2>cli.err", tmp, bin, args);
	st = system(cmd);
	slurp("cli.out", out, sizeof(out));
	slurp("cli.err", errout, sizeof(errout));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* rc and a piece of stdout (or stderr for a failure) as expected. */
static void expect(int rc, int want, const char *piece, const char *what)
{
	const char *text = want == 2 ? errout : out;

	if (!tap_ok(rc == want && strstr(text, piece), "%s: status %d, says \"%s\"", what, want,
		    tap_escape(piece)))
		tap_diag("status %d, stdout: %s, stderr: %s", rc, tap_escape(out), tap_escape(errout));
}

static void test_top(void)
{
	static const char *const cmds[] = { "status", "record", "advise", "simulate", "check" };
	char want[64];
	size_t i;

	expect(run("--help"), 0, "Usage: burstctl COMMAND", "burstctl --help");
	expect(run(""), 2, "Usage: burstctl COMMAND", "burstctl with no command: the usage on stderr");
	expect(run("frobnicate"), 2, "unknown command 'frobnicate'", "an unknown command");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		snprintf(want, sizeof(want), "Usage: burstctl %s", cmds[i]);
		expect(run("%s --help", cmds[i]), 0, want, cmds[i]);
	}
}

static void test_advise_cli(void)
{
	write_file(tmp, "request.csv", "# cpus: 1\ntime_us,cpu_us\n0,0\n500000,0\n530000,30000\n1000000,0\n");
	write_file(tmp, "busy.csv", "# cpus: 1\ntime_us,cpu_us\n0,0\n1000000,1000000\n");
	write_file(tmp, "bad.csv", "time_us,cpu_us\n0,0\n10,ten\n");
	expect(run("advise request.csv --quota 20ms"), 0, "burst: 10.0 ms (cpu.max.burst 10000, podman run --cpu-burst 10000)",
	       "advise: the answer, for cpu.max.burst and podman");
	tap_ok(strstr(out, "     10.0           0       0         0.0         0.0         0.0   <- the smallest burst") &&
	       strstr(out, "the smallest quota that meets the goal: 30.0 ms per 100.0 ms period (0.30 CPUs)"),
	       "advise: the answer's row is marked; the quota without burst");
	expect(run("advise - --quota 20000 --period 100000 --json <request.csv"), 0,
	       "\"burst_us\":10000,\"quota_without_burst_us\":30000,", "advise --json from standard input");
	expect(run("advise request.csv --quota 10ms"), 0,
	       "verdict: mainline meets this goal with period 160.0 ms, quota 16.0 ms and burst = quota: this load does not need the patched kernel.\n"
	       "At your period, 100.0 ms (on Kubernetes the kubelet sets one period for the node), mainline does not meet it; the patched kernel does, with burst 20.0 ms.",
	       "advise: mainline's verdict, at any period and at the user's");
	tap_ok(strstr(out, "    100.0     10.0           1       0        80.0        80.0        80.0   misses the goal   <- your period") &&
	       strstr(out, "    160.0     16.0           0       0         0.0         0.0         0.0   <- mainline's best"),
	       "advise: mainline's table marks the user's period and the best");
	expect(run("advise request.csv --quota 10ms --json"), 0,
	       "\"needs_patched_kernel\":false,\"needs_patched_kernel_at_own_period\":true}",
	       "advise --json: whether the load needs the patched kernel");
	write_file(tmp, "rare.csv", "# cpus: 1\ntime_us,cpu_us\n0,0\n5000000,0\n5250000,250000\n6000000,0\n");
	expect(run("advise rare.csv --quota 10ms"), 0,
	       "verdict: no mainline setting at 0.10 CPUs (periods 1 ms to 1 s, burst at most quota) meets this goal; the patched kernel does, with burst 220.0 ms at your period: this load needs it.",
	       "advise: a rare burst above mainline's largest pool needs the patched kernel");
	expect(run("advise busy.csv --quota 10ms --cpus 1"), 1, "burst: none meets the goal at this quota",
	       "advise: no burst helps a busy CPU, status 1");
	tap_ok(strstr(out, "verdict: neither mainline (any period, burst at most quota) nor the patched kernel at this quota meets this goal"),
	       "advise: neither kernel meets a busy CPU's goal");
	expect(run("advise request.csv --quota 0"), 2, "--quota '0': must be between 1ms and 17592186044415us",
	       "advise --quota 0");
	expect(run("advise request.csv --quota -5"), 2, "--quota '-5': must not be negative", "advise --quota -5");
	expect(run("advise request.csv --quota 10ms --period 2s"), 2, "--period '2s': must be between 1ms and 1s",
	       "advise --period 2s");
	expect(run("advise request.csv --quota 10.5us"), 2, "the kernel takes whole microseconds",
	       "advise --quota 10.5us");
	expect(run("advise request.csv"), 2, "--quota is required", "advise without --quota");
	expect(run("advise request.csv --quota 10ms --max-throttled-periods 1 --target-p99-delay 5ms"), 2,
	       "give one goal", "advise with two goals");
	expect(run("advise --quota 10ms"), 2, "expected one TRACE", "advise without a trace");
	expect(run("advise missing.csv --quota 10ms"), 2, "missing.csv: No such file", "advise: a missing trace");
	expect(run("advise bad.csv --quota 10ms"), 2, "bad.csv:3: cpu_us 'ten'", "advise: a malformed trace");
	expect(run("advise request.csv --quota 10ms --cpus 0"), 2, "--cpus '0': must be between 1 and 4096",
	       "advise --cpus 0");
	expect(run("advise request.csv --quota 10ms --phases 0"), 2, "--phases '0'", "advise --phases 0");
	expect(run("advise request.csv --quota 10ms --bursts 5ms,x"), 2, "--bursts 'x'", "advise --bursts 5ms,x");
}

static void test_simulate_cli(void)
{
	const char *first;

	write_file(tmp, "spike.csv", "# cpus: 1\ntime_us,cpu_us\n0,0\n300000,0\n350000,50000\n1000000,0\n");
	expect(run("simulate spike.csv --quota 20ms --burst 0"), 0,
	       "10 periods, 2 throttled (160.0 ms); added delay p99 160.0 ms", "simulate: the spike without burst");
	tap_ok(strstr(out, "      4     0.300     20.0     50.0     20.0     30.0       80.0\n") &&
	       strstr(out, "a whole period"), "simulate: period 4 is the throttled spike; the phase is said");
	expect(run("simulate spike.csv --quota 20ms --burst 40ms --csv"), 0,
	       "period,start_us,end_us,pool_start_us,demand_us,used_us,backlog_us,throttled,throttled_us\n1,0,100000,20000,0,0,0,0,0\n",
	       "simulate --csv: header with units, then a row a period");
	expect(run("simulate spike.csv --quota 20ms --burst 40ms --json"), 0,
	       "\"throttled_periods\":0,", "simulate --json");
	/* The setting and the model's burst time are two keys, not one twice. */
	first = strstr(out, "\"burst_us\":");
	tap_ok(first && !strncmp(first, "\"burst_us\":40000,", 17) &&
	       !strstr(first + 1, "\"burst_us\":") && strstr(out, "\"burst_time_us\":"),
	       "simulate --json: burst_us once, the setting; burst_time_us the model's");
	expect(run("simulate spike.csv --quota 20ms"), 2, "--burst is required", "simulate without --burst");
	expect(run("simulate spike.csv --quota 20ms --burst 0 --phase 200ms"), 2,
	       "--phase '200ms': must be more than 0 and at most the period (100ms)", "simulate --phase beyond the period");
}

static void test_status_cli(void)
{
	expect(run("status --root cg -i 0"), 0,
	       "machine.slice/libpod-0123456789ab.scope/container    10.0   100.0    20.0    30.0       150        12     456.8       70    2100.0",
	       "status: every limited group, the pool from current_bw_usec");
	tap_ok(strstr(out, "system.slice/web.service                             50.0   100.0     0.0     n/a") &&
	       !strstr(out, "user.slice"), "status: n/a where the kernel has no pool; unlimited groups left out");
	expect(run("status --root cg -i 0 --json system.slice/web.service"), 0,
	       "\"group\":\"system.slice/web.service\"", "status --json of one group");
	tap_ok(strstr(out, "\"quota_us\":50000,\"period_us\":100000,\"burst_us\":0,\"pool_us\":null,") &&
	       strstr(out, "\"rates\":null"), "status --json: the pool null, no rates from one reading");
	expect(run("status --root cg --watch -i 50ms -n 2 --json 0123456"), 0, "\"rates\":{\"usage_usec\":0.000,",
	       "status --watch -n 2 --json: rates");
	tap_ok(strchr(out, '\n') && strchr(strchr(out, '\n') + 1, '\n') &&
	       !strchr(strchr(out, '\n') + 1, '\n')[1], "status --watch -n 2: two reports, a line each");
	expect(run("status --root cg -i 0 nosuch"), 2, "'nosuch': no such cgroup below cg", "status: an unknown target");
	expect(run("status --root cg -n 2"), 2, "--count goes with --watch", "status --count without --watch");
	expect(run("status --root cg --watch -i 0"), 2, "--watch needs an --interval above 0", "status --watch -i 0");
}

/* A made-up group a child keeps busy: 5 ms more usage every 10 ms, a throttle, then gone. */
static pid_t busy_group(const char *dir)
{
	char stat[256], path[4352], tmpf[4400];
	pid_t pid;
	int i;

	mkdir(dir, 0755);
	write_file(dir, "cgroup.procs", "");
	write_file(dir, "cpu.max", "max 100000\n");
	write_file(dir, "cpu.stat", "usage_usec 1000\nnr_periods 0\nnr_throttled 0\n");
	pid = fork();
	if (pid)
		return pid;
	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	snprintf(tmpf, sizeof(tmpf), "%s/.cpu.stat", dir);
	for (i = 1; i <= 30; i++) {
		FILE *f = fopen(tmpf, "w");

		snprintf(stat, sizeof(stat), "usage_usec %d\nnr_periods %d\nnr_throttled %d\n",
			 1000 + 5000 * i, i, i >= 15);
		if (f) {
			fputs(stat, f);
			fclose(f);
		}
		rename(tmpf, path);	/* the reader sees the old file or the new */
		usleep(10000);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	unlink(path);
	rmdir(dir);
	_exit(0);
}

static void test_record_cli(void)
{
	struct bc_trace t;
	char dir[4096], trace[4096], msg[512];
	pid_t pid;
	int rc;

	snprintf(dir, sizeof(dir), "%s/cg/record.slice", tmp);
	pid = busy_group(dir);
	rc = run("record --root cg record.slice --duration 10s -o rec.csv");
	waitpid(pid, NULL, 0);
	expect(rc, 0, "", "record: ends when the group goes away, status 0");
	tap_ok(strstr(errout, "(the group went away) -> rec.csv") && strstr(errout, "throttled in 1 periods while recorded"),
	       "record: says the group went away and warns of the throttle: %s", tap_escape(errout));
	snprintf(trace, sizeof(trace), "%s/rec.csv", tmp);
	rc = bc_trace_load(trace, &t, msg, sizeof(msg));
	tap_ok(!rc && t.n >= 10 && t.cpu > 0 && t.cpu % (5000 * BC_NS_PER_US) == 0 &&
	       t.cpu <= 150000 * BC_NS_PER_US && t.throttled == 1 && t.have_start && t.cpus >= 1,
	       "record: the trace parses: %zu samples, %llu us of CPU in 5 ms steps, 1 throttle (%s)",
	       rc ? 0 : t.n, rc ? 0ULL : (unsigned long long)(t.cpu / BC_NS_PER_US), rc ? msg : "ok");
	if (!rc)
		bc_trace_free(&t);
	slurp("rec.csv", out, sizeof(out));
	tap_ok(strstr(out, "# cpu.max: max 100000\n") && strstr(out, "# interval_us: 10000\n") &&
	       strstr(out, "# ended: the group went away") && strstr(out, "# warning: throttled in 1 periods"),
	       "record: the head says the limit and the interval (period / 10); the end says why");
	expect(run("record --root cg system.slice"), 2, "--duration is required", "record without --duration");
	expect(run("record --root cg system.slice -d 1s -i 50us"), 2, "--interval 50us: must be at least 100us",
	       "record --interval 50us");
	expect(run("record --root cg system.slice -d 1s -i 2s"), 2,
	       "--interval 2s: must not be longer than --duration 1s", "record: interval longer than duration");
	expect(run("record --root cg nosuch -d 1s"), 2, "'nosuch': no such cgroup", "record: an unknown target");
}

void test_cli(const char *path, const char *dir)
{
	bin = path;
	tmp = dir;
	test_top();
	test_advise_cli();
	test_simulate_cli();
	test_status_cli();
	test_record_cli();
}
