// SPDX-License-Identifier: GPL-2.0
/* The limit and the replay's settings advise and simulate take. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

#define DEFAULT_PHASES	20
#define MAX_PHASES	1000

const char bc_model_help[] =
"  --quota Q          the quota per period (microseconds, or with a unit: 10ms)\n"
"  --period P         the period (default 100ms; the kernel takes 1ms to 1s)\n"
"  --cpus N           CPUs the group can use at once (default: the trace's)\n"
"  --start fresh|full the pool at the trace's start: a new limit's one quota\n"
"                     (plus the onset share; the default), or full\n"
"  --onset PCT        kernel.sched_cfs_bw_burst_onset_percent (default 0)\n";

void bc_model_init(struct bc_model *m)
{
	memset(m, 0, sizeof(*m));
	m->cfg.period = 100 * BC_NS_PER_MS;
	m->phases = DEFAULT_PHASES;
}

static int count_opt(const char *opt, const char *val, uint64_t min, uint64_t max,
		     unsigned int *out, char *err, size_t len)
{
	uint64_t v;

	if (bc_parse_count(opt, val, min, max, &v, err, len))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static int time_opt(const char *opt, const char *val, uint64_t *ns, const char **as_given,
		    char *err, size_t len)
{
	*as_given = val;
	return bc_parse_time(opt, val, BC_NS_PER_US, ns, err, len);
}

int bc_model_opt(struct bc_model *m, int code, const char *val, char *err, size_t len)
{
	struct bwr_config *c = &m->cfg;

	switch (code) {
	case BC_OPT_QUOTA:
		return time_opt("--quota", val, &c->quota, &m->quota, err, len);
	case BC_OPT_PERIOD:
		return time_opt("--period", val, &c->period, &m->period, err, len);
	case BC_OPT_BURST:
		return time_opt("--burst", val, &c->burst, &m->burst, err, len);
	case BC_OPT_PHASE:
		return time_opt("--phase", val, &c->phase, &m->phase, err, len);
	case BC_OPT_CPUS:
		return count_opt("--cpus", val, 1, 4096, &c->cpus, err, len);
	case BC_OPT_PHASES:
		return count_opt("--phases", val, 1, MAX_PHASES, &m->phases, err, len);
	case BC_OPT_ONSET:
		return count_opt("--onset", val, 0, 100, &c->onset_percent, err, len);
	case BC_OPT_START:
		if (strcmp(val, "fresh") && strcmp(val, "full"))
			return bc_err(-EINVAL, err, len, "--start '%s': expected fresh or full", val);
		c->start_full = !strcmp(val, "full");
		return 0;
	}
	return bc_err(-EINVAL, err, len, "unknown option %d", code);
}

/* A value the cgroup files take: whole microseconds in [min, max]. */
static int in_range(const char *opt, const char *given, uint64_t ns, uint64_t min, uint64_t max,
		    const char *why, char *err, size_t len)
{
	char lo[32], hi[32];

	if (ns % BC_NS_PER_US)
		return bc_err(-EINVAL, err, len, "%s '%s': the kernel takes whole microseconds", opt, given);
	if (ns < min || ns > max)
		return bc_err(-EINVAL, err, len, "%s '%s': must be between %s and %s (%s)", opt, given,
			    bc_time_str(min, lo, sizeof(lo)), bc_time_str(max, hi, sizeof(hi)), why);
	return 0;
}

int bc_model_finish(struct bc_model *m, const struct bc_trace *t, char *err, size_t len)
{
	struct bwr_config *c = &m->cfg;
	char p[32];

	if (!m->quota)
		return bc_err(-EINVAL, err, len, "--quota is required (microseconds, or with a unit: 10ms)");
	if (in_range("--quota", m->quota, c->quota, BWM_MIN_PERIOD, BWM_MAX_RUNTIME,
		     "the kernel's limits", err, len))
		return -EINVAL;
	if (m->period && in_range("--period", m->period, c->period, BWM_MIN_PERIOD, BWM_MAX_PERIOD,
				  "the kernel's limits", err, len))
		return -EINVAL;
	if (m->burst && in_range("--burst", m->burst, c->burst, 0, BWM_MAX_RUNTIME,
				 "the kernel's limits", err, len))
		return -EINVAL;
	if (m->phase && (!c->phase || c->phase > c->period))
		return bc_err(-EINVAL, err, len, "--phase '%s': must be more than 0 and at most the period (%s)",
			    m->phase, bc_time_str(c->period, p, sizeof(p)));
	if (!m->phase)
		c->phase = t->have_start ? bwr_phase_at(t->start_ns, c->period) : c->period;
	if (!c->cpus)
		c->cpus = bc_trace_cpus(t);
	return 0;
}

void bc_model_load(const char *cmd, const char *path, struct bc_model *m, struct bc_trace *t)
{
	char err[512];
	int ret;

	ret = bc_trace_load(path, t, err, sizeof(err));
	if (ret == -ENOMEM)
		bc_fail(cmd, "%s", err);
	if (ret)
		bc_usage_error(cmd, "%s", err);
	if (bc_model_finish(m, t, err, sizeof(err)))
		bc_usage_error(cmd, "%s", err);
	if (t->throttled)
		bc_warn(cmd, "%s: the group was throttled in %llu periods while it was recorded: the trace shows what it got, not what it wanted, so the model sees less demand than there was",
			path, (unsigned long long)t->throttled);
}

static const struct option model_opts[] = {
	{ "quota", required_argument, NULL, BC_OPT_QUOTA },
	{ "period", required_argument, NULL, BC_OPT_PERIOD },
	{ "cpus", required_argument, NULL, BC_OPT_CPUS },
	{ "start", required_argument, NULL, BC_OPT_START },
	{ "onset", required_argument, NULL, BC_OPT_ONSET },
	{ "help", no_argument, NULL, 'h' },
};

#define N_MODEL_OPTS	(ARRAY_SIZE(model_opts))
#define MAX_OPTS	32

const char *bc_model_args(const struct bc_cmd *cmd, int argc, char **argv, struct bc_model *m)
{
	struct option opts[MAX_OPTS] = { 0 };
	size_t n = N_MODEL_OPTS;
	char err[256];
	int c;

	memcpy(opts, model_opts, sizeof(model_opts));
	while (cmd->opts[n - N_MODEL_OPTS].name && n < MAX_OPTS - 1) {
		opts[n] = cmd->opts[n - N_MODEL_OPTS];
		n++;
	}
	bc_model_init(m);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf(cmd->usage, bc_model_help);
			exit(0);
		} else if (c >= BC_OPT_QUOTA && c <= BC_OPT_ONSET) {
			if (bc_model_opt(m, c, optarg, err, sizeof(err)))
				bc_usage_error(cmd->name, "%s", err);
		} else if (c > 0 && c < BC_OPT_QUOTA && c != '?') {
			cmd->opt(c, optarg, cmd->arg);
		} else {
			bc_usage_error(cmd->name, "see burstctl %s --help", cmd->name);
		}
	}
	if (optind != argc - 1)
		bc_usage_error(cmd->name, "expected one TRACE (a file, or - for standard input)");
	return argv[optind];
}
