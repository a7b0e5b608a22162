// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool.h"
#include "../../lib/tap.h"

long long period_now(long long period_us)
{
	return now_usec() / period_us;
}

int pool_read(const char *cg, long long period_us, struct pool_read *r)
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
		if (t0 / period_us == t1 / period_us) {
			r->index = t0 / period_us;
			r->t = t0;
			return 0;
		}
	}
	return -EAGAIN;
}

void period_wait(long long period_us, long long offset_us)
{
	long long t = now_usec(), start = t - t % period_us + offset_us;

	if (start <= t)
		start += period_us;
	sleep_usec(start - t);
}

void period_wait_index(long long period_us, long long index, long long offset_us)
{
	long long t = now_usec(), start = index * period_us + offset_us;

	if (start > t)
		sleep_usec(start - t);
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

	period_wait(period_us, 5000);
	ret = bw_group(cg, quota_us, period_us, burst_us);
	pm_init(m, period_now(period_us));
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
