// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool.h"
#include "../../lib/tap.h"

/* floor(a / b) for b > 0, also for a < 0. */
static long long floor_div(long long a, long long b)
{
	return a / b - (a % b < 0);
}

long long period_at(const struct period_clock *c, long long t)
{
	return floor_div(t - c->phase, c->period);
}

long long period_now(const struct period_clock *c)
{
	return period_at(c, now_usec());
}

long long period_start(const struct period_clock *c, long long index)
{
	return index * c->period + c->phase;
}

int pool_read(const char *cg, const struct period_clock *c, struct pool_read *r)
{
	int tries, ret;

	memset(r, 0, sizeof(*r));
	r->s.current_bw = -1;
	/* A read that straddles a boundary saw one of two counts: read again. */
	for (tries = 0; tries < 20; tries++) {
		long long t0 = now_usec(), t1;

		ret = bw_sample(cg, &r->s);
		if (ret)
			return ret;
		t1 = now_usec();
		if (period_at(c, t0 - c->err) == period_at(c, t1 + c->err)) {
			r->index = period_at(c, t0);
			r->t = t0;
			return 0;
		}
	}
	return -EAGAIN;
}

void period_wait(const struct period_clock *c, long long offset_us)
{
	long long t = now_usec(), start = period_start(c, period_at(c, t)) + offset_us;

	if (start <= t)
		start += c->period;
	sleep_usec(start - t);
}

void period_wait_index(const struct period_clock *c, long long index, long long offset_us)
{
	long long t = now_usec(), start = period_start(c, index) + offset_us;

	if (start > t)
		sleep_usec(start - t);
}

/* How far @t is past the last boundary of @c, and how far before the next. */
static bool clear_of(const struct period_clock *c, long long t, long long margin_us)
{
	long long into = t - period_start(c, period_at(c, t));

	return into >= margin_us + c->err && c->period - into >= margin_us + c->err;
}

void period_wait_clear(const struct period_clock *a, const struct period_clock *b,
		       long long margin_us)
{
	long long t = now_usec(), deadline = t + a->period + b->period;

	/*
	 * Two windows of period - 2 * (margin + err) on a circle of one
	 * period overlap while the margins are below a quarter period; past
	 * the deadline the caller's own check of the periods judges.
	 */
	while ((!clear_of(a, t, margin_us) || !clear_of(b, t, margin_us)) && t < deadline) {
		sleep_usec(500);
		t = now_usec();
	}
}

/*
 * Limit @cg for period_learn(): period @period_us, quota @quota_us and
 * burst @burst_us; @quota_us 0: no limit and no burst, the period kept.
 */
static int learn_limit(const char *cg, long long period_us, long long quota_us, long long burst_us)
{
	int ret;

	if (cg_is_v1(cg)) {
		if (!quota_us) {
			ret = cg_write(cg, "cpu.cfs_quota_us", "-1");
			return ret ?: cg_write(cg, "cpu.cfs_burst_us", "0");
		}
		ret = cg_write(cg, "cpu.cfs_period_us", "%lld", period_us);
		ret = ret ?: cg_write(cg, "cpu.cfs_quota_us", "%lld", quota_us);
		return ret ?: cg_write(cg, "cpu.cfs_burst_us", "%lld", burst_us);
	}
	if (!quota_us) {
		ret = cg_write(cg, "cpu.max", "max");
		return ret ?: cg_write(cg, "cpu.max.burst", "0");
	}
	ret = cg_write(cg, "cpu.max", "%lld %lld", quota_us, period_us);
	return ret ?: cg_write(cg, "cpu.max.burst", "%lld", burst_us);
}

/*
 * The expiries of the armed period timers in /proc/timer_list, up to @max;
 * how many there are, or -errno. They cannot be told apart by the address
 * it prints: before the boot's pointer hash is ready (early under TCG) every
 * one reads "(____ptrval____)".
 */
static int period_timers(long long *expires_ns, int max)
{
	FILE *f = fopen("/proc/timer_list", "r");
	bool period_timer = false;
	char line[256];
	long long ns;
	int n = 0;

	if (!f)
		return -errno;
	/* " #3: <...>, sched_cfs_period_timer, S:01", then " # expires at 123-123 nsecs ..." */
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, ", sched_cfs_period_timer, ")) {
			period_timer = true;
			continue;
		}
		if (period_timer && sscanf(line, " # expires at %lld-", &ns) == 1) {
			if (n < max)
				expires_ns[n] = ns;
			n++;
		}
		period_timer = false;
	}
	fclose(f);
	return n;
}

