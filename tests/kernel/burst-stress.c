// SPDX-License-Identifier: GPL-2.0
/*
 * Stress for CFS bandwidth burst: busy and blinking tasks run in several
 * v2 groups while threads write random valid and invalid values to
 * cpu.max (1, 2 and 3 fields), cpu.max.burst and the burst sysctls,
 * migrate tasks, read every file, and create and remove groups. Every
 * write to the stable groups is also made to the reference model
 * (model/bw-model.c), which must agree on whether the kernel took it; at
 * the end each group's settings must be the model's. It then checks that
 * nothing failed with an errno other than EINVAL, ENOENT or EBUSY, and
 * that every group still runs within its limit. Then it removes groups
 * while they are throttled or hold a full pool, and ends with the write
 * fuzz (write-fuzz.c): thousands of single writes, each checked against
 * the model. It checks our kernel
 * (BURSTCFS_EXPECT=patched: the three-field cpu.max and the sysctls must be
 * there). On a lockdep build (BURSTCFS_LOCKDEP=required, from
 * burstcfs.lockdep=required on the kernel command line: make
 * test-stress-debug and test-kcsan) lockdep must be on at the start and
 * still on at the end, since it turns itself off after its first report;
 * the guest kernel's run (make test-stress) has no lockdep and plans two
 * checks fewer. It starts with the concurrent writers (writers.c), the
 * one case that also runs on Debian's kernel (BURSTCFS_EXPECT=stock runs
 * it alone: it fails there, mainline loses writes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../model/bw-model.h"
#include "cg.h"
#include "stress.h"
#include "../../lib/tap.h"

#define MAX_RT_US	17592186044415LL
#define PARENT		CG2_ROOT "/stress"
#define NGROUPS		5	/* the parent, three leaves under it, one top-level leaf */
#define NLEAVES		4
#define REMOVE_ROUNDS	10
#define WRITE_FUZZ_WRITES	40000
#define LOCKDEP_CHECKS	2
#define CHECKS		(14 + WRITE_FUZZ_CHECKS + WRITERS_CHECKS)

static const char *const groups[NGROUPS] = {
	PARENT, PARENT "/a", PARENT "/b", PARENT "/c", CG2_ROOT "/stress-d",
};
/* Leaves are groups[1..4]: tasks live there only. */
#define LEAF(i)		groups[1 + (i)]

/* Each group's settings as the model has them, written under the same lock. */
struct model {
	pthread_mutex_t lock;
	struct bwm_group g;
};
static struct model models[NGROUPS];
/* The sysctls do not change which writes are taken: the model keeps defaults. */
static struct bwm_sysctls model_sysctls;
static atomic_long n_disagree;

static atomic_bool stop;
static bool has_sysctls;

/* Outcome counters. */
static atomic_long n_ok, n_einval, n_enoent, n_ebusy, n_unexpected;
static atomic_long n_max_writes, n_burst_writes, n_sysctl_writes, n_reads, n_moves;
static atomic_long n_churn_groups;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void unexpected(const char *what, int ret)
{
	long n = atomic_fetch_add(&n_unexpected, 1);

	if (n < 10) {
		pthread_mutex_lock(&report_lock);
		tap_diag("unexpected: %s: %s (%d)", what, strerror(-ret), ret);
		pthread_mutex_unlock(&report_lock);
	}
}

/* Count a write's outcome; anything but 0/EINVAL/ENOENT/EBUSY is a finding. */
static void tally(int ret, const char *what)
{
	switch (ret) {
	case 0:
		atomic_fetch_add(&n_ok, 1);
		break;
	case -EINVAL:
		atomic_fetch_add(&n_einval, 1);
		break;
	case -ENOENT:
		atomic_fetch_add(&n_enoent, 1);
		break;
	case -EBUSY:
		atomic_fetch_add(&n_ebusy, 1);
		break;
	default:
		unexpected(what, ret);
	}
}

