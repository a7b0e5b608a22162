// SPDX-License-Identifier: GPL-2.0
/* burstbench's command line. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bb.h"

#define MAX_THREADS	4096
#define MAX_BATCH	65536
#define MAX_RATE	1e6		/* requests per second */
#define MAX_CPUTIME_US	60000000ULL	/* one minute per request */
#define MAX_RUNTIME_S	86400.0
#define MAX_WARMUP_S	3600.0
#define NSEC_PER_SEC	1e9

const char bb_usage[] =
"Usage: burstbench [OPTION]...\n"
"A bursty request load: one message thread wakes batches of worker threads\n"
"at a fixed request rate; each request spins a fixed CPU time. Reports the\n"
"latency each request saw beyond its own CPU time (completion - scheduled\n"
"start - CPU time: queueing and throttling delay) and the cgroup's cpu.stat\n"
"deltas over the run.\n"
"\n"
"  -t, --threads N     worker threads (default 2)\n"
"  -b, --batch N       requests per wake-up (default: --threads)\n"
"  -R, --rate RPS      requests per second; batches come every batch/RPS s\n"
"                      (default 20); at least batch/--runtime, so that a batch\n"
"                      comes within the run\n"
"  -c, --cputime USEC  CPU time per request, microseconds (default 10000)\n"
"  -r, --runtime SEC   measured run time, seconds (default 10)\n"
"  -w, --warmup SEC    unmeasured run before it, seconds (default 2)\n"
"      --tail ALPHA    request sizes with a heavy tail: Pareto of shape ALPHA\n"
"                      (above 1) whose mean is --cputime before the cap\n"
"      --tail-max USEC the largest request --tail draws (default 100 x --cputime)\n"
"      --seed N        which sizes --tail draws (default 1): the same options\n"
"                      give the same sizes, request by request\n"
"      --large N:USEC  every Nth batch's requests spin USEC instead: rare large\n"
"                      bursts, such as a JVM's start or a GC pause\n"
"      --latencies     add every measured request's latency, in the order the\n"
"                      requests were due, to the JSON (\"latencies_us\", integers;\n"
"                      -1 for one unfinished), with each one's CPU time\n"
"                      (\"sizes_us\") and the time between batches\n"
"                      (\"batch_interval_ns\"): the run's own demand\n"
"  -g, --cgroup DIR    cgroup whose cpu.stat to report: a directory, absolute\n"
"                      or relative to the cgroup2 mount (default: our own)\n"
"  -j, --json          one JSON object on stdout instead of the table\n"
"  -h, --help          this text\n"
"\n"
"The achieved rate (\"rps\" in the JSON; \"rate\" is the requested one) counts\n"
"the measured requests that completed, per second from when the first\n"
"measured batch was due to when the last of them completed or the measured\n"
"window ended, whichever is later (\"rps_elapsed_s\"): a run that keeps up\n"
"achieves the requested rate, one that falls behind the rate it served.\n"
"\n"
"Bad arguments exit with status 2.\n";

#define MAX_TAIL_ALPHA	100.0
#define MAX_LARGE_EVERY	1000000000ULL

enum { OPT_TAIL = 256, OPT_TAIL_MAX, OPT_SEED, OPT_LARGE, OPT_LATENCIES };

static const struct option longopts[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "batch", required_argument, NULL, 'b' },
	{ "rate", required_argument, NULL, 'R' },
	{ "cputime", required_argument, NULL, 'c' },
	{ "runtime", required_argument, NULL, 'r' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "cgroup", required_argument, NULL, 'g' },
	{ "json", no_argument, NULL, 'j' },
	{ "tail", required_argument, NULL, OPT_TAIL },
	{ "tail-max", required_argument, NULL, OPT_TAIL_MAX },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "large", required_argument, NULL, OPT_LARGE },
	{ "latencies", no_argument, NULL, OPT_LATENCIES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void bb_opts_default(struct bb_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = 2;
	o->rate = 20;
	o->cputime_us = 10000;
	o->runtime_s = 10;
	o->warmup_s = 2;
	o->seed = 1;
}

/* splitmix64: a well-mixed 64-bit value of x, so that draw k needs no state. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t bb_request_us(const struct bb_opts *o, uint64_t k)
{
	double u, xm, v;

	if (o->large_every && k / o->batch % o->large_every == o->large_every - 1)
		return o->large_us;
	if (!(o->tail_alpha > 0))
		return o->cputime_us;
	/* u in (0, 1]: 53 random bits, never 0 */
	u = ((mix64(o->seed * 0x100000001b3ULL ^ mix64(k)) >> 11) + 1) * 0x1p-53;
	xm = o->cputime_us * (o->tail_alpha - 1) / o->tail_alpha;
	v = xm / pow(u, 1 / o->tail_alpha);
	if (!(v < (double)o->tail_max_us))
		return o->tail_max_us;
	return v < 1 ? 1 : (uint64_t)(v + 0.5);
}