/* Other groups' timers stop within a few idle periods, or when their group goes. */
#define QUIET_TIMEOUT_US 2000000LL

/* Wait until no period timer is armed (other groups' stop within a few idle periods): 0 or -EBUSY. */
static int period_timers_quiet(const char *cg)
{
	long long deadline = now_usec() + QUIET_TIMEOUT_US, expires_ns;
	int n;

	while ((n = period_timers(&expires_ns, 1)) > 0 && now_usec() < deadline)
		sleep_usec(10000);
	if (n)
		tap_diag("period_learn %s: %d period timers still armed after %lld us", cg, n,
			 QUIET_TIMEOUT_US);
	return n < 0 ? n : n ? -EBUSY : 0;
}

/*
 * A timer of another group that arms between the quiet check and the read
 * (its task waking) cannot be told from ours: both are expiries with no
 * owner (period_timers()). Seen once in 8 boots of a 6.12 kernel. The
 * learning is then done again from the quiet check, a few times, each
 * printed; a kernel that arms two timers for one limit fails every time.
 */
#define LEARN_TRIES 3

/*
 * Once no period timer is armed, a limit written to the group arms its
 * timer at the next boundary (tg_set_cfs_bandwidth()), and /proc/timer_list
 * shows that expiry to the nanosecond. The limit is the smallest there is,
 * 1 ms and no burst, for the runtime it leaves in the pool: kernels without
 * the series' keep-pool patch keep it, and add it to the next limit's first
 * quota. Taken off at once, the limit is gone when the timer expires, and
 * the timer stops without counting a period (pool.h says what happens when
 * a boundary falls in the milliseconds between). That is waited for, up to
 * QUIET_TIMEOUT_US.
 */
static int learn_from_timer(const char *cg, struct period_clock *c)
{
	long long expires_ns = 0;
	int n = 0, ret = 0, i;

	for (i = 1; i <= LEARN_TRIES; i++) {
		ret = period_timers_quiet(cg);
		ret = ret ?: learn_limit(cg, c->period, 1000, 0);
		n = ret ? 0 : period_timers(&expires_ns, 1);
		learn_limit(cg, c->period, 0, 0);
		if (ret || n <= 1 || i == LEARN_TRIES)
			break;
		tap_diag("period_learn %s: %d period timers armed after the limit: another group's armed since the quiet check, learning again (%d of %d)",
			 cg, n, i, LEARN_TRIES);
	}
	if (!ret && n != 1) {
		tap_diag("period_learn %s: %d period timers armed after the limit, not 1", cg, n);
		ret = n < 0 ? n : -ENOENT;
	}
	if (ret)
		return ret;
	c->phase = expires_ns / 1000 % c->period;
	c->err = 1;
	return period_timers_quiet(cg);
}

int period_group(const char *cg, long long period_us, struct period_clock *c)
{
	/* Waited on by the caller even when the group cannot be made. */
	*c = (struct period_clock){ period_us, 0, 0 };
	return cg_create(cg) ?: period_learn(cg, period_us, c);
}

int period_learn(const char *cg, long long period_us, struct period_clock *c)
{
	const char *how = "the timer";
	struct bw_sample s;
	struct utsname u;
	int ret;

	c->period = period_us;
	c->phase = 0;
	c->err = 0;
	/* Our kernel reports current_bw (0) for an unlimited group too. */
	ret = bw_sample(cg, &s);
	if (!ret && s.current_bw < 0 && !uname(&u) && !strncmp(u.release, "6.1.", 4)) {
		/*
		 * 6.1's init_cfs_bandwidth() leaves the expiry at 0 (the timer
		 * shows phase 0 for every group of a 6.1 kernel), and Debian's
		 * kernel (like the prefixes before keep-pool) would keep the
		 * learning limit's 1 ms in the pool of a group whose checks
		 * count every microsecond: no write, then. 6.12's prefixes
		 * before keep-pool keep it (docs/kernel.md).
		 */
		how = "6.1's code";
	} else if (!ret) {
		ret = learn_from_timer(cg, c);
	}
	if (ret)
		tap_diag("period_learn %s: %s", cg, strerror(-ret));
	else
		tap_diag("period_learn %s: boundaries at %lld + k * %lld us (+- %lld, from %s)", cg,
			 c->phase, period_us, c->err, how);
	return ret;
}

void pm_init(struct pool_model *m, long long index)
{
	bwm_sysctls_init(&m->sys);
	bwm_group_init(&m->g, &m->sys);
	m->index = index;
	m->start = index;
}

