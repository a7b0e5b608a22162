/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup and sysctl helpers for the in-guest suites. */
#ifndef BURSTCFS_CG_H
#define BURSTCFS_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CG2_ROOT "/sys/fs/cgroup"

/* Which semantics the kernel under test must show (harness: burstcfs.expect=). */
bool expect_patched(void);

/* All return 0 or -errno; a file is relative to the cgroup directory. */
int cg_write(const char *cg, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cg_read(const char *cg, const char *file, char *buf, size_t len);
int cg_create(const char *cg);
/* Move every task back to the root, then remove the (leaf) cgroup. */
int cg_destroy(const char *cg, const char *root);
/* A "key value" line of a flat-keyed file such as cpu.stat; -1 when absent. */
long long cg_key(const char *cg, const char *file, const char *key);
/* The first integer of a file; LLONG_MIN when it cannot be read. */
long long cg_num(const char *cg, const char *file);
/* A file's text without its trailing newline, or "<errno text>"; returns @buf. */
const char *cg_text(const char *cg, const char *file, char *buf, size_t len);

int sysctl_write(const char *name, const char *value);
long long sysctl_num(const char *name);

/* Fork @procs busy-loop processes into @cg (via @procs_file); 0 or -errno. */
int hog_start(const char *cg, const char *procs_file, int procs);
/*
 * Fork @procs processes into @cg that each spin @on_us of CPU time, then
 * sleep @off_us, over and over, the i-th pinned to CPU i mod the CPUs: with
 * one per CPU, each sleep empties its runqueue of the group, which hands
 * its runtime back. Stopped by hog_stop(). 0 or -errno.
 */
int blinker_start(const char *cg, const char *procs_file, int procs, long long on_us,
		  long long off_us);
/* Kill and reap every process hog_start() and blinker_start() forked. */
void hog_stop(void);

long long now_usec(void);
/* Spin for @usec of the calling thread's CPU time. */
void spin_cpu_usec(long long usec);
void sleep_usec(long long usec);

/* Online CPUs: how many hogs keep every vCPU busy. */
int cpu_count(void);
/*
 * Take the cpu controller off v2 and mount it, with cpuacct, as a v1
 * hierarchy at @dir (made if missing); 0 or -errno.
 */
int cg_mount_v1_cpu(const char *dir);
/* A cgroup outside the v2 mount belongs to the legacy (v1) hierarchy. */
bool cg_is_v1(const char *cg);
/* Like sysctl_num but 0 or -errno, so a missing sysctl shows as -ENOENT. */
int sysctl_get(const char *name, long long *val);
/* Put the burst sysctls back to their defaults where the kernel has them. */
void burst_sysctls_default(void);

#define SYSCTL_BURST_ENABLED	"sched_cfs_bw_burst_enabled"
#define SYSCTL_BURST_ONSET	"sched_cfs_bw_burst_onset_percent"

/* One reading of a group's bandwidth counters, all in microseconds. */
struct bw_sample {
	long long usage;	/* CPU the group used (v2 usage_usec, v1 cpuacct.usage) */
	long long nr_periods;
	long long nr_throttled;
	long long nr_bursts;
	long long burst_usec;
	long long current_bw;	/* pool level; -1 when the kernel does not report it */
};

/* Read cpu.stat (and cpuacct.usage on v1) of @cg; 0 or -errno. */
int bw_sample(const char *cg, struct bw_sample *s);

/* CPU a group got from the start of a run until its first throttle. */
struct bw_burst {
	long long lo;		/* usage at the last sample before nr_throttled rose */
	long long hi;		/* usage at the first sample after it rose */
	long long wall;		/* usec from the start to that first sample after */
	long long max_bw;	/* highest current_bw seen, -1 when absent */
	int samples;
	long long max_gap;	/* longest time between two samples: host stalls show here */
	bool plateau;		/* the last two samples before agreed: already throttled */
	/* Period boundaries (nr_periods of the watched group) before lo's sample. */
	long long refills;
	/* The first period boundary seen (nr_periods rose), -1 when none: */
	long long edge_wall;	/* usec from the start to the sample that saw it */
	long long edge_usage;	/* usage at the sample before it */
};

/*
 * Start @hogs busy loops in @cg (0: they already run) and sample every
 * millisecond until the nr_throttled of @watch (NULL: @cg) rises, which
 * the period timer does at the end of the first period with a throttle.
 * Usage is @cg's. The hogs keep running. 0, -ETIMEDOUT or -errno.
 */
int bw_until_throttled(const char *cg, const char *watch, int hogs,
		       long long timeout_usec, struct bw_burst *b);
/*
 * Write @cg's quota (and period) back unchanged. The kernel then clears
 * every CPU's runtime debt and adds one quota to the pool: a known
 * state after the pool was spent, whatever the guest's stalls left.
 */
int bw_reset(const char *cg);
/* Run @hogs in @cg until it is throttled, then stop them: the pool is spent. */
int bw_drain(const char *cg, int hogs, long long timeout_usec);
/*
 * Spend @cg's pool (then bw_reset() it: about one quota, no debt), leave
 * it idle for @idle_usec, then measure what @hogs busy loops get until
 * the first throttle. The hogs keep running on
 * success. A run in which the poller saw a gap over @stall_usec (the
 * whole guest stalled, see tests.h) is done again, up to 3 runs in all.
 */
int bw_burst_after_idle(const char *cg, int hogs, long long idle_usec,
			long long timeout_usec, long long stall_usec, struct bw_burst *b);
/*
 * Sleep at least @usec, then on until the last @tail_usec passed without
 * the guest stalling for over @stall_usec, but no more than @max_extra_usec
 * longer. Returns how long it slept.
 */
long long sleep_settled(long long usec, long long tail_usec, long long stall_usec,
			long long max_extra_usec);
/* Create v2 group @cg with cpu.max "@quota @period", then cpu.max.burst @burst. */
int bw_group(const char *cg, long long quota, long long period, long long burst);

#endif