double bb_mean_request_us(const struct bb_opts *o, uint64_t from, uint64_t n)
{
	double sum = 0;
	uint64_t k;

	for (k = from; k < from + n; k++)
		sum += bb_request_us(o, k);
	return n ? sum / n : 0;
}

static enum bb_parse fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return BB_PARSE_ERROR;
}

/* A plain decimal integer in [min, max]: no sign, no spaces, no suffix. */
static bool parse_uint(const char *s, unsigned long long min, unsigned long long max,
		       unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* A finite decimal number in (min, max] (or [min, max] when min_ok). */
static bool parse_num(const char *s, double min, bool min_ok, double max, double *out)
{
	double v;
	char *end;

	if (((*s < '0' || *s > '9') && *s != '.') || strpbrk(s, "xX"))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v > max || v < min || (v == min && !min_ok))
		return false;
	*out = v;
	return true;
}

/* --large N:USEC */
static int parse_large(const char *arg, struct bb_opts *o)
{
	unsigned long long every, us;
	char n[32];
	const char *colon = strchr(arg, ':');

	if (!colon || (size_t)(colon - arg) >= sizeof(n))
		return -1;
	memcpy(n, arg, colon - arg);
	n[colon - arg] = '\0';
	if (!parse_uint(n, 2, MAX_LARGE_EVERY, &every) || !parse_uint(colon + 1, 1, MAX_CPUTIME_US, &us))
		return -1;
	o->large_every = every;
	o->large_us = us;
	return 0;
}

uint64_t bb_interval_ns(unsigned int batch, double rate)
{
	double ns;

	if (!(rate > 0))
		return 0;
	ns = batch / rate * NSEC_PER_SEC + 0.5;
	/* Converting a double of 2^64 or more to uint64_t is undefined. */
	if (!(ns < 18446744073709551616.0))
		return 0;
	return ns < 1 ? 1 : (uint64_t)ns;
}

/*
 * Every batch must come within the run: a longer interval would stretch
 * the measured window beyond --runtime (it holds one batch at the least),
 * and one long enough would overflow the nanosecond clock arithmetic.
 */
static bool interval_fits(unsigned int batch, double rate, double runtime_s)
{
	uint64_t interval = bb_interval_ns(batch, rate);

	return interval && interval <= (uint64_t)(runtime_s * NSEC_PER_SEC + 0.5);
}

/*
 * The least rate that fits, as %g prints it (6 significant digits), found
 * by trying the printed text itself: a limit the message names must be
 * accepted when typed back in, and the plain quotient printed may round
 * below the bound (3 per 7 s prints as 0.428571).
 */
static void least_rate(unsigned int batch, double runtime_s, char *buf, size_t len)
{
	double v = batch / runtime_s;
	double unit = pow(10, floor(log10(v)) - 5);
	double k;

	for (k = floor(v / unit); ; k++) {
		snprintf(buf, len, "%g", k * unit);
		if (interval_fits(batch, strtod(buf, NULL), runtime_s))
			return;
	}
}

/* What the user typed, or the default's value when they typed nothing. */
static const char *given(const char *arg, double v, char *buf, size_t len)
{
	if (arg)
		return arg;
	snprintf(buf, len, "%g", v);
	return buf;
}

/*
 * The bound depends on --batch and --runtime too, which may come after
 * --rate, so it is checked once all options are in. When no rate up to
 * MAX_RATE fits, the run is what is too short.
 */
static enum bb_parse check_interval(const struct bb_opts *o, const char *rate_arg,
				    const char *runtime_arg, char *err, size_t errlen)
{
	char text[32], least[32];

	if (interval_fits(o->batch, o->rate, o->runtime_s))
		return BB_PARSE_OK;
	if (o->batch / o->runtime_s > MAX_RATE)
		return fail(err, errlen,
			    "--runtime: '%s' is too short for batches of %u: even at the most --rate, %.0f, "
			    "a batch comes only every %g s",
			    given(runtime_arg, o->runtime_s, text, sizeof(text)), o->batch, MAX_RATE,
			    o->batch / MAX_RATE);
	rate_arg = given(rate_arg, o->rate, text, sizeof(text));
	least_rate(o->batch, o->runtime_s, least, sizeof(least));
	return fail(err, errlen,
		    "--rate: '%s' is too low for batches of %u in a --runtime of %g s: "
		    "a batch must come within the run, so the rate must be at least %s",
		    rate_arg, o->batch, o->runtime_s, least);
}

