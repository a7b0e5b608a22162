/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the kernel files the tools report: a cgroup's cpu.stat,
 * cpu.max and cpu.max.burst, /proc/stat, /proc/self/cgroup and mountinfo;
 * no I/O here (lib/cgfile.c reads them). Shared by burstbench and
 * costbench (bench/) and burstctl (tools/burstctl/).
 */
#ifndef BURSTCFS_CGROUP_H
#define BURSTCFS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cg_stat {
	CG_USAGE_USEC,
	CG_NR_PERIODS,
	CG_NR_THROTTLED,
	CG_THROTTLED_USEC,
	CG_NR_BURSTS,
	CG_BURST_USEC,
	CG_NSTAT,
};
extern const char *const cg_stat_names[CG_NSTAT];

struct cg_cpustat {
	uint64_t v[CG_NSTAT];
	bool have[CG_NSTAT];
};

/* The guest's CPU time by kind, the first line of /proc/stat (costbench). */
enum cg_procstat_kind {
	CG_CPU_USER,
	CG_CPU_NICE,
	CG_CPU_SYSTEM,
	CG_CPU_IDLE,
	CG_CPU_IOWAIT,
	CG_CPU_IRQ,
	CG_CPU_SOFTIRQ,
	CG_CPU_STEAL,
	CG_NPROCSTAT,
};
extern const char *const cg_procstat_names[CG_NPROCSTAT];

struct cg_procstat {
	uint64_t v[CG_NPROCSTAT];	/* clock ticks, summed over CPUs */
};

/*
 * The "cpu " line of a /proc/stat text: its first eight numbers (guest time
 * is already in user and nice). 0, or -EINVAL without such a line.
 */
int cg_parse_procstat(const char *text, struct cg_procstat *st);

/* Fills the keys it finds in a cpu.stat text; returns how many. */
int cg_parse_cpustat(const char *text, struct cg_cpustat *st);
/* after - before, for the keys both have. */
void cg_cpustat_delta(const struct cg_cpustat *before, const struct cg_cpustat *after,
		      struct cg_cpustat *delta);
/* "QUOTA PERIOD" or "max PERIOD"; quota 0 means no limit. 0 or -EINVAL. */
int cg_parse_cpumax(const char *text, uint64_t *quota, uint64_t *period);
/* A single decimal number (cpu.max.burst). 0 or -EINVAL. */
int cg_parse_u64(const char *text, uint64_t *v);
/* The cgroup2 path from a /proc/PID/cgroup text ("0::/a/b"). 0 or -ENOENT. */
int cg_own(const char *proc_cgroup, char *out, size_t len);
/*
 * The directory of cgroup path cg (as /proc/self/cgroup shows it) given a
 * /proc/self/mountinfo text: the cgroup2 mount point plus cg relative to
 * the mount's root. 0, -ENOENT (no cgroup2 mount) or -ENAMETOOLONG.
 */
int cg_dir(const char *mountinfo, const char *cg, char *out, size_t len);

#endif
