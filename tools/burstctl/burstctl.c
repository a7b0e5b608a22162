// SPDX-License-Identifier: GPL-2.0
/*
 * burstctl: see a group's burst pool, record its CPU demand, and find the
 * burst it needs by replaying that demand through the model of the
 * kernel's refill rule (model/bw-replay.h). docs/burstctl.md has the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "bc.h"

static const char usage[] =
"Usage: burstctl COMMAND [ARG]...\n"
"CPU burst (cgroup v2 cpu.max.burst) for people who have to pick its value.\n"
"\n"
"  status [TARGET]...            limit, burst pool and throttling of groups\n"
"  record TARGET --duration D    sample a group's CPU demand into a trace (CSV)\n"
"  advise TRACE --quota Q        the smallest burst that keeps a trace unthrottled\n"
"  simulate TRACE --quota Q --burst B   the model's period-by-period view\n"
"  check                         can this node burst above quota (kernel, switch, crun)\n"
"\n"
"A TARGET is a cgroup directory or a podman container (name or id).\n"
"`burstctl COMMAND --help` describes each command. Exit status: 0 on\n"
"success, 1 when a command could not do its job, 2 on bad input.\n";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "status", bc_status },
	{ "record", bc_record },
	{ "advise", bc_advise_main },
	{ "simulate", bc_simulate },
	{ "check", bc_check },
};

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fputs(usage, stderr);
		return BC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "burstctl: unknown command '%s' (status, record, advise, simulate, check; see burstctl --help)\n",
		argv[1]);
	return BC_EXIT_USAGE;
}
