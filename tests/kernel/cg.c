// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"
#include "../../lib/cgfile.h"
#include "../../lib/tap.h"

bool expect_patched(void)
{
	const char *e = getenv("BURSTCFS_EXPECT");

	if (e && !strcmp(e, "patched"))
		return true;
	if (e && !strcmp(e, "stock"))
		return false;
	tap_bail("BURSTCFS_EXPECT must be 'patched' or 'stock', not '%s'", e ? e : "(unset)");
}

static void cg_path(char *path, size_t len, const char *cg, const char *file)
{
	if (snprintf(path, len, "%s/%s", cg, file) >= (int)len)
		tap_bail("path too long: %s/%s", cg, file);
}

int cg_write(const char *cg, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], buf[256];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cg_path(path, sizeof(path), cg, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One write(2): cgroup files parse each write as a whole. */
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

int cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	return cgfile_read(cg, file, buf, len);
}

int cg_create(const char *cg)
{
	if (mkdir(cg, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int cg_destroy(const char *cg, const char *root)
{
	const char *procs = access(CG2_ROOT "/cgroup.controllers", F_OK) == 0 &&
			    !strncmp(cg, CG2_ROOT, strlen(CG2_ROOT)) ? "cgroup.procs" : "tasks";
	char buf[4096], *line, *save;

	if (cg_read(cg, procs, buf, sizeof(buf)) == 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			cg_write(root, procs, "%s", line);
	}
	if (rmdir(cg) && errno != ENOENT)
		return -errno;
	return 0;
}

/* The value of "key value" in a flat-keyed file's text; -1 when absent. */
static long long flat_key(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = buf; *line; line = strchrnul(line, '\n'), line += *line == '\n') {
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	}
	return -1;
}

long long cg_key(const char *cg, const char *file, const char *key)
{
	char buf[4096];

	if (cg_read(cg, file, buf, sizeof(buf)))
		return -1;
	return flat_key(buf, key);
}

long long cg_num(const char *cg, const char *file)
{
	char buf[256], *end;
	long long v;

	if (cg_read(cg, file, buf, sizeof(buf)))
		return LLONG_MIN;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return LLONG_MIN;
	return v;
}

const char *cg_text(const char *cg, const char *file, char *buf, size_t len)
{
	int ret = cg_read(cg, file, buf, len);

	if (ret)
		snprintf(buf, len, "<%s>", strerror(-ret));
	else
		buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

int sysctl_write(const char *name, const char *value)
{
	char dir[PATH_MAX] = "/proc/sys/kernel";

	return cg_write(dir, name, "%s", value);
}

long long sysctl_num(const char *name)
{
	return cg_num("/proc/sys/kernel", name);
}

int sysctl_get(const char *name, long long *val)
{
	char buf[64], *end;
	int ret;

	ret = cg_read("/proc/sys/kernel", name, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

void burst_sysctls_default(void)
{
	/* Absent on stock kernels: nothing to restore there. */
	sysctl_write(SYSCTL_BURST_ENABLED, "1");
	sysctl_write(SYSCTL_BURST_ONSET, "0");
}

#define HOG_MAX 64
static pid_t hog_pids[HOG_MAX];
static int hog_count;

void spin_cpu_usec(long long usec)
{
	struct timespec ts;
	long long start;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	start = ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec * 1000000LL + ts.tv_nsec / 1000 - start < usec);
}

/* @on_us 0: spin for ever; else spin @on_us, sleep @off_us, pinned to CPU @i mod the CPUs. */
static int procs_start(const char *cg, const char *procs_file, int procs, long long on_us,
		       long long off_us)
{
	int i, ret;

	for (i = 0; i < procs && hog_count < HOG_MAX; i++) {
		int go[2];
		pid_t pid;
		char c;

		if (pipe(go))
			return -errno;
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0) {
			cpu_set_t set;

			close(go[1]);
			/* Spin only once the parent has moved us into the group. */
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			if (!on_us)
				for (;;)
					;
			CPU_ZERO(&set);
			CPU_SET(i % cpu_count(), &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
			for (;;) {
				spin_cpu_usec(on_us);
				sleep_usec(off_us);
			}
		}
		close(go[0]);
		hog_pids[hog_count++] = pid;
		ret = cg_write(cg, procs_file, "%d", pid);
		if (write(go[1], "g", 1) != 1 && !ret)
			ret = -EIO;
		close(go[1]);
		if (ret)
			return ret;
	}
	return 0;
}

int hog_start(const char *cg, const char *procs_file, int procs)
{
	return procs_start(cg, procs_file, procs, 0, 0);
}

int blinker_start(const char *cg, const char *procs_file, int procs, long long on_us,
		  long long off_us)
{
	return procs_start(cg, procs_file, procs, on_us, off_us);
}

void hog_stop(void)
{
	while (hog_count > 0) {
		pid_t pid = hog_pids[--hog_count];

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

long long now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void sleep_usec(long long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

bool cg_is_v1(const char *cg)
{
	return strncmp(cg, CG2_ROOT "/", strlen(CG2_ROOT) + 1) != 0;
}

int bw_sample(const char *cg, struct bw_sample *s)
{
	char buf[4096];
	bool v1 = cg_is_v1(cg);
	int ret;

	/*
	 * v1 keeps usage in another file: read it first, so that the
	 * counters are never older than the usage they go with.
	 */
	if (v1) {
		s->usage = cg_num(cg, "cpuacct.usage");
		if (s->usage == LLONG_MIN)
			return -EIO;
		s->usage /= 1000;
	}
	ret = cg_read(cg, "cpu.stat", buf, sizeof(buf));
	if (ret)
		return ret;
	s->nr_periods = flat_key(buf, "nr_periods");
	s->nr_throttled = flat_key(buf, "nr_throttled");
	s->nr_bursts = flat_key(buf, "nr_bursts");
	if (!v1) {
		s->usage = flat_key(buf, "usage_usec");
		s->burst_usec = flat_key(buf, "burst_usec");
		s->current_bw = flat_key(buf, "current_bw_usec");
	} else {
		/* The legacy files count nanoseconds. */
		s->burst_usec = flat_key(buf, "burst_time");
		s->current_bw = flat_key(buf, "current_bw");
		if (s->burst_usec > 0)
			s->burst_usec /= 1000;
		if (s->current_bw > 0)
			s->current_bw /= 1000;
	}
	if (s->usage < 0 || s->nr_periods < 0 || s->nr_throttled < 0 || s->nr_bursts < 0)
		return -EPROTO;
	return 0;
}

int bw_until_throttled(const char *cg, const char *watch, int hogs,
		       long long timeout_usec, struct bw_burst *b)
{
	struct bw_sample s, w;
	long long u0, thr0, wper0, start, last, t, prev = -1;
	int ret;

	memset(b, 0, sizeof(*b));
	b->max_bw = -1;
	b->edge_wall = -1;
	b->edge_usage = -1;
	if (!watch)
		watch = cg;
	ret = bw_sample(cg, &s);
	if (!ret && watch != cg)
		ret = bw_sample(watch, &w);
	if (ret)
		return ret;
	u0 = s.usage;
	thr0 = watch == cg ? s.nr_throttled : w.nr_throttled;
	wper0 = watch == cg ? s.nr_periods : w.nr_periods;
	start = now_usec();
	if (hogs > 0) {
		ret = hog_start(cg, "cgroup.procs", hogs);
		if (ret)
			return ret;
	}
	last = now_usec();
	for (;;) {
		long long thr;

		/* The poller sleeps: clocks are syscalls under TCG, keep it light. */
		sleep_usec(1000);
		ret = bw_sample(cg, &s);
		if (!ret && watch != cg)
			ret = bw_sample(watch, &w);
		if (ret)
			return ret;
		t = now_usec();
		if (t - last > b->max_gap)
			b->max_gap = t - last;
		last = t;
		b->samples++;
		if (s.current_bw > b->max_bw)
			b->max_bw = s.current_bw;
		if (b->edge_wall < 0 && (watch == cg ? s.nr_periods : w.nr_periods) > wper0) {
			b->edge_wall = t - start;
			b->edge_usage = b->lo;
		}
		thr = watch == cg ? s.nr_throttled : w.nr_throttled;
		if (thr > thr0) {
			b->hi = s.usage - u0;
			b->wall = t - start;
			return 0;
		}
		prev = b->lo;
		b->lo = s.usage - u0;
		b->refills = (watch == cg ? s.nr_periods : w.nr_periods) - wper0;
		b->plateau = b->samples > 1 && prev == b->lo && b->lo > 0;
		if (t - start > timeout_usec)
			return -ETIMEDOUT;
	}
}

int bw_reset(const char *cg)
{
	char buf[64];
	int ret;

	if (cg_is_v1(cg)) {
		ret = cg_read(cg, "cpu.cfs_quota_us", buf, sizeof(buf));
		return ret ?: cg_write(cg, "cpu.cfs_quota_us", "%s", buf);
	}
	ret = cg_read(cg, "cpu.max", buf, sizeof(buf));
	return ret ?: cg_write(cg, "cpu.max", "%s", buf);
}

int bw_drain(const char *cg, int hogs, long long timeout_usec)
{
	struct bw_burst b;
	int ret;

	ret = bw_until_throttled(cg, NULL, hogs, timeout_usec, &b);
	hog_stop();
	return ret;
}

int bw_burst_after_idle(const char *cg, int hogs, long long idle_usec,
			long long timeout_usec, long long stall_usec, struct bw_burst *b)
{
	long long edge;
	int ret, run;

	for (run = 1; ; run++) {
		/*
		 * The drain sees the throttle just after a period boundary:
		 * counting the idle time from there starts the run early in a
		 * period, so the pool is usually spent before the next refill
		 * lands in the middle of it.
		 */
		ret = bw_until_throttled(cg, NULL, hogs, timeout_usec, b);
		edge = now_usec();
		hog_stop();
		memset(b, 0, sizeof(*b));
		/*
		 * A guest stall while the hogs ran leaves them in debt, which
		 * would eat the savings of the idle time to come: clear it.
		 */
		ret = ret ?: bw_reset(cg);
		if (ret)
			return ret;
		if (edge + idle_usec > now_usec())
			sleep_usec(edge + idle_usec - now_usec());
		ret = bw_until_throttled(cg, NULL, hogs, timeout_usec, b);
		if (ret) {
			hog_stop();
			return ret;
		}
		if (b->max_gap <= stall_usec || run == 3)
			return 0;
		tap_diag("%s: the guest stalled for %lld us during the run (lo %lld, hi %lld): measuring again",
			 cg, b->max_gap, b->lo, b->hi);
		hog_stop();
	}
}

long long sleep_settled(long long usec, long long tail_usec, long long stall_usec,
			long long max_extra_usec)
{
	long long start = now_usec(), t = start, prev, stalled = start - tail_usec;
	int stalls = 0;

	for (;;) {
		prev = t;
		sleep_usec(10000);
		t = now_usec();
		if (t - prev - 10000 > stall_usec) {
			stalled = t;
			stalls++;
			tap_diag("the guest stalled for %lld us at +%lld us", t - prev - 10000, t - start);
		}
		if (t - start >= usec && (t - stalled >= tail_usec || t - start >= usec + max_extra_usec))
			break;
	}
	if (t - start > usec + 20000)
		tap_diag("slept %lld us instead of %lld: %d stalls", t - start, usec, stalls);
	return t - start;
}

int bw_group(const char *cg, long long quota, long long period, long long burst)
{
	int ret;

	ret = cg_create(cg);
	if (!ret)
		ret = cg_write(cg, "cpu.max", "%lld %lld", quota, period);
	if (!ret)
		ret = cg_write(cg, "cpu.max.burst", "%lld", burst);
	return ret;
}

int cg_mount_v1_cpu(const char *dir)
{
	int ret, tries;

	ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "-cpu");
	if (ret)
		return ret;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	/* The v2 css of removed groups go away asynchronously: EBUSY meanwhile. */
	for (tries = 0; tries < 50; tries++) {
		if (!mount("none", dir, "cgroup", 0, "cpu,cpuacct"))
			return 0;
		ret = -errno;
		if (ret != -EBUSY)
			break;
		sleep_usec(100000);
	}
	return ret;
}
