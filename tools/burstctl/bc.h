/* SPDX-License-Identifier: GPL-2.0 */
/*
 * burstctl: see a group's burst pool, record its demand, and find the burst
 * it needs (docs/burstctl.md). The host unit tests (test-*.c) link all of
 * it but main() and the commands that only print (status, record,
 * simulate), and check it on hand-made input: traces, a made-up cgroup
 * tree; the binary itself they run.
 */
#ifndef BURSTCTL_BC_H
#define BURSTCTL_BC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>

#include "../../lib/cgroup.h"
#include "../../model/bw-replay.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define BC_EXIT_FAIL	1	/* the command could not do its job */
#define BC_EXIT_USAGE	2	/* bad input: arguments, a trace, a target */

#define BC_NS_PER_US	1000ULL
#define BC_NS_PER_MS	1000000ULL
#define BC_NS_PER_S	1000000000ULL

/* --- values (values.c) ------------------------------------------------------ */

/*
 * A time: a decimal number, fractions allowed, with an optional unit (ns,
 * us, ms, s); a number without one counts in bare_unit nanoseconds. 0, or
 * -EINVAL with a message naming what and s in err.
 */
int bc_parse_time(const char *what, const char *s, uint64_t bare_unit, uint64_t *ns,
		  char *err, size_t len);
/* A whole decimal number in [min, max]. 0 or -EINVAL, err as above. */
int bc_parse_count(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		   char *err, size_t len);
/* A time as it was best written: "1ms", "1s", "17592186044415us". */
const char *bc_time_str(uint64_t ns, char *buf, size_t len);
/* Nanoseconds as milliseconds with one decimal. */
const char *bc_ms(uint64_t ns, char *buf, size_t len);

/* JSON: a string, escaped, with its quotes. */
void bc_json_str(FILE *f, const char *s);

/* --- traces (trace.c) --------------------------------------------------------- */

struct bc_trace {
	struct bwr_sample *s;	/* n intervals, times from the first row */
	size_t n;
	unsigned int cpus;	/* "# cpus:", 0 when the trace does not say */
	bool have_start;	/* "# monotonic_start_us:": the period's phase is known */
	uint64_t start_ns;
	bool have_throttled;	/* the nr_throttled column */
	uint64_t throttled;	/* its sum: periods throttled while recording */
	uint64_t cpu;		/* CPU in all samples */
};

/* What record writes above the rows. */
struct bc_trace_meta {
	const char *target, *path;
	const char *cpu_max, *cpu_max_burst;
	unsigned int cpus;
	uint64_t interval_ns, start_ns;
};

#define BC_TRACE_MAX_ROWS	10000000
#define BC_TRACE_MAX_US		10000000000000ULL	/* 115 days */

/* Parse a trace's text; name is for messages. 0, -EINVAL or -ENOMEM (err set). */
int bc_trace_parse(const char *name, const char *text, struct bc_trace *t, char *err, size_t len);
/* Read and parse a file ("-": standard input). */
int bc_trace_load(const char *path, struct bc_trace *t, char *err, size_t len);
void bc_trace_free(struct bc_trace *t);
/* CPUs to replay with: the trace's, else the most it used at once, at least 1. */
unsigned int bc_trace_cpus(const struct bc_trace *t);
void bc_trace_write_head(FILE *f, const struct bc_trace_meta *m);
void bc_trace_write_row(FILE *f, uint64_t t_us, uint64_t cpu_us, uint64_t throttled);

/* --- the model's settings from the command line (model.c) ------------------- */

/* The options advise and simulate share, as getopt_long() codes. */
enum {
	BC_OPT_QUOTA = 1000,
	BC_OPT_PERIOD,
	BC_OPT_BURST,
	BC_OPT_CPUS,
	BC_OPT_PHASE,
	BC_OPT_PHASES,
	BC_OPT_START,
	BC_OPT_ONSET,
};

struct bc_model {
	struct bwr_config cfg;	/* quota, period, burst, cpus, phase, start, onset */
	const char *quota, *period, *burst, *phase;	/* as given, for messages */
	unsigned int phases;	/* advise: how many phases to take the worst of */
};

