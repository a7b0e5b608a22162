// SPDX-License-Identifier: GPL-2.0
/*
 * costbench: what CPU bandwidth control costs the scheduler, in two modes
 * that each print one JSON line (make bench-cost, bench/cost-suite.sh).
 *
 *   costbench pipe SECONDS
 *	Two processes pass a byte back and forth through two pipes, as
 *	`perf bench sched pipe` does, for SECONDS; prints the round trips and
 *	the ns per round trip. Run in a group whose quota it never reaches,
 *	every wake-up and switch goes through the group's runtime accounting
 *	and nothing is ever throttled: the hot path alone. Both processes
 *	are pinned to CPU 0, so the figure is the switch path's and not the
 *	cost of waking another vCPU, which under TCG is large and noisy.
 *
 *   costbench fleet DIR GROUPS QUOTA PERIOD BURST SPIN_US EVERY_MS WARMUP_S SECONDS
 *	Makes GROUPS child cgroups of DIR (cgroup2, the cpu controller
 *	enabled for its children), each limited to QUOTA/PERIOD with BURST,
 *	with one process that spins SPIN_US of CPU every EVERY_MS (the
 *	groups' phases spread over EVERY_MS). After WARMUP_S it measures
 *	SECONDS: the guest's CPU time by kind (/proc/stat) and the groups'
 *	summed cpu.stat deltas; then it stops the processes and removes
 *	the groups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bb.h"
#include "../lib/cgfile.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define FLEET_MAX	4096

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("costbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ARG as a whole number within [lo, hi], or exit naming it and the range. */
static uint64_t arg_u64(const char *name, const char *arg, uint64_t lo, uint64_t hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v < lo || v > hi)
		die("%s: '%s' is not a whole number from %llu to %llu", name, arg,
		    (unsigned long long)lo, (unsigned long long)hi);
	return v;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(CPU 0): %s", strerror(errno));
}

static void xpipe(int fd[2])
{
	if (pipe(fd))
		die("pipe: %s", strerror(errno));
}

static int pipe_mode(uint64_t seconds)
{
	int ping[2], pong[2];
	uint64_t trips = 0, start, end, deadline;
	char c = 0;
	pid_t child;
	int st;

	pin_cpu0();
	xpipe(ping);
	xpipe(pong);
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		/* Echo until the parent closes its end. */
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	start = now_ns(CLOCK_MONOTONIC);
	deadline = start + seconds * NSEC_PER_SEC;
	/* Check the clock every 256 round trips: under TCG it is a syscall. */
	do {
		for (int i = 0; i < 256; i++) {
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				die("round trip %llu: %s", (unsigned long long)trips, strerror(errno));
			trips++;
		}
		end = now_ns(CLOCK_MONOTONIC);
	} while (end < deadline);
	close(ping[1]);
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the echoing process failed");
	printf("{\"mode\":\"pipe\",\"round_trips\":%llu,\"elapsed_ns\":%llu,\"ns_per_round_trip\":%.1f}\n",
	       (unsigned long long)trips, (unsigned long long)(end - start),
	       (double)(end - start) / trips);
	return 0;
}

static void write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	ssize_t len = strlen(text);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, text, len) != len)
		die("write '%s' to %s: %s", text, path, strerror(errno));
	close(fd);
}

/* The fleet's spinner: SPIN of CPU every EVERY, from FIRST on, until killed. */
static void spin_forever(uint64_t first, uint64_t every, uint64_t spin)
{
	struct timespec ts;
	uint64_t next = first;
	volatile unsigned long sink = 0;

	for (;;) {
		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		/* CPU time, not wall time: a throttled spinner still spins SPIN. */
		uint64_t until = now_ns(CLOCK_THREAD_CPUTIME_ID) + spin;

		while (now_ns(CLOCK_THREAD_CPUTIME_ID) < until)
			for (int i = 0; i < 2000; i++)
				sink += i;
		next += every;
		/* Fallen behind (throttled for long): skip, do not pile up. */
		while (next < now_ns(CLOCK_MONOTONIC))
			next += every;
	}
}

struct fleet_sample {
	struct bb_procstat cpu;
	struct bb_cpustat groups;	/* summed over the groups */
};

static void read_procstat(struct fleet_sample *s, uint64_t *at)
{
	char buf[4096];
	int ret = cgfile_read("/proc", "stat", buf, sizeof(buf));

	if (ret || bb_parse_procstat(buf, &s->cpu))
		die("/proc/stat: %s", ret ? strerror(-ret) : "no cpu line");
	*at = now_ns(CLOCK_MONOTONIC);
}

/*
 * The groups' cpu.stat and the guest's CPU time. Reading 500 groups takes
 * a while under TCG: the window's /proc/stat reads are the inner ones
 * (after the groups at its start, before them at its end), so that work is
 * not in the window's CPU figures.
 */
