// SPDX-License-Identifier: GPL-2.0
/* burstbench's command line: defaults, every option, and bad values. */
#include <stdio.h>
#include <string.h>

#include "bb.h"
#include "check.h"

#define MAXARGS 16

static char err[256];

/* Parse a NULL-terminated list of arguments after "burstbench". */
static enum bb_parse parse(struct bb_opts *o, const char *const *args)
{
	char *argv[MAXARGS + 2] = { "burstbench" };
	int argc = 1;

	while (*args && argc <= MAXARGS)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	return bb_parse_args(argc, argv, o, err, sizeof(err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A bad value is refused with a message naming the option and the value. */
static void bad(const char *opt, const char *value)
{
	struct bb_opts o;
	char quoted[64];
	enum bb_parse r;

	r = parse(&o, ARGS(opt, value));
	snprintf(quoted, sizeof(quoted), "'%s'", value);
	if (!check(r == BB_PARSE_ERROR && strstr(err, opt) && strstr(err, quoted),
		   "%s %s is refused, naming both", opt, quoted))
		check_diag("result %d, message: %s", r, err);
}

static void test_defaults(void)
{
	struct bb_opts o;

	check(parse(&o, ARGS(NULL)) == BB_PARSE_OK && o.threads == 2 && o.batch == 2 &&
	      o.rate == 20 && o.cputime_us == 10000 && o.runtime_s == 10 &&
	      o.warmup_s == 2 && !o.json && !o.cgroup,
	      "no arguments: the documented defaults");
	check(parse(&o, ARGS("--threads", "8")) == BB_PARSE_OK && o.threads == 8 &&
	      o.batch == 8, "--batch defaults to --threads");
	check(parse(&o, ARGS("--help")) == BB_PARSE_HELP, "--help asks for the usage text");
	check(parse(&o, ARGS("-h")) == BB_PARSE_HELP, "-h asks for the usage text");
	check(strstr(bb_usage, "--cgroup") && strstr(bb_usage, "--warmup") &&
	      strstr(bb_usage, "status 2"), "the usage text names the options and the exit status");
}

static void test_options(void)
{
	struct bb_opts o;

	check(parse(&o, ARGS("--threads", "3", "--batch", "6", "--rate", "9.9", "--cputime",
			     "50000", "--runtime", "15", "--warmup", "0", "--json",
			     "--cgroup", "/sys/fs/cgroup/x")) == BB_PARSE_OK &&
	      o.threads == 3 && o.batch == 6 && o.rate == 9.9 && o.cputime_us == 50000 &&
	      o.runtime_s == 15 && o.warmup_s == 0 && o.json &&
	      !strcmp(o.cgroup, "/sys/fs/cgroup/x"),
	      "every long option is taken");
	check(parse(&o, ARGS("-t", "4", "-b", "1", "-R", "0.5", "-c", "1", "-r", "0.25", "-w",
			     "1.5", "-j", "-g", "bench/a")) == BB_PARSE_OK &&
	      o.threads == 4 && o.batch == 1 && o.rate == 0.5 && o.cputime_us == 1 &&
	      o.runtime_s == 0.25 && o.warmup_s == 1.5 && o.json && !strcmp(o.cgroup, "bench/a"),
	      "every short option is taken");
	check(parse(&o, ARGS("--threads=5", "--rate=1e3")) == BB_PARSE_OK && o.threads == 5 &&
	      o.rate == 1000, "--opt=value and an exponent are taken");
	check(parse(&o, ARGS("--threads", "4096", "--cputime", "60000000")) == BB_PARSE_OK &&
	      o.threads == 4096 && o.cputime_us == 60000000, "the largest values are taken");
	parse(&o, ARGS("--threads", "0"));
	check(parse(&o, ARGS("--threads", "7")) == BB_PARSE_OK && o.threads == 7,
	      "parsing again after an error starts over");
}

static void test_bad(void)
{
	struct bb_opts o;

	bad("--threads", "0");
	bad("--threads", "4097");
	bad("--threads", "-1");
	bad("--threads", "2x");
	bad("--threads", " 2");
	bad("--threads", "");
	bad("--batch", "0");
	bad("--rate", "0");
	bad("--rate", "-5");
	bad("--rate", "abc");
	bad("--rate", "nan");
	bad("--rate", "inf");
	bad("--rate", "0x10");
	bad("--rate", "2000000");
	bad("--cputime", "0");
	bad("--cputime", "1.5");
	bad("--cputime", "60000001");
	bad("--cputime", "99999999999999999999999");
	bad("--runtime", "0");
	bad("--runtime", "1s");
	bad("--warmup", "-1");

	check(parse(&o, ARGS("--cgroup", "")) == BB_PARSE_ERROR && strstr(err, "--cgroup"),
	      "--cgroup '' is refused");
	check(parse(&o, ARGS("--bogus")) == BB_PARSE_ERROR && strstr(err, "--bogus"),
	      "an unknown long option is named");
	check(parse(&o, ARGS("-x")) == BB_PARSE_ERROR && strstr(err, "-x"),
	      "an unknown short option is named");
	check(parse(&o, ARGS("--rate")) == BB_PARSE_ERROR && strstr(err, "--rate") &&
	      strstr(err, "value"), "a missing value is named");
	check(parse(&o, ARGS("--json", "extra")) == BB_PARSE_ERROR && strstr(err, "'extra'"),
	      "a stray argument is named");
}

void test_args(void)
{
	test_defaults();
	test_options();
	test_bad();
}