void bc_model_init(struct bc_model *m);
/* A shared option (a BC_OPT_ code): 0, or -EINVAL with err naming it and val. */
int bc_model_opt(struct bc_model *m, int code, const char *val, char *err, size_t len);
/*
 * Check the settings against the kernel's limits, together, and fill in
 * the defaults: the period 100 ms, the trace's CPUs, and the trace's own
 * phase (a period when it has none). 0 or -EINVAL with err set.
 */
int bc_model_finish(struct bc_model *m, const struct bc_trace *t, char *err, size_t len);
/*
 * Load the trace at path ("-": standard input) for command cmd, finish m
 * with it and warn when it was recorded under throttling; exits with a
 * message on bad input.
 */
void bc_model_load(const char *cmd, const char *path, struct bc_model *m, struct bc_trace *t);
/* The shared options' lines of --help. */
extern const char bc_model_help[];

/* advise's or simulate's command line. */
struct bc_cmd {
	const char *name;		/* "advise" */
	const char *usage;		/* a printf format for --help, taking bc_model_help */
	const struct option *opts;	/* its own options, up to a zeroed entry */
	void (*opt)(int code, const char *val, void *arg);	/* for codes below BC_OPT_QUOTA */
	void *arg;
};

/*
 * Parse argv: --quota, --period, --cpus, --start and --onset, and the
 * command's own options with BC_OPT_ codes, into m; -h/--help; the rest
 * through cmd->opt. Exits with a message on a bad option. Returns the one
 * TRACE argument.
 */
const char *bc_model_args(const struct bc_cmd *cmd, int argc, char **argv, struct bc_model *m);

/* --- advise (advise.c) --------------------------------------------------------- */

struct bc_goal {
	bool by_delay;			/* --target-p99-delay, else --max-throttled-periods */
	uint64_t max_throttled;
	uint64_t p99_delay;		/* ns */
};

#define BC_ROWS_MAX	16

struct bc_row {
	uint64_t burst;			/* ns, whole microseconds */
	struct bwr_result worst, best;	/* over the phases */
};

struct bc_advice {
	bool met;			/* some burst meets the goal at this quota */
	uint64_t burst;			/* the smallest that does */
	struct bc_row rows[BC_ROWS_MAX];
	size_t nrows;
	bool quota_met;			/* some quota meets it without burst */
	uint64_t quota;			/* the smallest that does */
};

bool bc_goal_met(const struct bc_goal *g, const struct bwr_result *worst);
/*
 * The smallest burst (whole microseconds) meeting the goal at m's quota,
 * the table for the given bursts (none: around the answer), and the
 * smallest quota meeting it with no burst. 0 or bwr_replay()'s error.
 */
int bc_advise(const struct bc_trace *t, const struct bc_model *m, const struct bc_goal *g,
	      const uint64_t *bursts, size_t nbursts, struct bc_advice *a);

/* --- mainline at the same share (mainline.c) ------------------------------------ */

/* The grid's 31 periods and the user's own. */
#define BC_MAINLINE_ROWS	32

/* One setting of a kernel without the series: burst = quota, its best. */
struct bc_mainline_row {
	uint64_t period, quota;		/* ns; the burst is the quota */
	struct bwr_result worst, best;	/* over the phases */
};

struct bc_mainline {
	struct bc_mainline_row rows[BC_MAINLINE_ROWS];	/* by period */
	size_t nrows;
	size_t best;		/* the setting that serves the trace best */
	bool have_own;		/* the user's period is in rows (mainline takes its quota) */
	size_t own;		/* ... at this index: what a Kubernetes pod can have */
};

/*
 * Replay the trace under mainline's rules at m's share (quota / period) for
 * every period of the grid (1 ms to 1 s, ten a decade) and m's own, with
 * burst = quota and no onset, each in the worst of m's phases; pick the one
 * that serves it best: meets the goal, then the least delay p99 and
 * throttled time, then the period nearest m's. 0 or bwr_replay()'s error.
 */
