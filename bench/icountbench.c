// SPDX-License-Identifier: GPL-2.0
/*
 * icountbench: the operations the series changed, each run N times between
 * two markers that bench/icount-plugin.c sees (make bench-icount). The
 * plugin counts the kernel instructions executed between them, per
 * address; bench/icount.py divides by the operations this prints.
 *
 *   icountbench DIR OP N
 *
 * DIR is a cgroup2 directory whose children may use the cpu controller.
 * Each run prints one line, "ICOUNT-PHASE {json}", after its closing
 * marker: the phase's op and its count of operations, which
 * bench/icount.py pairs with the plugin's phase of the same sequence
 * number. Nothing the program does to prepare or to count (making groups,
 * reading cpu.stat) lies between its markers.
 *
 * OP (quota / period / burst in us):
 *   refill  one group, 1000 / 2000 / 1000, one process that asks for the
 *           whole CPU; N periods; an operation is a throttled period,
 *           ended by the period timer's refill (cpu.stat's nr_throttled)
 *   wake    8 groups, 5000 / 10000 / 5000, one process each that works
 *           1.5 ms then sleeps 40 ms, long enough for the period timer
 *           to stop; an operation is a wake-up, which asks the pool for a
 *           slice and restarts the timer (with the series: credits the
 *           idle periods); about N of them
 *   slack   2 groups, 50000 / 100000 / 50000, one process each that works
 *           1.2 ms then sleeps 2 ms, never throttled; an operation is a
 *           sleep, whose runqueue returns its runtime; about N of them
 *   max     N cpu.max writes, "QUOTA PERIOD", values alternating
 *   burst   N cpu.max.burst writes
 *   three   N three-field cpu.max writes, "QUOTA PERIOD BURST" (a kernel
 *           with the series)
 *   stat    N cpu.stat reads
 *   switch  N writes of the burst switch (kernel.sched_cfs_bw_burst_enabled,
 *           a kernel with the series), alternating 0 and 1, with
 *           $ICOUNT_GROUPS (10000) limited groups under DIR, each of which
 *           a write walks
 *
 * Under QEMU's -icount the guest's clock follows the instructions it
 * executed, so "1.5 ms of work" is the same instructions in every boot.
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "../lib/cgfile.h"
#include "../lib/cgroup.h"

const char bench_prog[] = "icountbench";

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define MAX_WORKERS	8
#define LOOP_INSNS	3	/* add, compare, branch */
#define SWITCH_SYSCTL	"/proc/sys/kernel/sched_cfs_bw_burst_enabled"

/*
 * The markers (bench/icount-plugin.c): "nopl 0x1c0c000K(%rax)", a long NOP
 * that no compiler emits with this displacement. K = 0 zeroes the plugin's
 * counters, K = 1 closes a phase.
 */
#define MARK(k)	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, " #k ", 0x00, 0x0c, 0x1c" ::: "memory")

static void write_file(const char *path, const char *text)
{
	ssize_t len = strlen(text), done;
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		bench_die("open %s: %s", path, strerror(errno));
	done = write(fd, text, len);
	if (done != len)
		bench_die("write '%s' to %s: %s", text, path, done < 0 ? strerror(errno) : "short write");
	close(fd);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static unsigned int made;
static const char *dir;
static pid_t workers[MAX_WORKERS];
static unsigned int nworkers;

/* DIR/g<made>, limited to QUOTA per PERIOD with BURST (us). */
static void make_group(uint64_t quota, uint64_t period, uint64_t burst)
{
	char g[PATH_MAX], path[PATH_MAX + 32], text[64];

	snprintf(g, sizeof(g), "%s/g%u", dir, made);
	if (mkdir(g, 0755))
		bench_die("mkdir %s: %s", g, strerror(errno));
	made++;
	snprintf(path, sizeof(path), "%s/cpu.max", g);
	snprintf(text, sizeof(text), "%llu %llu", (unsigned long long)quota, (unsigned long long)period);
	write_file(path, text);
	snprintf(path, sizeof(path), "%s/cpu.max.burst", g);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)burst);
	write_file(path, text);
}

