// SPDX-License-Identifier: GPL-2.0
/* burstbench's command line: defaults, every option, and bad values. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bb.h"
#include "test.h"

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
	if (!tap_ok(r == BB_PARSE_ERROR && strstr(err, opt) && strstr(err, quoted),
		    "%s %s is refused, naming both", opt, quoted))
		tap_diag("result %d, message: %s", r, err);
}

static void test_defaults(void)
{
	struct bb_opts o;

	tap_ok(parse(&o, ARGS(NULL)) == BB_PARSE_OK && o.threads == 2 && o.batch == 2 &&
	       o.rate == 20 && o.cputime_us == 10000 && o.runtime_s == 10 &&
	       o.warmup_s == 2 && !o.json && !o.cgroup,
	       "no arguments: the documented defaults");
	tap_ok(parse(&o, ARGS("--threads", "8")) == BB_PARSE_OK && o.threads == 8 &&
	       o.batch == 8, "--batch defaults to --threads");
	tap_ok(parse(&o, ARGS("--help")) == BB_PARSE_HELP, "--help asks for the usage text");
	tap_ok(parse(&o, ARGS("-h")) == BB_PARSE_HELP, "-h asks for the usage text");
	tap_ok(strstr(bb_usage, "--cgroup") && strstr(bb_usage, "--warmup") &&
	       strstr(bb_usage, "status 2"),
	       "the usage text names the options and the exit status");
	tap_ok(strstr(bb_usage, "achieved rate") && strstr(bb_usage, "rps_elapsed_s") &&
	       strstr(bb_usage, "at least batch/--runtime"),
	       "the usage text defines rps and the least rate");
}

static void test_options(void)
{
	struct bb_opts o;

	tap_ok(parse(&o, ARGS("--threads", "3", "--batch", "6", "--rate", "9.9", "--cputime",
			      "50000", "--runtime", "15", "--warmup", "0", "--json",
			      "--cgroup", "/sys/fs/cgroup/x")) == BB_PARSE_OK &&
	       o.threads == 3 && o.batch == 6 && o.rate == 9.9 && o.cputime_us == 50000 &&
	       o.runtime_s == 15 && o.warmup_s == 0 && o.json &&
	       !strcmp(o.cgroup, "/sys/fs/cgroup/x"),
	       "every long option is taken");
	tap_ok(parse(&o, ARGS("-t", "4", "-b", "1", "-R", "0.5", "-c", "1", "-r", "2.5", "-w",
			      "1.5", "-j", "-g", "bench/a")) == BB_PARSE_OK &&
	       o.threads == 4 && o.batch == 1 && o.rate == 0.5 && o.cputime_us == 1 &&
	       o.runtime_s == 2.5 && o.warmup_s == 1.5 && o.json && !strcmp(o.cgroup, "bench/a"),
	       "every short option is taken");
	tap_ok(parse(&o, ARGS("--threads=5", "--rate=1e3")) == BB_PARSE_OK && o.threads == 5 &&
	       o.rate == 1000, "--opt=value and an exponent are taken");
	tap_ok(parse(&o, ARGS("--threads", "4096", "--batch", "65536", "--rate", "1e6",
			      "--cputime", "60000000", "--runtime", "86400", "--warmup", "3600")) ==
	       BB_PARSE_OK && o.threads == 4096 && o.batch == 65536 && o.rate == 1e6 &&
	       o.cputime_us == 60000000 && o.runtime_s == 86400 && o.warmup_s == 3600,
	       "the largest values are taken");
	parse(&o, ARGS("--threads", "0"));
	tap_ok(parse(&o, ARGS("--threads", "7")) == BB_PARSE_OK && o.threads == 7,
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

	tap_ok(parse(&o, ARGS("--cgroup", "")) == BB_PARSE_ERROR && strstr(err, "--cgroup"),
	       "--cgroup '' is refused");
	tap_ok(parse(&o, ARGS("--bogus")) == BB_PARSE_ERROR && strstr(err, "--bogus"),
	       "an unknown long option is named");
	tap_ok(parse(&o, ARGS("-x")) == BB_PARSE_ERROR && strstr(err, "-x"),
	       "an unknown short option is named");
	tap_ok(parse(&o, ARGS("--rate")) == BB_PARSE_ERROR && strstr(err, "--rate") &&
	       strstr(err, "value"), "a missing value is named");
	tap_ok(parse(&o, ARGS("--json", "extra")) == BB_PARSE_ERROR && strstr(err, "'extra'"),
	       "a stray argument is named");
}

static void interval(const char *what, unsigned int batch, double rate, uint64_t want)
{
	uint64_t got = bb_interval_ns(batch, rate);

	if (!tap_ok(got == want, "interval: %s = %" PRIu64 " ns", what, want))
		tap_diag("got %" PRIu64, got);
}

static void test_interval(void)
{
	interval("2 at 9.9/s (rounded to nearest)", 2, 9.9, 202020202);
	interval("2 at 0.2/s", 2, 0.2, 10000000000ULL);
	interval("1 at the most rate, 1e6/s", 1, 1e6, 1000);
	interval("1 at 1e12/s, at least", 1, 1e12, 1);
	interval("1 at 1e-10/s fits 64 bits", 1, 1e-10, 10000000000000000000ULL);
	interval("1 at 5e-11/s overflows", 1, 5e-11, 0);
	interval("65536 at 1e-300/s overflows", 65536, 1e-300, 0);
	interval("rate 0", 1, 0, 0);
	interval("a negative rate", 1, -1, 0);
}

/* Refused, the message naming --rate, the value as typed and the least rate. */
static void too_low(const char *const *args, const char *quoted, const char *least,
		    const char *what)
{
	struct bb_opts o;
	char limit[64];
	enum bb_parse r;

	r = parse(&o, args);
	snprintf(limit, sizeof(limit), "at least %s", least);
	if (!tap_ok(r == BB_PARSE_ERROR && !strncmp(err, "--rate: ", 8) && strstr(err, quoted) &&
		    strstr(err, limit), "%s: refused, naming %s and %s", what, quoted, limit))
		tap_diag("result %d, message: %s", r, err);
}