void pm_advance(struct pool_model *m, long long index)
{
	if (index > m->index)
		bwm_refill(&m->g, (uint64_t)(index - m->index));
	m->index = index;
}

long long pm_usec(const struct pool_model *m)
{
	return (long long)(bwm_available(&m->g) / BWM_NSEC_PER_USEC);
}

bool pm_check(struct pool_model *m, const struct pool_read *r, int ret, const char *tags,
	      const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!expect_patched())
		return tap_ok(ret == 0 && r->s.current_bw == -1,
			      "stock: %s: no current_bw_usec in cpu.stat (ret %d)", what, ret);
	/* A failed read says nothing of the pool, and the model may not be set up. */
	if (ret)
		return tap_ok(false, "[%s] %s: the pool cannot be read (ret %d)", tags, what, ret);
	pm_advance(m, r->index);
	return tap_ok(r->s.current_bw == pm_usec(m),
		      "[%s] %s: current_bw_usec %lld, model %lld (period %lld of the model, ret %d)",
		      tags, what, r->s.current_bw, pm_usec(m), r->index - m->start, ret);
}

int pm_new_group(struct pool_model *m, const char *cg, long long quota_us, long long period_us,
		 long long burst_us)
{
	int ret;

	ret = period_group(cg, period_us, &m->clk);
	period_wait(&m->clk, 5000);
	ret = ret ?: bw_group(cg, quota_us, period_us, burst_us);
	pm_init(m, period_now(&m->clk));
	/* bw_group() writes the limit, then the burst: the model does the same. */
	bwm_set(&m->g, period_us * 1000, quota_us * 1000, 0);
	bwm_set(&m->g, period_us * 1000, quota_us * 1000, burst_us * 1000);
	return ret;
}

void pm_sync(struct pool_model *m, const struct pool_read *r)
{
	pm_advance(m, r->index);
	m->g.pool = (uint64_t)r->s.current_bw * BWM_NSEC_PER_USEC;
}

/* Wait until @pid sleeps (state S in /proc/PID/stat); 0 or -errno. */
static int wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	int tries;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	for (tries = 0; tries < 1000; tries++) {
		if (cg_read(path, "stat", buf, sizeof(buf)))
			return -ESRCH;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return 0;
		sleep_usec(1000);
	}
	return -ETIMEDOUT;
}

int pinned_burn(const char *cg, const char *procs_file, int cpu, long long spin_us)
{
	long long spun[2];

	return pinned_burn_at(cg, procs_file, cpu, spin_us, 0, spun);
}

int pinned_burn_at(const char *cg, const char *procs_file, int cpu, long long spin_us,
		   long long go_at_us, long long spun[2])
{
	int go[2], times[2], status, ret;
	cpu_set_t set, old;
	pid_t pid;
	char c;

	if (pipe(go))
		return -errno;
	if (pipe(times)) {
		ret = -errno;
		close(go[0]);
		close(go[1]);
		return ret;
	}
	/* The child inherits the CPU: it never runs anywhere else, not even before the move. */
	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	pid = fork();
	if (pid == 0) {
		long long wall[2];

		close(go[1]);
		close(times[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		wall[0] = now_usec();
		spin_cpu_usec(spin_us);
		wall[1] = now_usec();
		_exit(write(times[1], wall, sizeof(wall)) == sizeof(wall) ? 0 : 1);
	}
	ret = pid < 0 ? -errno : 0;
	sched_setaffinity(0, sizeof(old), &old);
	if (ret)
		return ret;
	close(go[0]);
	close(times[1]);
	/* Moved while asleep, so that its one wake-up is the group's one runtime request. */
	ret = wait_sleeping(pid);
	ret = ret ?: cg_write(cg, procs_file, "%d", pid);
	if (!ret && go_at_us > now_usec())
		sleep_usec(go_at_us - now_usec());
	if (write(go[1], "g", 1) != 1 && !ret)
		ret = -EIO;
	close(go[1]);
	if (ret)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) < 0 && !ret)
		ret = -errno;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = -ECHILD;
	if (read(times[0], spun, 2 * sizeof(*spun)) != 2 * sizeof(*spun) && !ret)
		ret = -EIO;
	close(times[0]);
	/*
	 * The child is reaped once exit_notify() ran, before its last
	 * schedule, whose dequeue returns its unused runtime to the pool.
	 * Running on its CPU once means that schedule is over.
	 */
	if (!ret && sched_setaffinity(0, sizeof(set), &set))
		ret = -errno;
	if (!ret && sched_getcpu() != cpu)
		ret = -EAGAIN;
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}
