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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bb.h"
#include "util.h"
#include "../lib/cgfile.h"
#include "../lib/cgroup.h"

const char bench_prog[] = "costbench";

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define FLEET_MAX	4096

/* ARG as a whole number within [lo, hi], or exit naming it and the range. */
static uint64_t arg_u64(const char *name, const char *arg, uint64_t lo, uint64_t hi)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || v < lo || v > hi)
		bench_die("%s: '%s' is not a whole number from %llu to %llu", name, arg,
		    (unsigned long long)lo, (unsigned long long)hi);
	return v;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_die("sched_setaffinity(CPU 0): %s", strerror(errno));
}

static void xpipe(int fd[2])
{
	if (pipe(fd))
		bench_die("pipe: %s", strerror(errno));
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
		bench_die("fork: %s", strerror(errno));
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
	start = bench_clock_ns(CLOCK_MONOTONIC);
	deadline = start + seconds * NSEC_PER_SEC;
	/* Check the clock every 256 round trips: under TCG it is a syscall. */
	do {
		for (int i = 0; i < 256; i++) {
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				bench_die("round trip %llu: the echoing process is gone",
				    (unsigned long long)trips);
			trips++;
		}
		end = bench_clock_ns(CLOCK_MONOTONIC);
	} while (end < deadline);
	close(ping[1]);
	if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		bench_die("the echoing process failed (wait status %d)", st);
	printf("{\"mode\":\"pipe\",\"round_trips\":%llu,\"elapsed_ns\":%llu,\"ns_per_round_trip\":%.1f}\n",
	       (unsigned long long)trips, (unsigned long long)(end - start),
	       (double)(end - start) / trips);
	return 0;
}

static void write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	ssize_t len = strlen(text), done;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		bench_die("open %s: %s", path, strerror(errno));
	done = write(fd, text, len);
	if (done != len)
		bench_die("write '%s' to %s: %s", text, path,
		    done < 0 ? strerror(errno) : "short write");
	close(fd);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The fleet's spinner: SPIN of CPU every EVERY, from FIRST on, until killed. */
static void spin_forever(uint64_t first, uint64_t every, uint64_t spin)
{
	/* volatile: the loop must not be optimised away; it is the load */
	volatile unsigned long sink = 0;
	uint64_t next = first, until;

	for (;;) {
		sleep_until(next);
		/* CPU time, not wall time: a throttled spinner still spins SPIN. */
		until = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) + spin;
		while (bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
			for (int i = 0; i < 2000; i++)
				sink += i;
		next += every;
		/* Fallen behind (throttled for long): skip, do not pile up. */
		while (next < bench_clock_ns(CLOCK_MONOTONIC))
			next += every;
	}
}

/* What a failed fleet run must undo: its processes and its groups. */
static struct {
	const char *dir;
	unsigned int made;	/* groups g0 .. g<made-1> exist */
	unsigned int forked;	/* pids[0 .. forked-1] run */
	pid_t pids[FLEET_MAX];
} fleet;