/* A batch must come within the run: the rate is at least batch / runtime. */
static void test_rate_bound(void)
{
	struct bb_opts o;
	const char *at;
	char least[32];

	tap_ok(parse(&o, ARGS("--rate", "0.2", "--runtime", "10")) == BB_PARSE_OK && o.rate == 0.2,
	       "--rate 0.2 with batches of 2 in 10 s: just at the limit, taken");
	too_low(ARGS("--rate", "0.1999999", "--runtime", "10"), "'0.1999999'", "0.2",
		"--rate 0.1999999 with batches of 2 in 10 s, just below");
	too_low(ARGS("--rate", "1e-300"), "'1e-300'", "0.2",
		"--rate 1e-300, whose interval overflows 64 bits");
	too_low(ARGS("--rate", "0.2", "--batch", "3"), "'0.2'", "0.3",
		"a --batch after --rate raises the limit");
	too_low(ARGS("--runtime", "0.05"), "'20'", "40",
		"the default rate with a 0.05 s run (named by its value)");
	tap_ok(parse(&o, ARGS("--batch", "65536", "--runtime", "0.001")) == BB_PARSE_ERROR &&
	       strstr(err, "--runtime: '0.001'") && strstr(err, "1000000"),
	       "a run too short for any rate up to the most blames --runtime");

	/* 3 in 7 s: 0.428571..., which %g alone would print below the limit. */
	too_low(ARGS("--batch", "3", "--runtime", "7", "--rate", "0.4"), "'0.4'", "0.428572",
		"batches of 3 in 7 s: the limit is rounded up, not down");
	at = strstr(err, "at least ");
	snprintf(least, sizeof(least), "%s", at ? at + 9 : "?");
	tap_ok(parse(&o, ARGS("--batch", "3", "--runtime", "7", "--rate", least)) == BB_PARSE_OK,
	       "the limit the message names (%s) is taken when typed back in", least);
	tap_ok(parse(&o, ARGS("--batch", "3", "--runtime", "7", "--rate", "0.428571")) ==
	       BB_PARSE_ERROR, "one in its last digit below it (0.428571) is refused");
}