int bc_mainline(const struct bc_trace *t, const struct bc_model *m, const struct bc_goal *g,
		struct bc_mainline *out);

/* --- cgroups (target.c) --------------------------------------------------------- */

struct bc_group {
	char label[256];	/* as the user named it, or its path below the root */
	char dir[4096];
};

/* One reading of a group's files. */
struct bc_reading {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint64_t quota_us;	/* 0: no limit */
	uint64_t period_us;
	bool have_burst;
	uint64_t burst_us;
	bool have_pool;		/* current_bw_usec: kernels with the burst-cfs series */
	uint64_t pool_us;
	struct cg_cpustat st;
};

/* The cgroup2 mount point (from /proc/self/mountinfo). 0 or -errno. */
int bc_cgroup_root(char *out, size_t len);
/*
 * A target: a directory (starting with / or .), a path below root, or a
 * podman container's id (a prefix of it) or name. 0, or -ENOENT/-EINVAL
 * with err set.
 */
int bc_resolve(const char *root, const char *target, struct bc_group *g, char *err, size_t len);
/* Every group under root with a CPU limit, sorted by path. 0 or -errno. */
int bc_limited_groups(const char *root, struct bc_group **groups, size_t *n);
/* Read cpu.max, cpu.max.burst, cpu.stat. 0 or -errno (-ENOENT: gone). */
int bc_read(const char *dir, struct bc_reading *r);
/* The value of a "key value" line of a cpu.stat text. 0 or -ENOENT. */
int bc_stat_key(const char *text, const char *key, uint64_t *v);
/* Online CPUs the group may use: cpuset.cpus.effective, else the machine's. */
unsigned int bc_group_cpus(const char *dir);
/* A cpuset list ("0-3,8"): how many CPUs; 0 when malformed. */
unsigned int bc_cpulist_count(const char *s);

uint64_t bc_now_ns(void);

/* --- check (check.c) ------------------------------------------------------------ */

enum bc_sb { BC_SB_UNKNOWN, BC_SB_NO_EFI, BC_SB_OFF, BC_SB_ON };

/* What burstctl check found on a node. */
struct bc_check {
	char release[256];	/* uname -r, from the kernel's osrelease */
	char version[512];	/* uname -v */
	bool series;		/* the series' switch exists */
	int switch_on;		/* its value, -1 unreadable */
	int onset;		/* sched_cfs_bw_burst_onset_percent, -1 none */
	char revision[32];	/* N of +burstN in uname -v, "" when not stamped */
	char series_hash[65];	/* "series HEX" in uname -v */
	enum bc_sb sb;
	char crun[4096];	/* the crun checked */
	bool crun_found, crun_ours;
	char crun_version[256];	/* the first line of crun --version */
	bool ok;
	char reason[1024];	/* why not ok: one line */
};

/* Read everything under root ("" for /), checking crun (NULL: crun on PATH); sets the verdict. */
void bc_check_read(const char *root, const char *crun, struct bc_check *c);
/* ok and reason from the rest of c: the first thing that keeps bursts off. */
void bc_check_verdict(struct bc_check *c);
/* The revision and the series hash a node kernel stamps in uname -v ("" if none). */
void bc_check_stamp(const char *version, char *rev, size_t rlen, char *hash, size_t hlen);
const char *bc_sb_name(enum bc_sb sb);

/* --- subcommands --------------------------------------------------------------- */

int bc_status(int argc, char **argv);
int bc_record(int argc, char **argv);
int bc_advise_main(int argc, char **argv);
int bc_simulate(int argc, char **argv);
int bc_check(int argc, char **argv);

/* "burstctl CMD: message" on stderr, then exit(status). */
void bc_exit(int status, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define bc_usage_error(...)	bc_exit(BC_EXIT_USAGE, __VA_ARGS__)
#define bc_fail(...)		bc_exit(BC_EXIT_FAIL, __VA_ARGS__)
/* "burstctl CMD: warning: message" on stderr. */
void bc_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Format a message into err; returns ret. */
int bc_err(int ret, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