/* Stop the spinners; a spinner that died before SIGKILL failed its job. */
static void fleet_stop(bool check)
{
	unsigned int n = fleet.forked;
	int st;

	fleet.forked = 0;
	for (unsigned int i = 0; i < n; i++)
		kill(fleet.pids[i], SIGKILL);
	for (unsigned int i = 0; i < n; i++) {
		if (waitpid(fleet.pids[i], &st, 0) < 0)
			continue;
		if (check && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
			bench_die("the spinner of group g%u ended before it was stopped (wait status %d)", i, st);
	}
}

static void fleet_remove(void)
{
	char g[PATH_MAX];

	while (fleet.made) {
		snprintf(g, sizeof(g), "%s/g%u", fleet.dir, --fleet.made);
		/* The last task may still be leaving the group after it was reaped. */
		for (int i = 0; rmdir(g) && errno == EBUSY && i < 100; i++)
			usleep(10000);
	}
}

/* bench_die() during a fleet run: leave no spinner and no group behind. */
static void fleet_cleanup(void)
{
	fleet_stop(false);
	fleet_remove();
}

struct fleet_sample {
	struct cg_procstat cpu;
	struct cg_cpustat groups;	/* summed over the groups */
	uint64_t cpu_at, groups_at;	/* CLOCK_MONOTONIC of the reads */
};

static void read_procstat(struct fleet_sample *s)
{
	char buf[4096];
	int ret = cgfile_read("/proc", "stat", buf, sizeof(buf));

	if (ret || cg_parse_procstat(buf, &s->cpu))
		bench_die("/proc/stat: %s", ret ? strerror(-ret) : "no aggregate cpu line");
	s->cpu_at = bench_clock_ns(CLOCK_MONOTONIC);
}

/*
 * The groups' cpu.stat and the guest's CPU time. Reading 500 groups takes
 * a while under TCG, so each window has its own bounds: the /proc/stat
 * reads are the inner ones (after the groups at the start, before them at
 * the end), which keeps that reading out of the CPU figures, and the
 * groups' window, a little longer, is timed as well.
 */
static void fleet_sample(unsigned int groups, struct fleet_sample *s, bool window_start)
{
	char buf[4096], g[PATH_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	if (window_start)
		s->groups_at = bench_clock_ns(CLOCK_MONOTONIC);
	else
		read_procstat(s);
	for (unsigned int i = 0; i < groups; i++) {
		struct cg_cpustat st;

		snprintf(g, sizeof(g), "%s/g%u", fleet.dir, i);
		ret = cgfile_read(g, "cpu.stat", buf, sizeof(buf));
		if (ret)
			bench_die("%s/cpu.stat: %s", g, strerror(-ret));
		if (cg_parse_cpustat(buf, &st) <= 0)
			bench_die("%s/cpu.stat: no key costbench knows", g);
		for (int k = 0; k < CG_NSTAT; k++) {
			s->groups.v[k] += st.v[k];
			s->groups.have[k] = st.have[k];
		}
	}
	if (window_start)
		read_procstat(s);
	else
		s->groups_at = bench_clock_ns(CLOCK_MONOTONIC);
}

static int fleet_mode(char **argv)
{
	unsigned int groups = arg_u64("GROUPS", argv[1], 1, FLEET_MAX);
	uint64_t quota = arg_u64("QUOTA", argv[2], 1000, 1000000000);
	uint64_t period = arg_u64("PERIOD", argv[3], 1000, 1000000);
	uint64_t burst = arg_u64("BURST", argv[4], 0, 1000000000);
	uint64_t spin = arg_u64("SPIN_US", argv[5], 1, 1000000) * NSEC_PER_USEC;
	uint64_t every = arg_u64("EVERY_MS", argv[6], 1, 60000) * NSEC_PER_MSEC;
	uint64_t warmup = arg_u64("WARMUP_S", argv[7], 0, 3600) * NSEC_PER_SEC;
	uint64_t seconds = arg_u64("SECONDS", argv[8], 1, 3600);
	struct fleet_sample a, b;
	struct cg_cpustat d;
	char g[PATH_MAX], text[64];
	uint64_t t0, t_setup, total;
	double to_pct;
	int go[2];

	fleet.dir = argv[0];
	if (spin >= every)
		bench_die("SPIN_US (%llu us) must be shorter than EVERY_MS (%llu ms)",
		    (unsigned long long)(spin / NSEC_PER_USEC),
		    (unsigned long long)(every / NSEC_PER_MSEC));
	write_file(fleet.dir, "cgroup.subtree_control", "+cpu");
	t_setup = bench_clock_ns(CLOCK_MONOTONIC);
	atexit(fleet_cleanup);
	for (unsigned int i = 0; i < groups; i++) {
		snprintf(g, sizeof(g), "%s/g%u", fleet.dir, i);
		if (mkdir(g, 0755))
			bench_die("mkdir %s: %s", g, strerror(errno));
		fleet.made++;
		snprintf(text, sizeof(text), "%llu %llu", (unsigned long long)quota,
			 (unsigned long long)period);
		write_file(g, "cpu.max", text);
		snprintf(text, sizeof(text), "%llu", (unsigned long long)burst);
		write_file(g, "cpu.max.burst", text);
	}
	/*
	 * The spinners start together, one EVERY after the last is forked,
	 * whatever forking 500 of them costs: each waits for its start time.
	 */
	xpipe(go);
	for (unsigned int i = 0; i < groups; i++) {
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork: %s", strerror(errno));
		if (!pid) {
			fleet.forked = 0;
			fleet.made = 0;
			close(go[1]);
			snprintf(g, sizeof(g), "%s/g%u", fleet.dir, i);
			write_file(g, "cgroup.procs", "0");
			if (read(go[0], &t0, sizeof(t0)) != sizeof(t0))
				_exit(1);
			spin_forever(t0 + every * i / groups, every, spin);
		}
		fleet.pids[fleet.forked++] = pid;
	}
	t0 = bench_clock_ns(CLOCK_MONOTONIC) + every;
	for (unsigned int i = 0; i < groups; i++)
		if (write(go[1], &t0, sizeof(t0)) != sizeof(t0))
			bench_die("starting the spinners: %s", strerror(errno));
	close(go[0]);
	close(go[1]);
	t_setup = bench_clock_ns(CLOCK_MONOTONIC) - t_setup;
	sleep_until(t0 + warmup);
	fleet_sample(groups, &a, true);
	sleep_until(a.cpu_at + seconds * NSEC_PER_SEC);
	fleet_sample(groups, &b, false);
	fleet_stop(true);
	fleet_remove();

	cg_cpustat_delta(&a.groups, &b.groups, &d);
	total = 0;
	for (int k = 0; k < CG_NPROCSTAT; k++)
		total += b.cpu.v[k] - a.cpu.v[k];
	to_pct = total ? 100.0 / total : 0;
	printf("{\"mode\":\"fleet\",\"groups\":%u,\"quota_us\":%llu,\"period_us\":%llu,\"burst_us\":%llu,",
	       groups, (unsigned long long)quota, (unsigned long long)period,
	       (unsigned long long)burst);
	printf("\"spin_us\":%llu,\"every_ms\":%llu,\"setup_ms\":%llu,\"demand_pct\":%.3f,",
	       (unsigned long long)(spin / NSEC_PER_USEC),
	       (unsigned long long)(every / NSEC_PER_MSEC),
	       (unsigned long long)(t_setup / NSEC_PER_MSEC),
	       100.0 * groups * spin / every / sysconf(_SC_NPROCESSORS_ONLN));
	printf("\"window_ns\":%llu,\"groups_window_ns\":%llu",
	       (unsigned long long)(b.cpu_at - a.cpu_at),
	       (unsigned long long)(b.groups_at - a.groups_at));
	/* Shares of all CPU time in the window, in percent. */
	for (int k = 0; k < CG_NPROCSTAT; k++)
		printf(",\"%s_pct\":%.3f", cg_procstat_names[k],
		       (b.cpu.v[k] - a.cpu.v[k]) * to_pct);
	for (int k = 0; k < CG_NSTAT; k++)
		if (d.have[k])
			printf(",\"%s\":%llu", cg_stat_names[k], (unsigned long long)d.v[k]);
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
