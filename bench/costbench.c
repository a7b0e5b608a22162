// SPDX-License-Identifier: GPL-2.0
/*
 * costbench: what CPU bandwidth control costs the scheduler, in three modes
 * that each print one JSON line (make bench-cost, bench/cost-suite.sh).
 *
 *   costbench path refill|wake|slack DIR PAIRS WINDOW_MS
 *	The cost of one operation on a path the series changed: a load that
 *	goes through it over and over in child groups of DIR, beside a meter
 *	(see "The changed paths" below); prints every window's figures.
 *
 *   costbench config DIR OPS
 *	The time of one cpu.max, cpu.max.burst and (with the series)
 *	three-field cpu.max write and one cpu.stat read, OPS of each.
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
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

static void xpipe(int fd[2])
{
	if (pipe(fd))
		bench_die("pipe: %s", strerror(errno));
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

/*
 * Child DIR/<tag><made> limited to QUOTA per PERIOD with BURST (us); *made
 * counts the groups made, so remove_groups() can undo them, last first.
 */
static void make_limited_group(const char *dir, char tag, unsigned int *made,
			       uint64_t quota, uint64_t period, uint64_t burst)
{
	char g[PATH_MAX], text[64];

	snprintf(g, sizeof(g), "%s/%c%u", dir, tag, *made);
	if (mkdir(g, 0755))
		bench_die("mkdir %s: %s", g, strerror(errno));
	++*made;
	snprintf(text, sizeof(text), "%llu %llu", (unsigned long long)quota,
		 (unsigned long long)period);
	write_file(g, "cpu.max", text);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)burst);
	write_file(g, "cpu.max.burst", text);
}

static void remove_groups(const char *dir, char tag, unsigned int *made)
{
	char g[PATH_MAX];

	while (*made) {
		snprintf(g, sizeof(g), "%s/%c%u", dir, tag, --*made);
		/* The last task may still be leaving the group after it was reaped. */
		for (int i = 0; rmdir(g) && errno == EBUSY && i < 100; i++)
			usleep(10000);
	}
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
	remove_groups(fleet.dir, 'g', &fleet.made);
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
	char g[PATH_MAX];
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
	while (fleet.made < groups)
		make_limited_group(fleet.dir, 'g', &fleet.made, quota, period, burst);
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

/*
 * --- The changed paths ----------------------------------------------------
 *
 * Everything runs on CPU 0: a meter, an unlimited process that counts units
 * of a fixed loop, the workers, one per group, that count the same units,
 * and costbench itself, which sleeps through each window. The guest is
 * best booted with one vCPU (bench/run-cost.sh does): under single-threaded
 * TCG the vCPUs take turns on one host thread, so whatever another vCPU
 * does takes wall time from this one. In a window with the workers stopped
 * the meter alone gives the CPU's rate in units per ns; in a window with
 * them running, the units everyone counted, at that rate, are the time the
 * loops had, and the rest of the window is the time the kernel spent on the
 * workload: the bandwidth paths, the switches and the timers they bring.
 * Divided by the window's operations it is the cost of one. The windows
 * alternate, so a slow stretch of the emulator touches both sides.
 */

#define PATH_WORKERS	16
#define UNIT_LOOPS	200

struct path_load {
	const char *name;
	const char *op;		/* what one operation is */
	unsigned int groups;
	uint64_t quota, period, burst;	/* us */
	uint64_t spin_us;	/* 0: spin for ever */
	uint64_t sleep_us;
};

/*
 * A runqueue keeps 1 ms of runtime when it returns the rest
 * (min_cfs_rq_runtime), so the loads that sleep work longer than that each
 * time: every wake-up then asks the pool for a slice and every sleep hands
 * runtime back, and each operation runs the changed code once.
 *
 * refill  throttled and refilled every period: one group asks for the whole
 *         CPU and gets 1 ms per 2 ms (one group: every period goes the same
 *         way; several interleave differently from window to window); an
 *         operation is one throttled period (nr_throttled), ended by the
 *         period timer's refill
 * wake    a group's first slice after its period timer stopped: 1.5 ms of
 *         work, then 40 ms asleep, four periods of 10 ms (the timer stops
 *         after one idle period); an operation is one wake-up
 * slack   a runqueue going idle with runtime left returns it: 1.2 ms of
 *         work, 2 ms asleep, in groups that are never throttled (50 ms per
 *         100 ms); an operation is one sleep
 */
static const struct path_load path_loads[] = {
	{ "refill", "throttle", 1, 1000, 2000, 1000, 0, 0 },
	{ "wake", "wake-up", 8, 5000, 10000, 5000, 1500, 40000 },
	{ "slack", "sleep", 2, 50000, 100000, 50000, 1200, 2000 },
};

struct path_counter {
	volatile uint64_t units;	/* loop units done */
	volatile uint64_t cycles;	/* work-then-sleep cycles done */
	char pad[48];			/* one cache line each */
};

static struct {
	const char *dir;
	unsigned int made;
	unsigned int forked;
	pid_t pids[PATH_WORKERS + 1];	/* [0] the meter */
	struct path_counter *count;	/* [0] the meter, [1 + i] worker i */
} paths;

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_die("sched_setaffinity(CPU %d): %s", cpu, strerror(errno));
}

