// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent writers of one group's bandwidth must not lose each other's
 * values. Three threads write one v2 group, each its own field, released
 * together in every round:
 *
 *   quota   cpu.max "Q"             keeps the period and the burst
 *   period  cpu.max "QP P"          keeps the burst
 *   burst   cpu.max.burst "B"       keeps the quota and the period
 *
 * Every order of the three writes ends with period P and burst B, and a
 * quota of Q or QP (whichever of the two cpu.max writes came last). After
 * each round the group must read one of those states: a burst or a period
 * from an earlier round, or a quota that is neither Q nor QP, is a value
 * one writer read before another's write and stored back after it.
 * Mainline (and the series before its first patch) reads the kept values
 * before it takes cfs_constraints_mutex and loses some; Debian's 6.1
 * lost 8 bursts and a quota in 4,000 rounds (issue 45).
 *
 * Every value is valid on any kernel with cpu.max.burst (bursts stay
 * below every quota: stock 6.1 refuses a burst above the quota), so the
 * case runs on Debian's kernel as well (BURSTCFS_EXPECT=stock), where
 * it must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"
#include "stress.h"
#include "../../lib/tap.h"

#define WRITERS_CG	CG2_ROOT "/stress-writers"

enum { W_QUOTA, W_PERIOD, W_BURST, NWRITERS };

struct writers {
	pthread_barrier_t start, done;
	int max_fd, burst_fd;
	long rounds;
	atomic_long failed;	/* writes that did not succeed */
	int first_errno;
};

/* The values of round @r: consecutive rounds differ in every field. */
static long long r_quota(long r)	{ return 20000 + 2 * (r % 5000); }
static long long r_quota_p(long r)	{ return 20001 + 2 * (r % 5000); }
static long long r_period(long r)	{ return 50000 + 100 * (r % 1000); }
static long long r_burst(long r)	{ return 1000 + r % 5000; }

static int fd_write(int fd, const char *val)
{
	ssize_t n = pwrite(fd, val, strlen(val), 0);

	return n < 0 ? -errno : (size_t)n == strlen(val) ? 0 : -EIO;
}

static int fd_read(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

struct writer_arg {
	struct writers *w;
	int which;
};

static void *writer(void *arg)
{
	struct writer_arg *a = arg;
	struct writers *w = a->w;
	char val[64];
	long r;
	int ret, fd;

	for (r = 1; r <= w->rounds; r++) {
		switch (a->which) {
		case W_QUOTA:
			snprintf(val, sizeof(val), "%lld", r_quota(r));
			fd = w->max_fd;
			break;
		case W_PERIOD:
			snprintf(val, sizeof(val), "%lld %lld", r_quota_p(r), r_period(r));
			fd = w->max_fd;
			break;
		default:
			snprintf(val, sizeof(val), "%lld", r_burst(r));
			fd = w->burst_fd;
			break;
		}
		pthread_barrier_wait(&w->start);
		ret = fd_write(fd, val);
		if (ret && atomic_fetch_add(&w->failed, 1) == 0)
			w->first_errno = -ret;
		pthread_barrier_wait(&w->done);
	}
	return NULL;
}

int writers_race(long rounds)
{
	struct writers w = { .rounds = rounds };
	struct writer_arg args[NWRITERS];
	pthread_t th[NWRITERS];
	long r, lost_quota = 0, lost_period = 0, lost_burst = 0, unreadable = 0;
	long long t0 = now_usec();
	char buf[128], path[256];
	int i, ret, nth = 0;

	ret = cg_create(WRITERS_CG);
	ret = ret ?: cg_write(WRITERS_CG, "cpu.max", "%lld %lld", r_quota_p(0), r_period(0));
	ret = ret ?: cg_write(WRITERS_CG, "cpu.max.burst", "%lld", r_burst(0));
	snprintf(path, sizeof(path), WRITERS_CG "/cpu.max");
	w.max_fd = ret ? -1 : open(path, O_RDWR);
	snprintf(path, sizeof(path), WRITERS_CG "/cpu.max.burst");
	w.burst_fd = ret ? -1 : open(path, O_RDWR);
	if (ret || w.max_fd < 0 || w.burst_fd < 0) {
		tap_ok(false, "concurrent writers of quota, period and burst: set-up failed (ret %d, %s)",
		       ret, strerror(errno));
		goto out;
	}
	pthread_barrier_init(&w.start, NULL, NWRITERS + 1);
	pthread_barrier_init(&w.done, NULL, NWRITERS + 1);
	for (i = 0; i < NWRITERS; i++) {
		args[i] = (struct writer_arg){ .w = &w, .which = i };
		pthread_create(&th[nth++], NULL, writer, &args[i]);
	}
	for (r = 1; r <= rounds; r++) {
		long long q = -2, p = -2, b;

		pthread_barrier_wait(&w.start);
		pthread_barrier_wait(&w.done);
		if (fd_read(w.max_fd, buf, sizeof(buf)) || sscanf(buf, "%lld %lld", &q, &p) != 2 ||
		    fd_read(w.burst_fd, buf, sizeof(buf)) || sscanf(buf, "%lld", &b) != 1) {
			unreadable++;
			continue;
		}
		if (b != r_burst(r) && lost_burst++ < 3)
			tap_diag("round %ld: burst %lld, the burst writer's %lld was lost", r, b, r_burst(r));
		if (p != r_period(r) && lost_period++ < 3)
			tap_diag("round %ld: period %lld, the period writer's %lld was lost", r, p, r_period(r));
		if (q != r_quota(r) && q != r_quota_p(r) && lost_quota++ < 3)
			tap_diag("round %ld: quota %lld, neither writer's (%lld, %lld): one was lost", r, q,
				 r_quota(r), r_quota_p(r));
	}
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	tap_diag("writers: %ld rounds in %.1f s: lost %ld bursts, %ld periods, %ld quotas; %ld writes failed (first: %s), %ld reads failed",
		 rounds, (now_usec() - t0) / 1e6, lost_burst, lost_period, lost_quota,
		 atomic_load(&w.failed), w.first_errno ? strerror(w.first_errno) : "none", unreadable);
	tap_ok(!lost_burst && !lost_period && !lost_quota && !atomic_load(&w.failed) && !unreadable,
	       "concurrent writers of quota, period and burst lose none: %ld rounds, %ld bursts, %ld periods, %ld quotas lost, %ld writes and %ld reads failed",
	       rounds, lost_burst, lost_period, lost_quota, atomic_load(&w.failed), unreadable);
	pthread_barrier_destroy(&w.start);
	pthread_barrier_destroy(&w.done);
out:
	if (w.max_fd >= 0)
		close(w.max_fd);
	if (w.burst_fd >= 0)
		close(w.burst_fd);
	if (rmdir(WRITERS_CG) && errno != ENOENT)
		return -errno;
	return 0;
}