enum bb_parse bb_parse_args(int argc, char **argv, struct bb_opts *o, char *err, size_t errlen)
{
	const char *rate_arg = NULL, *runtime_arg = NULL;
	unsigned long long u;
	bool batch_set = false;
	int c;

	bb_opts_default(o);
	err[0] = '\0';
	optind = 0;	/* glibc: start over, also when called again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:b:R:c:r:w:g:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!parse_uint(optarg, 1, MAX_THREADS, &u))
				return fail(err, errlen, "--threads: '%s' is not an integer from 1 to %d",
					    optarg, MAX_THREADS);
			o->threads = u;
			break;
		case 'b':
			if (!parse_uint(optarg, 1, MAX_BATCH, &u))
				return fail(err, errlen, "--batch: '%s' is not an integer from 1 to %d",
					    optarg, MAX_BATCH);
			o->batch = u;
			batch_set = true;
			break;
		case 'R':
			if (!parse_num(optarg, 0, false, MAX_RATE, &o->rate))
				return fail(err, errlen,
					    "--rate: '%s' is not a number of requests per second above 0 and at most %.0f",
					    optarg, MAX_RATE);
			rate_arg = optarg;
			break;
		case 'c':
			if (!parse_uint(optarg, 1, MAX_CPUTIME_US, &u))
				return fail(err, errlen,
					    "--cputime: '%s' is not a number of microseconds from 1 to %llu",
					    optarg, MAX_CPUTIME_US);
			o->cputime_us = u;
			break;
		case 'r':
			if (!parse_num(optarg, 0, false, MAX_RUNTIME_S, &o->runtime_s))
				return fail(err, errlen,
					    "--runtime: '%s' is not a number of seconds above 0 and at most %.0f",
					    optarg, MAX_RUNTIME_S);
			runtime_arg = optarg;
			break;
		case 'w':
			if (!parse_num(optarg, 0, true, MAX_WARMUP_S, &o->warmup_s))
				return fail(err, errlen,
					    "--warmup: '%s' is not a number of seconds from 0 to %.0f",
					    optarg, MAX_WARMUP_S);
			break;
		case 'g':
			if (!*optarg)
				return fail(err, errlen, "--cgroup: empty path");
			o->cgroup = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_TAIL:
			if (!parse_num(optarg, 1, false, MAX_TAIL_ALPHA, &o->tail_alpha))
				return fail(err, errlen, "--tail: '%s' is not a Pareto shape above 1 and at most %.0f",
					    optarg, MAX_TAIL_ALPHA);
			break;
		case OPT_TAIL_MAX:
			if (!parse_uint(optarg, 1, MAX_CPUTIME_US, &u))
				return fail(err, errlen,
					    "--tail-max: '%s' is not a number of microseconds from 1 to %llu",
					    optarg, MAX_CPUTIME_US);
			o->tail_max_us = u;
			break;
		case OPT_SEED:
			if (!parse_uint(optarg, 0, UINT64_MAX, &u))
				return fail(err, errlen, "--seed: '%s' is not a whole number", optarg);
			o->seed = u;
			break;
		case OPT_LARGE:
			if (parse_large(optarg, o))
				return fail(err, errlen,
					    "--large: '%s' is not N:USEC (every Nth batch, from 2 to %llu; microseconds from 1 to %llu)",
					    optarg, MAX_LARGE_EVERY, MAX_CPUTIME_US);
			break;
		case OPT_LATENCIES:
			o->latencies = true;
			break;
		case 'h':
			return BB_PARSE_HELP;
		case ':':
			return fail(err, errlen, "option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return fail(err, errlen, "unknown option '-%c'", optopt);
			return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (!batch_set)
		o->batch = o->threads;
	if (o->tail_max_us && !(o->tail_alpha > 0))
		return fail(err, errlen, "--tail-max: '%llu' goes with --tail",
			    (unsigned long long)o->tail_max_us);
	if (o->tail_alpha > 0 && !o->tail_max_us)
		o->tail_max_us = o->cputime_us * 100 > MAX_CPUTIME_US ? MAX_CPUTIME_US : o->cputime_us * 100;
	if (o->tail_alpha > 0 && o->tail_max_us < o->cputime_us)
		return fail(err, errlen, "--tail-max: '%llu' is below --cputime (%llu), the mean it draws around",
			    (unsigned long long)o->tail_max_us, (unsigned long long)o->cputime_us);
	return check_interval(o, rate_arg, runtime_arg, err, errlen);
}