/* One unit of work: a loop the compiler must keep, the same everywhere. */
static inline void unit(void)
{
	static volatile unsigned long sink;

	for (int i = 0; i < UNIT_LOOPS; i++)
		sink += i;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static __attribute__((noreturn)) void path_work(struct path_counter *c, uint64_t units,
						uint64_t sleep)
{
	for (;;) {
		for (uint64_t u = 0; !units || u < units; u++) {
			unit();
			c->units++;
		}
		sleep_ns(sleep);
		c->cycles++;
	}
}

/* A meter or worker ends with costbench, however costbench ends. */
static void child_of_costbench(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(1);
}

static void paths_stop(void)
{
	unsigned int n = paths.forked;

	paths.forked = 0;
	for (unsigned int i = 0; i < n; i++)
		kill(paths.pids[i], SIGKILL);
	for (unsigned int i = 0; i < n; i++)
		waitpid(paths.pids[i], NULL, 0);
}

static void paths_remove(void)
{
	remove_groups(paths.dir, 'p', &paths.made);
}

static void paths_cleanup(void)
{
	paths_stop();
	paths_remove();
}

static void paths_signal(unsigned int workers, int sig)
{
	for (unsigned int i = 1; i <= workers; i++)
		if (kill(paths.pids[i], sig))
			bench_die("signal %d to worker %u: %s", sig, i - 1, strerror(errno));
}

struct path_snap {
	uint64_t at, meter, work, cycles, throttled, periods;
};

static void path_count(unsigned int workers, struct path_snap *s)
{
	s->at = bench_clock_ns(CLOCK_MONOTONIC);
	s->meter = paths.count[0].units;
	for (unsigned int i = 1; i <= workers; i++) {
		s->work += paths.count[i].units;
		s->cycles += paths.count[i].cycles;
	}
}

/*
 * The counters and the groups' throttles. Reading cpu.stat takes the CPU
 * from the meter, so it stays outside the window: before the counters at
 * its start, after them at its end.
 */
static void path_snap(unsigned int workers, struct path_snap *s, bool window_end)
{
	char buf[4096], g[PATH_MAX];
	struct cg_cpustat st;
	int ret;

	memset(s, 0, sizeof(*s));
	if (window_end)
		path_count(workers, s);
	for (unsigned int i = 0; i < workers; i++) {
		snprintf(g, sizeof(g), "%s/p%u", paths.dir, i);
		ret = cgfile_read(g, "cpu.stat", buf, sizeof(buf));
		if (ret)
			bench_die("%s/cpu.stat: %s", g, strerror(-ret));
		if (cg_parse_cpustat(buf, &st) <= 0 || !st.have[CG_NR_THROTTLED] ||
		    !st.have[CG_NR_PERIODS])
			bench_die("%s/cpu.stat: no nr_throttled or nr_periods", g);
		s->throttled += st.v[CG_NR_THROTTLED];
		s->periods += st.v[CG_NR_PERIODS];
	}
	if (!window_end)
		path_count(workers, s);
}

/* A window with the workers stopped: the meter alone, the CPU's rate. */
struct alone {
	uint64_t ns, units;
	double rate;	/* units per ns */
};

static void alone_window(unsigned int workers, uint64_t window, uint64_t settle,
			 struct alone *w)
{
	struct path_snap a, b;

	paths_signal(workers, SIGSTOP);
	sleep_ns(settle);
	path_snap(workers, &a, false);
	sleep_ns(window);
	path_snap(workers, &b, true);
	if (b.work != a.work)
		bench_die("a stopped worker counted %llu units", (unsigned long long)(b.work - a.work));
	if (b.meter == a.meter)
		bench_die("the meter counted nothing in %llu ms", (unsigned long long)(window / NSEC_PER_MSEC));
	w->ns = b.at - a.at;
	w->units = b.meter - a.meter;
	w->rate = (double)w->units / w->ns;
}

/*
 * costbench path NAME DIR PAIRS WINDOW_MS: PAIRS windows with the workers
 * running, each between two with them stopped, each WINDOW_MS after a
 * settling tenth. A pair whose two rates alone differ (rate_drift) had the
 * emulator slow down or speed up in between: bench/cost.py's rule.
 */
static int path_mode(char **argv)
{
	const struct path_load *l = NULL;
	unsigned int pairs;
	uint64_t window, settle;
	char g[PATH_MAX];
	struct alone before, after;

	for (size_t i = 0; i < sizeof(path_loads) / sizeof(path_loads[0]); i++)
		if (!strcmp(argv[0], path_loads[i].name))
			l = &path_loads[i];
	if (!l)
		bench_die("path '%s' is not refill, wake or slack", argv[0]);
	paths.dir = argv[1];
	pairs = arg_u64("PAIRS", argv[2], 1, 1000);
	window = arg_u64("WINDOW_MS", argv[3], 10, 60000) * NSEC_PER_MSEC;
	settle = window / 10;

	paths.count = mmap(NULL, sizeof(*paths.count) * (PATH_WORKERS + 1),
			   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (paths.count == MAP_FAILED)
		bench_die("mmap: %s", strerror(errno));
	pin_cpu(0);
	write_file(paths.dir, "cgroup.subtree_control", "+cpu");
	atexit(paths_cleanup);
	while (paths.made < l->groups)
		make_limited_group(paths.dir, 'p', &paths.made, l->quota, l->period, l->burst);

	/* The meter first, alone, to size the workers' spins in units. */
	paths.pids[0] = fork();
	if (paths.pids[0] < 0)
		bench_die("fork: %s", strerror(errno));
	if (!paths.pids[0]) {
		/*
		 * The meter only takes what the load leaves: a worker woken or
		 * refilled runs at once, so every period goes the same way.
		 */
		struct sched_param idle = { 0 };

		paths.forked = 0;
		paths.made = 0;
		child_of_costbench();
		if (sched_setscheduler(0, SCHED_IDLE, &idle))
			bench_die("SCHED_IDLE for the meter: %s", strerror(errno));
		pin_cpu(0);
		path_work(&paths.count[0], 0, 0);
	}
	paths.forked = 1;
	alone_window(0, window, settle, &before);
	for (unsigned int i = 0; i < l->groups; i++) {
		/* The spin as units at the meter's rate; 0 spins for ever. */
		uint64_t units = l->spin_us * NSEC_PER_USEC * before.rate;
		pid_t pid;

		if (l->spin_us && !units)
			units = 1;
		pid = fork();
		if (pid < 0)
			bench_die("fork: %s", strerror(errno));
		if (!pid) {
			paths.forked = 0;
			paths.made = 0;
			child_of_costbench();
			pin_cpu(0);
			snprintf(g, sizeof(g), "%s/p%u", paths.dir, i);
			write_file(g, "cgroup.procs", "0");
			path_work(&paths.count[1 + i], units, l->sleep_us * NSEC_PER_USEC);
		}
		paths.pids[paths.forked++] = pid;
	}

	printf("{\"mode\":\"path\",\"path\":\"%s\",\"op\":\"%s\",\"groups\":%u,\"quota_us\":%llu,"
	       "\"period_us\":%llu,\"burst_us\":%llu,\"spin_us\":%llu,\"sleep_us\":%llu,"
	       "\"window_ms\":%llu,\"unit_loops\":%d,\"pairs\":[",
	       l->name, l->op, l->groups, (unsigned long long)l->quota,
	       (unsigned long long)l->period, (unsigned long long)l->burst,
	       (unsigned long long)l->spin_us, (unsigned long long)l->sleep_us,
	       (unsigned long long)(window / NSEC_PER_MSEC), UNIT_LOOPS);
	/*
	 * Windows alone and loaded alternate, alone first and last, so every
	 * loaded window has the CPU's rate measured just before and just after.
	 */
	alone_window(l->groups, window, settle, &before);
	for (unsigned int p = 0; p < pairs; p++) {
		struct path_snap c, d;
		double rate, busy, over, drift;
		uint64_t ops;

		paths_signal(l->groups, SIGCONT);
		sleep_ns(settle);
		path_snap(l->groups, &c, false);
		sleep_ns(window);
		path_snap(l->groups, &d, true);
		alone_window(l->groups, window, settle, &after);
		rate = (before.rate + after.rate) / 2;
		drift = fabs(after.rate - before.rate) / rate;
		ops = !strcmp(l->op, "throttle") ? d.throttled - c.throttled : d.cycles - c.cycles;
		busy = (d.meter - c.meter + d.work - c.work) / rate;
		over = (d.at - c.at) - busy;
		printf("%s{\"alone_before_ns\":%llu,\"alone_before_units\":%llu,"
		       "\"alone_after_ns\":%llu,\"alone_after_units\":%llu,\"rate_drift\":%.5f,"
		       "\"ns\":%llu,\"meter_units\":%llu,\"work_units\":%llu,\"ops\":%llu,"
		       "\"throttled\":%llu,\"periods\":%llu,\"overhead_ns_per_op\":%.1f}",
		       p ? "," : "", (unsigned long long)before.ns, (unsigned long long)before.units,
		       (unsigned long long)after.ns, (unsigned long long)after.units, drift,
		       (unsigned long long)(d.at - c.at),
		       (unsigned long long)(d.meter - c.meter), (unsigned long long)(d.work - c.work),
		       (unsigned long long)ops, (unsigned long long)(d.throttled - c.throttled),
		       (unsigned long long)(d.periods - c.periods), ops ? over / ops : 0.0);
		fflush(stdout);
		before = after;
	}
	printf("]}\n");
	paths_stop();
	paths_remove();
	return 0;
}

/*
 * costbench config DIR OPS: the time of one configuration write and one
 * cpu.stat read, each done OPS times on a group of its own, values
 * alternating so that every write changes something. Every kernel writes
 * cpu.max ("QUOTA PERIOD") and cpu.max.burst; a kernel with the series also
 * the three fields at once ("QUOTA PERIOD BURST"), which mainline does with
 * the other two writes.
 */
static uint64_t config_loop(const char *g, const char *file, const char *const text[2],
			    unsigned int ops)
{
	char path[PATH_MAX];
	uint64_t t0, t1;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", g, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		bench_die("open %s: %s", path, strerror(errno));
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	for (unsigned int i = 0; i < ops; i++) {
		const char *t = text[i & 1];
		ssize_t len = strlen(t);

		if (write(fd, t, len) != len)
			bench_die("write '%s' to %s: %s", t, path, strerror(errno));
	}
	t1 = bench_clock_ns(CLOCK_MONOTONIC);
	close(fd);
	return t1 - t0;
}

static int config_mode(char **argv)
{
	static const char *const max[2] = { "20000 100000", "30000 100000" };
	static const char *const burst[2] = { "10000", "20000" };
	static const char *const three[2] = { "20000 100000 10000", "30000 100000 20000" };
	unsigned int ops = arg_u64("OPS", argv[1], 1, 1000000);
	bool series = !access("/proc/sys/kernel/sched_cfs_bw_burst_enabled", F_OK);
	uint64_t ns_max, ns_burst, ns_three = 0, ns_stat, t0, units;
	double rate;
	char g[PATH_MAX], buf[4096], path[PATH_MAX + 16];
	int fd;

	paths.dir = argv[0];
	pin_cpu(0);
	write_file(paths.dir, "cgroup.subtree_control", "+cpu");
	atexit(paths_cleanup);
	snprintf(g, sizeof(g), "%s/p0", paths.dir);
	if (mkdir(g, 0755))
		bench_die("mkdir %s: %s", g, strerror(errno));
	paths.made = 1;
	write_file(g, "cpu.max", max[1]);
	/*
	 * The CPU's speed, in units of the paths' loop: the emulator runs some
	 * boots faster than others, and figures in ns compare only in units.
	 */
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	for (units = 0; bench_clock_ns(CLOCK_MONOTONIC) - t0 < 300 * NSEC_PER_MSEC; units += 1000)
		for (int i = 0; i < 1000; i++)
			unit();
	rate = (double)units / (bench_clock_ns(CLOCK_MONOTONIC) - t0);
	ns_max = config_loop(g, "cpu.max", max, ops);
	ns_burst = config_loop(g, "cpu.max.burst", burst, ops);
	if (series)
		ns_three = config_loop(g, "cpu.max", three, ops);
	snprintf(path, sizeof(path), "%s/cpu.stat", g);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		bench_die("open %s: %s", path, strerror(errno));
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	for (unsigned int i = 0; i < ops; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			bench_die("read %s: %s", path, strerror(errno));
	ns_stat = bench_clock_ns(CLOCK_MONOTONIC) - t0;
	close(fd);
	paths_remove();
	printf("{\"mode\":\"config\",\"ops\":%u,\"rate_units_per_ns\":%.9g,\"unit_loops\":%d,"
	       "\"cpu_max_ns\":%.1f,\"cpu_max_burst_ns\":%.1f,",
	       ops, rate, UNIT_LOOPS, (double)ns_max / ops, (double)ns_burst / ops);
	if (series)
		printf("\"cpu_max_three_ns\":%.1f,", (double)ns_three / ops);
	printf("\"cpu_stat_read_ns\":%.1f}\n", (double)ns_stat / ops);
	return 0;
}

static const char usage[] =
	"usage: costbench path refill|wake|slack DIR PAIRS WINDOW_MS\n"
	"       costbench config DIR OPS\n"
	"       costbench fleet DIR GROUPS QUOTA PERIOD BURST SPIN_US EVERY_MS WARMUP_S SECONDS\n"
	"(see the comment at the top of bench/costbench.c)\n";

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "path"))
		return path_mode(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "config"))
		return config_mode(argv + 2);
	if (argc == 11 && !strcmp(argv[1], "fleet"))
		return fleet_mode(argv + 2);
	fputs(usage, stderr);
	return BB_EXIT_USAGE;
}