/*
 * Request sizes. Pareto of shape a with mean m: scale m (a - 1) / a, and
 * P(X > x) = (scale / x)^a; capped at c its mean is
 * m - scale^a c^(1 - a) / (a - 1): for a = 1.5, m = 10 ms, c = 1 s,
 * 10 - 2 x (10/3)^1.5 / sqrt(1000) = 9.615 ms; one draw in a hundred is
 * above scale x 100^(1/a) = 71.8 ms.
 */
static void test_sizes(void)
{
	struct bb_opts o, again;
	uint64_t k, above = 0, n = 1000000, same = 0;
	double mean;

	tap_ok(parse(&o, ARGS("--tail", "1.5", "--cputime", "10000", "--tail-max", "1000000", "--seed", "7",
			      "--large", "50:400000", "--latencies")) == BB_PARSE_OK &&
	       o.tail_alpha == 1.5 && o.tail_max_us == 1000000 && o.seed == 7 && o.large_every == 50 &&
	       o.large_us == 400000 && o.latencies,
	       "--tail, --tail-max, --seed, --large and --latencies are taken");
	o.large_every = 0;
	mean = bb_mean_request_us(&o, 0, n);
	for (k = 0; k < n; k++)
		above += bb_request_us(&o, k) > 71800;
	tap_ok(mean > 9615 * 0.98 && mean < 9615 * 1.02, "--tail 1.5: the capped mean is 9.615 ms within 2%% (%.0f us)",
	       mean);
	tap_ok(above > n / 100 * 0.95 && above < n / 100 * 1.05,
	       "--tail 1.5: 1%% of draws above 71.8 ms, within 5%% of it (%llu of %llu)",
	       (unsigned long long)above, (unsigned long long)n);
	parse(&again, ARGS("--tail", "1.5", "--cputime", "10000", "--tail-max", "1000000", "--seed", "7"));
	for (k = 0; k < 1000; k++)
		same += bb_request_us(&o, k) == bb_request_us(&again, k);
	tap_ok(same == 1000, "--tail: the same options draw the same sizes, request by request");
	again.seed = 8;
	for (same = 0, k = 0; k < 1000; k++)
		same += bb_request_us(&o, k) == bb_request_us(&again, k);
	tap_ok(same < 100, "--tail: another --seed draws other sizes (%llu of 1000 equal)", (unsigned long long)same);
	for (k = 0; k < n && bb_request_us(&o, k) < 1000000; k++)
		;
	tap_ok(k < n && bb_request_us(&o, k) == 1000000, "--tail: the cap is drawn, never exceeded");

	parse(&o, ARGS("--large", "4:30000", "--cputime", "2000", "--threads", "2"));
	tap_ok(bb_request_us(&o, 0) == 2000 && bb_request_us(&o, 5) == 2000 && bb_request_us(&o, 6) == 30000 &&
	       bb_request_us(&o, 7) == 30000 && bb_request_us(&o, 8) == 2000 && bb_request_us(&o, 14) == 30000,
	       "--large 4:30000 with batches of 2: batches 3, 7, ... (requests 6-7, 14-15) are large");
	tap_ok(parse(&o, ARGS("--tail", "1.5", "--cputime", "2000")) == BB_PARSE_OK && o.tail_max_us == 200000,
	       "--tail-max defaults to 100 x --cputime");

	bad("--tail", "1");
	bad("--tail", "0.5");
	bad("--tail", "abc");
	bad("--tail-max", "0");
	bad("--seed", "-1");
	bad("--large", "1:5000");
	bad("--large", "10");
	bad("--large", "10:0");
	bad("--large", "x:100");
	tap_ok(parse(&o, ARGS("--tail-max", "5000")) == BB_PARSE_ERROR && strstr(err, "goes with --tail"),
	       "--tail-max without --tail is refused");
	tap_ok(parse(&o, ARGS("--tail", "2", "--cputime", "5000", "--tail-max", "4000")) == BB_PARSE_ERROR &&
	       strstr(err, "--tail-max: '4000'") && strstr(err, "5000"),
	       "--tail-max below --cputime is refused, naming both");
}

void test_args(void)
{
	test_defaults();
	test_options();
	test_bad();
	test_interval();
	test_rate_bound();
	test_sizes();
}