/* The kernel and the model must agree on every write to a stable group. */
static void agree(int kernel, int model, const char *file, const char *val)
{
	long n;

	if (kernel == model)
		return;
	n = atomic_fetch_add(&n_disagree, 1);
	if (n < 10) {
		pthread_mutex_lock(&report_lock);
		tap_diag("%s '%s': the kernel says %d, the model %d", file, tap_escape(val), kernel, model);
		pthread_mutex_unlock(&report_lock);
	}
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static long long rnd_quota(unsigned int *seed)
{
	static const long long q[] = { 1000, 5000, 10000, 20000, 50000, 100000, 250000 };

	return q[rnd(seed, sizeof(q) / sizeof(q[0]))];
}

/* Periods from 20 ms: shorter ones invite the timer's period scale-up under TCG. */
static long long rnd_period(unsigned int *seed)
{
	static const long long p[] = { 20000, 50000, 100000, 250000, 1000000 };

	return p[rnd(seed, sizeof(p) / sizeof(p[0]))];
}

static long long rnd_burst(unsigned int *seed)
{
	switch (rnd(seed, 8)) {
	case 0:
		return 0;
	case 1:
		return MAX_RT_US;
	default:
		return rnd_quota(seed) * (1 + rnd(seed, 4));
	}
}

/* One random cpu.max write, made to the model as well. */
static void write_max(unsigned int *seed)
{
	static const char *const bad_thirds[] = { "abc", "-5", "17592186044416", "1 2" };
	int g = rnd(seed, NGROUPS), fields = 1 + rnd(seed, 3), ret, mret;
	struct model *m = &models[g];
	long long q = rnd(seed, 6) ? rnd_quota(seed) : -1, p = rnd_period(seed);
	long long b = rnd_burst(seed);
	char val[96], qs[32], third[40];

	if (q < 0)
		strcpy(qs, "max");
	else
		snprintf(qs, sizeof(qs), "%lld", q);
	snprintf(third, sizeof(third), "%lld", b);
	switch (rnd(seed, 10)) {
	case 0:
		strcpy(qs, rnd(seed, 2) ? "-1" : "500");
		break;
	case 1:
		p = rnd(seed, 2) ? 999 : 1000001;
		fields = fields < 2 ? 2 : fields;
		break;
	case 2:
		fields = 3;
		strcpy(third, bad_thirds[rnd(seed, 4)]);
		break;
	}
	if (fields == 1)
		snprintf(val, sizeof(val), "%s", qs);
	else if (fields == 2)
		snprintf(val, sizeof(val), "%s %lld", qs, p);
	else
		snprintf(val, sizeof(val), "%s %lld %s", qs, p, third);

	pthread_mutex_lock(&m->lock);
	ret = cg_write(groups[g], "cpu.max", "%s", val);
	mret = bwm_write_cpu_max(&m->g, val, strlen(val));
	pthread_mutex_unlock(&m->lock);
	agree(ret, mret, "cpu.max", val);
	tally(ret, "write cpu.max");
	atomic_fetch_add(&n_max_writes, 1);
}

static void write_burst(unsigned int *seed)
{
	static const char *const bad[] = { "-1", "abc", "17592186044416", "1.5" };
	int g = rnd(seed, NGROUPS), ret, mret;
	struct model *m = &models[g];
	char val[32];

	if (!rnd(seed, 4))
		snprintf(val, sizeof(val), "%s", bad[rnd(seed, 4)]);
	else
		snprintf(val, sizeof(val), "%lld", rnd_burst(seed));
	pthread_mutex_lock(&m->lock);
	ret = cg_write(groups[g], "cpu.max.burst", "%s", val);
	mret = bwm_write_cpu_max_burst(&m->g, val, strlen(val));
	pthread_mutex_unlock(&m->lock);
	agree(ret, mret, "cpu.max.burst", val);
	tally(ret, "write cpu.max.burst");
	atomic_fetch_add(&n_burst_writes, 1);
}

static void *writer(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg * 7919 + 1;

	while (!atomic_load(&stop)) {
		if (rnd(&seed, 2))
			write_max(&seed);
		else
			write_burst(&seed);
		if (!rnd(&seed, 4))
			sleep_usec(rnd(&seed, 3000));
	}
	return NULL;
}

static void *sysctl_writer(void *arg)
{
	static const char *const en[] = { "0", "1", "1", "2", "-1", "abc" };
	static const char *const on[] = { "0", "37", "50", "100", "101", "-1", "abc" };
	unsigned int seed = (unsigned int)(long)arg;
	long long v;
	int ret;

	while (!atomic_load(&stop)) {
		if (rnd(&seed, 2))
			ret = sysctl_write(SYSCTL_BURST_ENABLED, en[rnd(&seed, 6)]);
		else
			ret = sysctl_write(SYSCTL_BURST_ONSET, on[rnd(&seed, 7)]);
		tally(ret, "write a burst sysctl");
		ret = sysctl_get(rnd(&seed, 2) ? SYSCTL_BURST_ENABLED : SYSCTL_BURST_ONSET, &v);
		tally(ret, "read a burst sysctl");
		atomic_fetch_add(&n_sysctl_writes, 1);
		sleep_usec(1000 + rnd(&seed, 5000));
	}
	return NULL;
}

static void *reader(void *arg)
{
	static const char *const files[] = { "cpu.max", "cpu.max.burst", "cpu.stat", "cpu.weight" };
	char buf[4096];
	int i, f, ret;

	(void)arg;
	while (!atomic_load(&stop)) {
		for (i = 0; i < NGROUPS; i++) {
			for (f = 0; f < 4; f++) {
				ret = cg_read(groups[i], files[f], buf, sizeof(buf));
				if (ret)
					unexpected("read a stable group's file", ret);
				atomic_fetch_add(&n_reads, 1);
			}
		}
		sleep_usec(2000);
	}
	return NULL;
}

#define NTASKS 8
static pid_t tasks[NTASKS];	/* even: busy loops, odd: blink (run, sleep) */
static pid_t churn_task;

static void *mover(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg;
	int ret;

	while (!atomic_load(&stop)) {
		ret = cg_write(LEAF(rnd(&seed, NLEAVES)), "cgroup.procs", "%d",
			       tasks[rnd(&seed, NTASKS)]);
		if (ret)
			unexpected("move a task between leaves", ret);
		atomic_fetch_add(&n_moves, 1);
		sleep_usec(2000 + rnd(&seed, 20000));
	}
	return NULL;
}

/* Groups that come and go under the parent, with a task and random limits. */
static void *churner(void *arg)
{
	unsigned int seed = (unsigned int)(long)arg;
	char cg[128];
	int n = 0, ret;

	while (!atomic_load(&stop)) {
		snprintf(cg, sizeof(cg), PARENT "/churn%d", n++ % 3);
		ret = cg_create(cg);
		if (ret) {
			unexpected("create a churn group", ret);
			sleep_usec(10000);
			continue;
		}
		tally(cg_write(cg, "cpu.max.burst", "%lld", rnd_burst(&seed)), "churn burst");
		tally(cg_write(cg, "cpu.max", "%lld %lld %lld", rnd_quota(&seed), rnd_period(&seed),
			       rnd_burst(&seed)), "churn cpu.max");
		ret = cg_write(cg, "cgroup.procs", "%d", churn_task);
		if (ret)
			unexpected("move the churn task in", ret);
		sleep_usec(rnd(&seed, 20000));
		tally(cg_write(cg, "cpu.max", "%lld", rnd_quota(&seed)), "churn cpu.max");
		/* Removing a populated group is EBUSY; then empty it. */
		if (!rnd(&seed, 4))
			tally(rmdir(cg) ? -errno : 0, "rmdir a populated churn group");
		ret = cg_write(LEAF(rnd(&seed, NLEAVES)), "cgroup.procs", "%d", churn_task);
		if (ret)
			unexpected("move the churn task out", ret);
		ret = rmdir(cg) ? -errno : 0;
		if (ret)
			unexpected("remove a churn group", ret);
		else
			atomic_fetch_add(&n_churn_groups, 1);
	}
	return NULL;
}

static pid_t spawn(bool blink)
{
	pid_t pid = fork();
	volatile unsigned long i;

	if (pid)
		return pid;
	for (;;) {
		for (i = 0; i < 200000; i++)
			;
		if (blink)
			usleep(2000);
	}
}

/*
 * Remove a group in the states where its bandwidth timers and lists are
 * busiest: throttled (its task moved out a moment before, the period timer
 * armed to unthrottle it), and with a full pool right after it ran. The
 * harness fails on any report the teardown provokes. Returns how many
 * rounds of @rounds did not end in a removed group (with a diagnostic).
 */
#define BUSY_CG		CG2_ROOT "/stress-remove"
static pid_t spawn(bool blink);

static int remove_busy(int rounds, bool throttled)
{
	long long cap_us = 10000 + 30000;
	int round, bad = 0;

	for (round = 0; round < rounds; round++) {
		long long t0, throttled_at = -1, bw = -1;
		pid_t pid = -1;
		int ret;

		ret = cg_create(BUSY_CG);
		/* 10 ms every 20 ms, 30 ms of burst: the pool fills in 3 periods. */
		ret = ret ?: cg_write(BUSY_CG, "cpu.max", "10000 20000 30000");
		sleep_usec(100000);
		if (!ret) {
			pid = spawn(false);
			ret = pid < 0 ? -errno : cg_write(BUSY_CG, "cgroup.procs", "%d", pid);
		}
		t0 = now_usec();
		if (throttled) {
			/* The task spends the full pool, then throttles. */
			while (!ret && now_usec() - t0 < 2000000) {
				if (cg_key(BUSY_CG, "cpu.stat", "nr_throttled") > 0) {
					throttled_at = now_usec() - t0;
					break;
				}
				sleep_usec(2000);
			}
		} else {
			sleep_usec(5000);
		}
		/* A throttled task may move: out of the group, which stays throttled. */
		if (pid > 0)
			ret = ret ?: cg_write(CG2_ROOT, "cgroup.procs", "%d", pid);
		if (!throttled && !ret) {
			/* Idle: the pool refills to the cap within a period or two. */
			struct bw_sample st;

			sleep_usec(70000);
			ret = bw_sample(BUSY_CG, &st);
			bw = st.current_bw;
		}
		ret = ret ?: (rmdir(BUSY_CG) ? -errno : 0);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		if (ret || (throttled && throttled_at < 0) || (!throttled && bw != cap_us)) {
			if (bad++ < 3)
				tap_diag("round %d: ret %d (%s), throttled after %lld us, current_bw %lld (cap %lld)",
					 round, ret, strerror(-ret), throttled_at, bw, cap_us);
			if (access(BUSY_CG, F_OK) == 0)
				cg_destroy(BUSY_CG, CG2_ROOT);
		}
	}
	return bad;
}

/*
 * lockdep's own verdict: /proc/lockdep_stats says "debug_locks: 1" while
 * it checks, 0 once it has reported something (or was never on).
 */
static int lockdep_on(void)
{
	char buf[8192], *p;

	if (cg_read("/proc", "lockdep_stats", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "debug_locks:");
	return p ? (int)strtol(p + strlen("debug_locks:"), NULL, 10) : -1;
}

static int setup(void)
{
	int i, ret;

	ret = cg_create(PARENT);
	ret = ret ?: cg_write(PARENT, "cgroup.subtree_control", "+cpu");
	for (i = 0; i < NGROUPS && !ret; i++) {
		ret = cg_create(groups[i]);
		ret = ret ?: cg_write(groups[i], "cpu.max", "max 100000");
		ret = ret ?: cg_write(groups[i], "cpu.max.burst", "0");
		pthread_mutex_init(&models[i].lock, NULL);
		bwm_group_init(&models[i].g, &model_sysctls);
	}
	for (i = 0; i < NTASKS && !ret; i++) {
		tasks[i] = spawn(i & 1);
		if (tasks[i] < 0)
			return -errno;
		ret = cg_write(LEAF(i % NLEAVES), "cgroup.procs", "%d", tasks[i]);
	}
	if (!ret) {
		churn_task = spawn(true);
		ret = churn_task < 0 ? -errno : cg_write(LEAF(0), "cgroup.procs", "%d", churn_task);
	}
	return ret;
}

static void kill_tasks(void)
{
	int i;

	for (i = 0; i < NTASKS; i++) {
		if (tasks[i] > 0) {
			kill(tasks[i], SIGKILL);
			waitpid(tasks[i], NULL, 0);
		}
	}
	if (churn_task > 0) {
		kill(churn_task, SIGKILL);
		waitpid(churn_task, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	long long seconds = argc > 1 ? atoll(argv[1]) : 40, start, t0, t1;
	pthread_t th[8];
	int nth = 0, i, ret, bad, lockdep_start, checks;
	const char *lockdep = getenv("BURSTCFS_LOCKDEP");
	bool need_lockdep = lockdep && strcmp(lockdep, "required") == 0;
	struct utsname u;
	char buf[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	tap_diag("burst-stress on %s, %d CPUs, %lld s, BURSTCFS_EXPECT=%s", u.release, cpu_count(),
		 seconds, getenv("BURSTCFS_EXPECT") ?: "(unset)");
	if (!expect_patched()) {
		/* Debian's kernel: the writers alone, which assert mainline's own interface. */
		tap_plan(WRITERS_CHECKS);
		ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
		if (ret)
			tap_bail("cannot enable the cpu controller: %s", strerror(-ret));
		writers_race(WRITERS_ROUNDS);
		return tap_failed() ? 1 : 0;
	}
	checks = CHECKS - (need_lockdep ? 0 : LOCKDEP_CHECKS);
	tap_plan(checks);
	bwm_sysctls_init(&model_sysctls);
	ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
	lockdep_start = lockdep_on();
	if (need_lockdep)
		tap_ok(lockdep_start == 1, "lockdep is on at the start (debug_locks %d)", lockdep_start);
	else
		tap_diag("lockdep not required (debug_locks %d): make test-stress-debug runs this suite with it",
			 lockdep_start);
	ret = ret ?: writers_race(need_lockdep ? WRITERS_ROUNDS_DEBUG : WRITERS_ROUNDS);
	has_sysctls = access("/proc/sys/kernel/" SYSCTL_BURST_ENABLED, F_OK) == 0 &&
		      access("/proc/sys/kernel/" SYSCTL_BURST_ONSET, F_OK) == 0;
	tap_ok(has_sysctls, "the kernel has both burst sysctls");
	ret = ret ?: setup();
	if (!tap_ok(ret == 0, "set up %d groups and %d tasks (ret %d)", NGROUPS, NTASKS + 1, ret)) {
		kill_tasks();
		for (i = tap_count() + 1; i <= checks; i++)
			tap_ok(false, "not reached: setup failed");
		return 1;
	}

	start = now_usec();
	for (i = 0; i < 3; i++)
		pthread_create(&th[nth++], NULL, writer, (void *)(long)(i + 1));
	pthread_create(&th[nth++], NULL, sysctl_writer, (void *)11L);
	pthread_create(&th[nth++], NULL, reader, NULL);
	pthread_create(&th[nth++], NULL, mover, (void *)13L);
	pthread_create(&th[nth++], NULL, churner, (void *)17L);
	while (now_usec() - start < seconds * 1000000) {
		sleep_usec(5000000);
		tap_diag("%.0f s: %ld cpu.max and %ld burst writes, %ld sysctl writes, %ld reads, %ld moves, %ld churn groups",
			 (now_usec() - start) / 1e6, atomic_load(&n_max_writes),
			 atomic_load(&n_burst_writes), atomic_load(&n_sysctl_writes),
			 atomic_load(&n_reads), atomic_load(&n_moves), atomic_load(&n_churn_groups));
	}
	atomic_store(&stop, true);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	tap_diag("outcomes: %ld ok, %ld EINVAL, %ld ENOENT, %ld EBUSY, %ld unexpected",
		 atomic_load(&n_ok), atomic_load(&n_einval), atomic_load(&n_enoent),
		 atomic_load(&n_ebusy), atomic_load(&n_unexpected));
	tap_ok(now_usec() - start >= seconds * 1000000 && atomic_load(&n_max_writes) > 100 &&
	       atomic_load(&n_burst_writes) > 100 && atomic_load(&n_sysctl_writes) > 10 &&
	       atomic_load(&n_moves) > 10 && atomic_load(&n_churn_groups) > 10,
	       "ran %.1f s with every kind of operation", (now_usec() - start) / 1e6);
	tap_ok(atomic_load(&n_ok) > 0 && atomic_load(&n_einval) > 0,
	       "both accepted and rejected writes happened (%ld ok, %ld EINVAL)",
	       atomic_load(&n_ok), atomic_load(&n_einval));
	tap_ok(atomic_load(&n_unexpected) == 0, "errors were only EINVAL, ENOENT or EBUSY (%ld others)",
	       atomic_load(&n_unexpected));
	tap_ok(atomic_load(&n_enoent) == 0, "no ENOENT (%ld)", atomic_load(&n_enoent));
	tap_ok(atomic_load(&n_disagree) == 0,
	       "the kernel took exactly the writes the model takes (%ld disagreements)",
	       atomic_load(&n_disagree));

	/* Every group readable, settings as the model has them. */
	for (i = 0, bad = 0; i < NGROUPS; i++) {
		long long b = cg_num(groups[i], "cpu.max.burst");
		char want[64];

		bwm_read_cpu_max(&models[i].g, want, sizeof(want));
		if (cg_read(groups[i], "cpu.max", buf, sizeof(buf)) || b < 0 ||
		    cg_key(groups[i], "cpu.stat", "nr_periods") < 0) {
			tap_diag("%s: unreadable (cpu.max '%s')", groups[i], tap_escape(buf));
			bad++;
		} else if (strcmp(buf, want) || b != bwm_burst_us(&models[i].g)) {
			tap_diag("%s: reads cpu.max '%s' burst %lld, the model '%s' burst %lld", groups[i],
				 tap_escape(buf), b, tap_escape(want), bwm_burst_us(&models[i].g));
			bad++;
		} else {
			tap_diag("%s: cpu.max '%s' burst %lld", groups[i], tap_escape(buf), b);
		}
	}
	tap_ok(bad == 0, "all %d groups readable, settings are the model's (%d off)", NGROUPS, bad);

	/* Every leaf still runs, and within a fresh limit. */
	burst_sysctls_default();
	ret = cg_write(PARENT, "cpu.max", "max 100000");
	for (i = 0; i < NLEAVES && !ret; i++) {
		/* Burst first: stock may hold one above the new quota. */
		ret = cg_write(LEAF(i), "cpu.max.burst", "0");
		ret = ret ?: cg_write(LEAF(i), "cpu.max", "20000 100000");
		ret = ret ?: cg_write(LEAF(i), "cgroup.procs", "%d", tasks[2 * i]);
	}
	{
		struct bw_sample s0[NLEAVES], s1[NLEAVES];
		long long lo = 20000 * 10 / 2, hi, elapsed;

		/*
		 * An armed period timer keeps its old expiry when the period
		 * shrinks (mainline too): wait out the longest old period.
		 */
		sleep_usec(1100000);
		for (i = 0; i < NLEAVES && !ret; i++)
			ret = bw_sample(LEAF(i), &s0[i]);
		t0 = now_usec();
		sleep_usec(1000000);
		for (i = 0; i < NLEAVES && !ret; i++)
			ret = bw_sample(LEAF(i), &s1[i]);
		t1 = now_usec();
		/*
		 * At most the pool it started with (one quota, burst 0), a
		 * quota for each boundary in the window, one more for a
		 * boundary before it whose timer fired late, inside the
		 * window (a slow guest; with burst 0 a late expiry credits
		 * one quota however many periods it counts), and a slice
		 * per CPU. Not from nr_periods: a kernel that refills too
		 * often counts too many.
		 */
		elapsed = (t1 - t0 + 99999) / 100000;
		hi = 20000 * (elapsed + 2) + 5000 * cpu_count();
		for (i = 0, bad = 0; i < NLEAVES && !ret; i++) {
			long long used = s1[i].usage - s0[i].usage;
			long long counted = s1[i].nr_periods - s0[i].nr_periods;

			cg_read(LEAF(i), "cgroup.procs", buf, sizeof(buf));
			for (char *c = buf; *c; c++)
				if (*c == '\n')
					*c = ' ';
			tap_diag("%s: %lld us in %.2f s under 20000/100000 (at most %lld); nr_periods +%lld, nr_throttled +%lld, current_bw %lld; tasks %s",
				 LEAF(i), used, (t1 - t0) / 1e6, hi, counted,
				 s1[i].nr_throttled - s0[i].nr_throttled, s1[i].current_bw, buf);
			if (used < lo || used > hi)
				bad++;
		}
		tap_ok(!ret && !bad,
		       "every leaf still runs, within 20000/100000: %lld..%lld us in %.2f s, a quota for each period elapsed, one late and the pool, and a slice per CPU (%d off, ret %d)",
		       lo, hi, (t1 - t0) / 1e6, bad, ret);
	}

	kill_tasks();
	for (i = NGROUPS - 1, bad = 0; i >= 0; i--)
		if (rmdir(groups[i]))
			bad++;
	tap_ok(bad == 0, "all groups removed (%d failed)", bad);
	bad = remove_busy(REMOVE_ROUNDS, true);
	tap_ok(bad == 0, "%d groups removed while throttled, their task just moved out (%d rounds off)",
	       REMOVE_ROUNDS, bad);
	bad = remove_busy(REMOVE_ROUNDS, false);
	tap_ok(bad == 0, "%d groups removed with a full pool right after they ran (%d rounds off)",
	       REMOVE_ROUNDS, bad);

	write_fuzz(WRITE_FUZZ_WRITES);

	if (need_lockdep) {
		ret = lockdep_on();
		tap_ok(ret == 1, "lockdep is still on at the end: it reported nothing (debug_locks %d)", ret);
	}
	return tap_failed() ? 1 : 0;
}