static void cleanup(void)
{
	char g[PATH_MAX];

	for (unsigned int i = 0; i < nworkers; i++)
		kill(workers[i], SIGKILL);
	for (unsigned int i = 0; i < nworkers; i++)
		waitpid(workers[i], NULL, 0);
	nworkers = 0;
	while (made) {
		snprintf(g, sizeof(g), "%s/g%u", dir, --made);
		/* The last task may still be leaving the group after it was reaped. */
		for (int i = 0; rmdir(g) && errno == EBUSY && i < 100; i++)
			usleep(10000);
	}
}

/* Shared with the workers: the work-then-sleep cycles each has done. */
static volatile uint64_t *cycles;

/* Worker I in group g<I>: work WORK_NS of CPU time, sleep SLEEP_NS; 0: spin. */
static void start_worker(unsigned int i, uint64_t work_ns, uint64_t sleep_ns_)
{
	char path[PATH_MAX];
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork: %s", strerror(errno));
	if (pid) {
		workers[nworkers++] = pid;
		return;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(1);
	snprintf(path, sizeof(path), "%s/g%u/cgroup.procs", dir, i);
	write_file(path, "0");
	/*
	 * Work as a count of loop turns, no clock read: a read of the thread's
	 * CPU clock is a system call, whose kernel instructions would be
	 * counted in the phase. The loop is three instructions a turn, and
	 * under -icount,shift=0 an instruction is a nanosecond of the guest's.
	 */
	for (;;) {
		for (uint64_t k = 0; !work_ns || k < work_ns / LOOP_INSNS; k++)
			__asm__ volatile("");
		sleep_ns(sleep_ns_);
		cycles[i]++;
	}
}

static uint64_t all_cycles(void)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < nworkers; i++)
		n += cycles[i];
	return n;
}

static uint64_t throttled(void)
{
	char g[PATH_MAX], buf[4096];
	struct cg_cpustat st;
	uint64_t n = 0;

	for (unsigned int i = 0; i < made; i++) {
		snprintf(g, sizeof(g), "%s/g%u", dir, i);
		if (cgfile_read(g, "cpu.stat", buf, sizeof(buf)) ||
		    cg_parse_cpustat(buf, &st) <= 0 || !st.have[CG_NR_THROTTLED])
			bench_die("%s/cpu.stat: no nr_throttled", g);
		n += st.v[CG_NR_THROTTLED];
	}
	return n;
}

static void phase_line(const char *op, uint64_t ops, unsigned int groups, const char *extra)
{
	printf("ICOUNT-PHASE {\"op\":\"%s\",\"ops\":%llu,\"groups\":%u%s}\n", op,
	       (unsigned long long)ops, groups, extra);
	fflush(stdout);
}

/*
 * A load of GROUPS groups, one worker each; the phase lasts until the
 * workers have done about N operations: PHASE_NS of the guest's clock.
 */
static void path_op(const char *op, unsigned int groups, uint64_t quota, uint64_t period,
		    uint64_t burst, uint64_t work_us, uint64_t sleep_us, uint64_t phase_ns)
{
	uint64_t c0, c1, t0, t1, (*ops)(void);
	char extra[128];

	for (unsigned int i = 0; i < groups; i++)
		make_group(quota, period, burst);
	for (unsigned int i = 0; i < groups; i++)
		start_worker(i, work_us * NSEC_PER_USEC, sleep_us * NSEC_PER_USEC);
	/* Warm-up: every worker through a few cycles, the timers settled. */
	sleep_ns(work_us ? (work_us + sleep_us) * NSEC_PER_USEC * 3 : period * NSEC_PER_USEC * 10);
	/* A refill is a throttled period; a wake-up or a sleep is a worker's cycle. */
	ops = strcmp(op, "refill") ? all_cycles : throttled;
	c0 = ops();
	t0 = bench_clock_ns(CLOCK_MONOTONIC);
	MARK(0);
	sleep_ns(phase_ns);
	MARK(1);
	t1 = bench_clock_ns(CLOCK_MONOTONIC);
	c1 = ops();
	snprintf(extra, sizeof(extra), ",\"phase_ns\":%llu,\"quota_us\":%llu,\"period_us\":%llu,\"burst_us\":%llu",
		 (unsigned long long)(t1 - t0), (unsigned long long)quota,
		 (unsigned long long)period, (unsigned long long)burst);
	phase_line(op, c1 - c0, groups, extra);
	cleanup();
}