static void fleet_sample(const char *dir, unsigned int groups, struct fleet_sample *s,
			 bool window_start, uint64_t *at)
{
	char buf[4096], g[PATH_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	if (!window_start)
		read_procstat(s, at);
	for (unsigned int i = 0; i < groups; i++) {
		struct bb_cpustat st;

		snprintf(g, sizeof(g), "%s/g%u", dir, i);
		ret = cgfile_read(g, "cpu.stat", buf, sizeof(buf));
		if (ret || bb_parse_cpustat(buf, &st) <= 0)
			die("%s/cpu.stat: %s", g, ret ? strerror(-ret) : "unreadable");
		for (int k = 0; k < BB_NSTAT; k++) {
			s->groups.v[k] += st.v[k];
			s->groups.have[k] = st.have[k];
		}
	}
	if (window_start)
		read_procstat(s, at);
}

static void remove_group(const char *g)
{
	/* The last task may still be leaving the group just after it was reaped. */
	for (int i = 0; rmdir(g); i++) {
		if (errno != EBUSY || i == 100)
			die("rmdir %s: %s", g, strerror(errno));
		usleep(10000);
	}
}

static int fleet_mode(char **argv)
{
	const char *dir = argv[0];
	unsigned int groups = arg_u64("GROUPS", argv[1], 1, FLEET_MAX);
	uint64_t quota = arg_u64("QUOTA", argv[2], 1000, 1000000000);
	uint64_t period = arg_u64("PERIOD", argv[3], 1000, 1000000);
	uint64_t burst = arg_u64("BURST", argv[4], 0, 1000000000);
	uint64_t spin = arg_u64("SPIN_US", argv[5], 1, 1000000) * NSEC_PER_USEC;
	uint64_t every = arg_u64("EVERY_MS", argv[6], 1, 60000) * NSEC_PER_MSEC;
	uint64_t warmup = arg_u64("WARMUP_S", argv[7], 0, 3600) * NSEC_PER_SEC;
	uint64_t seconds = arg_u64("SECONDS", argv[8], 1, 3600);
	static pid_t pids[FLEET_MAX];
	struct fleet_sample a, b;
	struct bb_cpustat d;
	char g[PATH_MAX], text[64];
	uint64_t t0, t1, t_end, t_setup, window, total;
	double to_pct;

	if (spin >= every)
		die("SPIN_US (%llu us) must be shorter than EVERY_MS (%llu ms)",
		    (unsigned long long)(spin / NSEC_PER_USEC),
		    (unsigned long long)(every / NSEC_PER_MSEC));
	write_file(dir, "cgroup.subtree_control", "+cpu");
	t_setup = now_ns(CLOCK_MONOTONIC);
	/* The spinners start together, one EVERY after the last group is made. */
	for (unsigned int i = 0; i < groups; i++) {
		snprintf(g, sizeof(g), "%s/g%u", dir, i);
		if (mkdir(g, 0755))
			die("mkdir %s: %s", g, strerror(errno));
		snprintf(text, sizeof(text), "%llu %llu", (unsigned long long)quota,
			 (unsigned long long)period);
		write_file(g, "cpu.max", text);
		snprintf(text, sizeof(text), "%llu", (unsigned long long)burst);
		write_file(g, "cpu.max.burst", text);
	}
	t0 = now_ns(CLOCK_MONOTONIC) + every;
	for (unsigned int i = 0; i < groups; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (!pids[i]) {
			snprintf(g, sizeof(g), "%s/g%u", dir, i);
			write_file(g, "cgroup.procs", "0");
			spin_forever(t0 + every * i / groups, every, spin);
		}
	}
	t_setup = now_ns(CLOCK_MONOTONIC) - t_setup;
	{
		struct timespec ts = { .tv_sec = (t0 + warmup) / NSEC_PER_SEC,
				       .tv_nsec = (t0 + warmup) % NSEC_PER_SEC };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	fleet_sample(dir, groups, &a, true, &t1);
	{
		struct timespec ts = { .tv_sec = seconds };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	fleet_sample(dir, groups, &b, false, &t_end);
	window = t_end - t1;
	for (unsigned int i = 0; i < groups; i++)
		kill(pids[i], SIGKILL);
	for (unsigned int i = 0; i < groups; i++)
		waitpid(pids[i], NULL, 0);
	for (unsigned int i = 0; i < groups; i++) {
		snprintf(g, sizeof(g), "%s/g%u", dir, i);
		remove_group(g);
	}

	bb_cpustat_delta(&a.groups, &b.groups, &d);
	total = 0;
	for (int k = 0; k < BB_NPROCSTAT; k++)
		total += b.cpu.v[k] - a.cpu.v[k];
	to_pct = total ? 100.0 / total : 0;
	printf("{\"mode\":\"fleet\",\"groups\":%u,\"quota_us\":%llu,\"period_us\":%llu,\"burst_us\":%llu,"
	       "\"spin_us\":%llu,\"every_ms\":%llu,\"setup_ms\":%llu,\"window_ns\":%llu,"
	       "\"demand_pct\":%.3f",
	       groups, (unsigned long long)quota, (unsigned long long)period,
	       (unsigned long long)burst, (unsigned long long)(spin / NSEC_PER_USEC),
	       (unsigned long long)(every / NSEC_PER_MSEC),
	       (unsigned long long)(t_setup / NSEC_PER_MSEC), (unsigned long long)window,
	       100.0 * groups * spin / every / sysconf(_SC_NPROCESSORS_ONLN));
	/* Shares of all CPU time in the window, in percent. */
	for (int k = 0; k < BB_NPROCSTAT; k++)
		printf(",\"%s_pct\":%.3f", bb_procstat_names[k],
		       (b.cpu.v[k] - a.cpu.v[k]) * to_pct);
	for (int k = 0; k < BB_NSTAT; k++)
		if (d.have[k])
			printf(",\"%s\":%llu", bb_stat_names[k], (unsigned long long)d.v[k]);
	printf("}\n");
	return 0;
}

static const char usage[] =
	"usage: costbench pipe SECONDS\n"
	"       costbench fleet DIR GROUPS QUOTA PERIOD BURST SPIN_US EVERY_MS WARMUP_S SECONDS\n"
	"(see the comment at the top of bench/costbench.c)\n";

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pipe"))
		return pipe_mode(arg_u64("SECONDS", argv[2], 1, 3600));
	if (argc == 11 && !strcmp(argv[1], "fleet"))
		return fleet_mode(argv + 2);
	fputs(usage, stderr);
	return BB_EXIT_USAGE;
}
