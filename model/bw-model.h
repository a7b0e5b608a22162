/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model of a CFS bandwidth pool with burst: the refill rule
 * and the configuration writes of kernel/series, written once. The in-guest
 * kernel suites predict exact pool levels with it, host tools replay demand
 * traces through it, and the benchmark counts the throttles it says were
 * avoidable. docs/kernel.md states the rules; model/test-bw-model.c checks
 * them by hand-computed examples.
 *
 * Times are nanoseconds, as in the kernel's struct cfs_bandwidth; the
 * cgroup files speak microseconds and the write functions convert. The
 * model's pool always includes the quota of every period that has ended:
 * the kernel credits a period at its timer expiry or, while the timer is
 * stopped, at the next runtime request, update or write of the burst
 * switch, and reports the credit in current_bw as if it had been applied.
 * A caller advances the model by the period boundaries that passed
 * (bwm_refill) before it applies a write.
 */
#ifndef BW_MODEL_H
#define BW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BWM_NSEC_PER_USEC	1000ULL
/* RUNTIME_INF: the quota of a group without a limit */
#define BWM_INF			UINT64_MAX
/* max_cfs_runtime: MAX_BW (2^44 - 1) microseconds */
#define BWM_MAX_RUNTIME		(((1ULL << 44) - 1) * BWM_NSEC_PER_USEC)
/* Least quota and least period (min_cfs_quota_period), most period */
#define BWM_MIN_PERIOD		1000000ULL
#define BWM_MAX_PERIOD		1000000000ULL
#define BWM_DEFAULT_PERIOD	100000000ULL
/* The page size of the kernels the model stands for (x86-64): a sysctl write is cut at one page less a byte */
#define BWM_PAGE_SIZE		4096ULL

/* The two sysctls, shared by every group of a kernel. */
struct bwm_sysctls {
	unsigned int burst_enabled;	/* kernel.sched_cfs_bw_burst_enabled */
	unsigned int onset_percent;	/* kernel.sched_cfs_bw_burst_onset_percent */
};

/* One group's bandwidth state (struct cfs_bandwidth). */
struct bwm_group {
	const struct bwm_sysctls *sys;
	uint64_t quota;		/* BWM_INF: no limit */
	uint64_t period;
	uint64_t burst;
	uint64_t pool;		/* runtime left, every ended period credited */
	uint64_t snap;		/* the pool right after the last refill */
	uint64_t nr_bursts;	/* refills after which more than quota was used */
	uint64_t burst_time;	/* what was used beyond quota, summed */
};

void bwm_sysctls_init(struct bwm_sysctls *sys);
/* A new cgroup: no limit, 100 ms period, no burst, empty pool. */
void bwm_group_init(struct bwm_group *g, const struct bwm_sysctls *sys);

/* The cap C = min(quota + burst, max_cfs_runtime); quota with burst off. */
uint64_t bwm_cap(const struct bwm_group *g);
/*
 * One refill for @periods period boundaries: a quota for each, up to the
 * cap. The kernel's running timer refills once per expiry (@periods its
 * overrun, 1 unless it ran late); a stopped timer's periods are credited
 * in one refill at the next runtime request, update or switch write. The
 * pool ends the same however the periods are grouped, but nr_bursts and
 * burst_time count once per refill, from the pool at the refill before: a
 * caller following a running timer refills one period at a time.
 */
void bwm_refill(struct bwm_group *g, uint64_t periods);
/* Take up to @want from the pool; returns what was taken. */
uint64_t bwm_spend(struct bwm_group *g, uint64_t want);
/* What cpu.stat's current_bw reports (0 without a limit). */
uint64_t bwm_available(const struct bwm_group *g);

/*
 * tg_set_cfs_bandwidth(): check the three values together (-EINVAL and no
 * change when one is out of range), then set them and the pool by the
 * update rules. The hierarchy's own constraint (children within their
 * parent) is not modelled: the model is one group.
 */
int bwm_set(struct bwm_group *g, uint64_t period, uint64_t quota, uint64_t burst);
/* The period timer's "period too short" scale-up. */
void bwm_scale_period(struct bwm_group *g);

/*
 * One write(2) of @len bytes to a control file, parsed exactly as the kernel
 * parses it: 0 or -errno, and a refused write changes nothing. A write of
 * no bytes is a successful no-op, as in the kernel.
 */
int bwm_write_cpu_max(struct bwm_group *g, const char *buf, size_t len);
int bwm_write_cpu_max_burst(struct bwm_group *g, const char *buf, size_t len);
int bwm_write_cfs_quota_us(struct bwm_group *g, const char *buf, size_t len);
int bwm_write_cfs_period_us(struct bwm_group *g, const char *buf, size_t len);
int bwm_write_cfs_burst_us(struct bwm_group *g, const char *buf, size_t len);
int bwm_write_burst_enabled(struct bwm_sysctls *sys, const char *buf, size_t len);
/*
 * A write of kernel.sched_cfs_bw_burst_enabled settles every group at once,
 * whatever its period timer is doing: the periods that ended before it were
 * credited under the old value (the caller's bwm_refill up to the write;
 * the kernel credits an expiry due but not yet run under the new one),
 * and a pool above the cap the new value sets is cut to it, the cut not
 * counted as use. Call it for each group after an accepted write.
 */
void bwm_burst_switched(struct bwm_group *g);
int bwm_write_onset_percent(struct bwm_sysctls *sys, const char *buf, size_t len);

/* What the files read back: cpu.max ("max 100000\n"), the others in usec. */
void bwm_read_cpu_max(const struct bwm_group *g, char *buf, size_t len);
long long bwm_quota_us(const struct bwm_group *g);	/* -1 without a limit */
long long bwm_period_us(const struct bwm_group *g);
long long bwm_burst_us(const struct bwm_group *g);

/* The kernel's own number parsers (lib/kstrtox.c), for the writes above. */
int bwm_kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int bwm_kstrtoll(const char *s, unsigned int base, long long *res);

#endif