/* N writes of TEXT[i % 2] to PATH (one open file), between the markers. */
static void write_op(const char *op, const char *path, const char *const text[2], unsigned int n,
		     unsigned int groups)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		bench_die("open %s: %s", path, strerror(errno));
	MARK(0);
	for (unsigned int i = 0; i < n; i++) {
		ssize_t len = strlen(text[i & 1]);

		if (write(fd, text[i & 1], len) != len)
			bench_die("write '%s' to %s: %s", text[i & 1], path, strerror(errno));
	}
	MARK(1);
	close(fd);
	phase_line(op, n, groups, "");
}

static void config_op(const char *op, unsigned int n)
{
	static const char *const max[2] = { "20000 100000", "30000 100000" };
	static const char *const burst[2] = { "10000", "20000" };
	static const char *const three[2] = { "20000 100000 10000", "30000 100000 20000" };
	char path[PATH_MAX], buf[4096];
	int fd;

	make_group(30000, 100000, 20000);
	if (!strcmp(op, "max")) {
		snprintf(path, sizeof(path), "%s/g0/cpu.max", dir);
		write_op(op, path, max, n, 1);
	} else if (!strcmp(op, "burst")) {
		snprintf(path, sizeof(path), "%s/g0/cpu.max.burst", dir);
		write_op(op, path, burst, n, 1);
	} else if (!strcmp(op, "three")) {
		snprintf(path, sizeof(path), "%s/g0/cpu.max", dir);
		write_op(op, path, three, n, 1);
	} else {
		snprintf(path, sizeof(path), "%s/g0/cpu.stat", dir);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			bench_die("open %s: %s", path, strerror(errno));
		MARK(0);
		for (unsigned int i = 0; i < n; i++)
			if (pread(fd, buf, sizeof(buf), 0) <= 0)
				bench_die("read %s: %s", path, strerror(errno));
		MARK(1);
		close(fd);
		phase_line(op, n, 1, "");
	}
	cleanup();
}

/* The burst switch, written N times over GROUPS limited groups. */
static void switch_op(unsigned int n, unsigned int groups)
{
	static const char *const text[2] = { "0", "1" };

	while (made < groups)
		make_group(1000, 100000, 1000);
	write_op("switch", SWITCH_SYSCTL, text, n, groups);
	/* The switch on again, whatever N was: the kernel as it booted. */
	write_file(SWITCH_SYSCTL, "1");
	cleanup();
}

int main(int argc, char **argv)
{
	char path[PATH_MAX + 32], *end;
	unsigned long n;

	if (argc != 4) {
		fprintf(stderr, "usage: icountbench DIR refill|wake|slack|max|burst|three|stat|switch N\n");
		return 2;
	}
	dir = argv[1];
	errno = 0;
	n = strtoul(argv[3], &end, 10);
	if (*argv[3] < '1' || *argv[3] > '9' || *end || errno || n > 1000000)
		bench_die("N: '%s' is not a whole number from 1 to 1000000", argv[3]);
	cycles = mmap(NULL, sizeof(*cycles) * MAX_WORKERS, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cycles == MAP_FAILED)
		bench_die("mmap: %s", strerror(errno));
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	write_file(path, "+cpu");

	/* Everything on one CPU: the guest has one, and so do these numbers. */
	if (!strcmp(argv[2], "refill"))
		/* A throttled period every 2 ms. */
		path_op("refill", 1, 1000, 2000, 1000, 0, 0, n * 2 * NSEC_PER_MSEC);
	else if (!strcmp(argv[2], "wake"))
		/* 8 workers, a cycle about 41.5 ms each. */
		path_op("wake", 8, 5000, 10000, 5000, 1500, 40000, n * 41500 * NSEC_PER_USEC / 8);
	else if (!strcmp(argv[2], "slack"))
		/* 2 workers, a cycle about 3.2 ms each. */
		path_op("slack", 2, 50000, 100000, 50000, 1200, 2000, n * 3200 * NSEC_PER_USEC / 2);
	else if (!strcmp(argv[2], "max") || !strcmp(argv[2], "burst") ||
		 !strcmp(argv[2], "three") || !strcmp(argv[2], "stat"))
		config_op(argv[2], n);
	else if (!strcmp(argv[2], "switch")) {
		const char *g = getenv("ICOUNT_GROUPS");

		switch_op(n, g ? (unsigned int)strtoul(g, NULL, 10) : 10000);
	} else
		bench_die("'%s' is not an operation icountbench knows", argv[2]);
	return 0;
}
