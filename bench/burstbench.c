// SPDX-License-Identifier: GPL-2.0
/*
 * burstbench: a bursty, latency-sensitive service, after the request-rate
 * mode of schbench (2020) that the CFS burst series was measured with.
 *
 * The main thread is the message thread: every batch/rate seconds it posts
 * a batch of requests and wakes that many worker threads. A worker takes
 * the next request, spins its CPU time and records
 *
 *	latency = completion - scheduled start - CPU time the request used
 *
 * which is the time the request waited: for a worker, for a CPU, or for
 * its cgroup's quota. Requests are timed from when they were due, not from
 * when the message thread got to post them, so a throttled message thread
 * counts too. Over the measured window the cgroup's cpu.stat deltas show
 * how often and how long it was throttled and how much it burst.
 *
 * Under QEMU's TCG, clock_gettime() is a system call (the guest marks the
 * TSC unstable), so the spin loop reads the thread's CPU clock only every
 * few hundred microseconds of work, calibrated at start. There, too, a vCPU
 * the host deschedules is charged the whole stall as CPU time of the task
 * it was running: the most CPU time any request was charged beyond what it
 * asked for (request_overrun_max_us) shows how much the host disturbed a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bb.h"
#include "util.h"
#include "../lib/cgfile.h"
#include "../lib/cgroup.h"

const char bench_prog[] = "burstbench";

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL
/* After the last batch is due, queued requests get this long to finish. */
#define DRAIN_MIN_NS	(5 * NSEC_PER_SEC)

struct worker {
	pthread_t tid;
	uint64_t *lat;		/* measured latencies, ns */
	size_t n, cap;
};

static struct {
	struct bb_opts o;
	uint64_t interval_ns;	/* between batches */
	uint64_t t0, warm_end;	/* CLOCK_MONOTONIC: batch 0 due; measuring from */
	unsigned long chunk;	/* spin iterations between CPU clock reads */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t issued, claimed;	/* request counters, under lock */
	uint64_t completed;		/* measured requests done, under lock */
	uint64_t spun_ns;		/* CPU they used, under lock */
	uint64_t over_max_ns;		/* the most any request used beyond cputime */
	uint64_t last_done;		/* CLOCK_MONOTONIC: last measured completion */
	bool done, abandon;		/* no more requests / stop taking them */
	int64_t *lat_by_index;		/* --latencies: measured request i's latency, ns; -1 unfinished */
	uint64_t first_measured;	/* the index of the first measured request */
	uint64_t nmeasured;
} bb = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void spin_iters(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		__asm__ __volatile__("" : : "r"(i) : "memory");
}

/*
 * Spin until this thread has used ns of CPU; returns what it used. Reads
 * the clock every bb.chunk iterations, and near the end sizes the last
 * chunks from the speed measured so far, so the request overshoots by
 * little more than one clock read whatever the calibration said.
 */
static uint64_t spin_cpu(uint64_t ns)
{
	uint64_t start = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID), used, iters = 0;
	unsigned long chunk = bb.chunk;
	double per_ns, left;

	for (;;) {
		spin_iters(chunk);
		iters += chunk;
		used = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
		if (used >= ns)
			return used;
		if (!used)
			continue;
		per_ns = (double)iters / used;
		left = (ns - used) * per_ns;
		if (left < 1000 * per_ns)
			left = 1000 * per_ns;	/* at least 1 us */
		chunk = left < bb.chunk ? (unsigned long)left + 1 : bb.chunk;
	}
}

/*
 * Iterations per CPU-clock read: about 1/50 of a request, between 10 and
 * 500 us of work, measured over 20 ms of spinning.
 */
static unsigned long calibrate(uint64_t cputime_ns)
{
	const unsigned long probe = 10000;
	uint64_t start, used, iters = 0, check_ns;

	start = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	do {
		spin_iters(probe);
		iters += probe;
		used = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
	} while (used < 20 * 1000 * NSEC_PER_USEC);
	check_ns = cputime_ns / 50;
	if (check_ns < 10 * NSEC_PER_USEC)
		check_ns = 10 * NSEC_PER_USEC;
	if (check_ns > 500 * NSEC_PER_USEC)
		check_ns = 500 * NSEC_PER_USEC;
	iters = iters * check_ns / used;
	return iters ? iters : 1;
}

static void record(struct worker *w, uint64_t lat)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->lat = realloc(w->lat, w->cap * sizeof(*w->lat));
		if (!w->lat)
			bench_die("out of memory for %zu latencies", w->cap);
	}
	w->lat[w->n++] = lat;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		uint64_t k, due, used, end, lat, cputime_ns;
		bool measured;

		pthread_mutex_lock(&bb.lock);
		while (bb.claimed == bb.issued && !bb.done && !bb.abandon)
			pthread_cond_wait(&bb.wake, &bb.lock);
		if (bb.abandon || bb.claimed == bb.issued) {
			pthread_mutex_unlock(&bb.lock);
			return NULL;
		}
		k = bb.claimed++;
		pthread_mutex_unlock(&bb.lock);

		due = bb.t0 + k / bb.o.batch * bb.interval_ns;
		cputime_ns = bb_request_us(&bb.o, k) * NSEC_PER_USEC;
		used = spin_cpu(cputime_ns);
		end = bench_clock_ns(CLOCK_MONOTONIC);
		measured = due >= bb.warm_end;
		if (measured) {
			lat = end - due > used ? end - due - used : 0;
			record(w, lat);
			if (bb.lat_by_index && k - bb.first_measured < bb.nmeasured)
				bb.lat_by_index[k - bb.first_measured] = (int64_t)lat;
		}
		pthread_mutex_lock(&bb.lock);
		/* Warm-up too: a stall there drains the pool for the window. */
		if (used - cputime_ns > bb.over_max_ns)
			bb.over_max_ns = used - cputime_ns;
		if (measured) {
			bb.completed++;
			bb.spun_ns += used;
			if (end > bb.last_done)
				bb.last_done = end;
		}
		pthread_mutex_unlock(&bb.lock);
	}
}

static void resolve_cgroup(const char *arg, char *dir, size_t len)
{
	static char text[65536];
	char cg[PATH_MAX];

	if (arg && arg[0] == '/') {
		snprintf(dir, len, "%s", arg);
		return;
	}
	if (arg) {
		snprintf(cg, sizeof(cg), "/%s", arg);
	} else if (cgfile_read("/proc/self", "cgroup", text, sizeof(text)) ||
		   cg_own(text, cg, sizeof(cg))) {
		dir[0] = '\0';	/* no cgroup2: report no cpu.stat */
		return;
	}
	if (cgfile_read("/proc/self", "mountinfo", text, sizeof(text)) ||
	    cg_dir(text, cg, dir, len))
		dir[0] = '\0';
}

static bool read_cpustat(const char *dir, struct cg_cpustat *st)
{
	char text[4096];

	memset(st, 0, sizeof(*st));
	return dir[0] && !cgfile_read(dir, "cpu.stat", text, sizeof(text)) &&
	       cg_parse_cpustat(text, st) > 0;
}

struct limit {
	bool known;		/* cpu.max could be read */
	uint64_t quota, period, burst;	/* us; quota 0: max */
};

static void read_limit(const char *dir, struct limit *l)
{
	char text[256];

	memset(l, 0, sizeof(*l));
	if (!dir[0] || cgfile_read(dir, "cpu.max", text, sizeof(text)) ||
	    cg_parse_cpumax(text, &l->quota, &l->period))
		return;
	l->known = true;
	if (cgfile_read(dir, "cpu.max.burst", text, sizeof(text)) || cg_parse_u64(text, &l->burst))
		l->burst = 0;
}

/* "key":v, or "key":null when the value is unknown. */
static void json_u64(const char *key, bool have, uint64_t v)
{
	if (have)
		printf("\"%s\":%llu", key, (unsigned long long)v);
	else
		printf("\"%s\":null", key);
}

static void json_str(const char *key, const char *v)
{
	printf("\"%s\":\"", key);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			putchar('\\');
		if ((unsigned char)*v >= ' ')
			putchar(*v);
	}
	putchar('"');
}

struct result {
	const char *dir;	/* cgroup directory, "" if none */
	struct limit lim;
	struct bb_summary lat;	/* ns */
	uint64_t unfinished;
	double rps;		/* achieved: bb_achieved_rps() */
	uint64_t served_ns;	/* what rps is over: bb_served_ns() */
	bool have_stat;
	struct cg_cpustat d;	/* cpu.stat deltas */
	uint64_t elapsed_us;	/* between the two cpu.stat reads */
	uint64_t process_us;	/* CPU the whole process used meanwhile */
	uint64_t spun_us;	/* CPU the measured requests used */
	uint64_t over_max_us;	/* the most any request, warm-up too, used beyond its CPU time */
	uint64_t bound;		/* usage bound, us; UINT64_MAX: none */
};

static void report_json(const struct result *r)
{
	int i;

	printf("{\"threads\":%u,\"batch\":%u,\"rate\":%g,\"cputime_us\":%llu,"
	       "\"runtime_s\":%g,\"warmup_s\":%g,\"spin_check_iters\":%lu,",
	       bb.o.threads, bb.o.batch, bb.o.rate, (unsigned long long)bb.o.cputime_us,
	       bb.o.runtime_s, bb.o.warmup_s, bb.chunk);
	printf("\"requests\":%zu,\"unfinished\":%llu,\"rps\":%.3f,\"rps_elapsed_s\":%.6f,"
	       "\"latency_us\":{",
	       r->lat.n, (unsigned long long)r->unfinished, r->rps, r->served_ns / 1e9);
	for (i = 0; i < BB_NPCT; i++)
		printf("\"%s\":%.1f,", bb_pct_names[i], r->lat.pct[i] / 1000.0);
	printf("\"min\":%.1f,\"max\":%.1f,\"mean\":%.1f},", r->lat.min / 1000.0,
	       r->lat.max / 1000.0, r->lat.mean / 1000.0);
	json_str("cgroup", r->dir);
	printf(",\"limit\":");
	if (r->lim.known) {
		printf("{");
		json_u64("quota_us", r->lim.quota, r->lim.quota);
		printf(",");
		json_u64("period_us", true, r->lim.period);
		printf(",");
		json_u64("burst_us", true, r->lim.burst);
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"cpu_stat\":{");
	for (i = 0; i < CG_NSTAT; i++) {
		json_u64(cg_stat_names[i], r->have_stat && r->d.have[i], r->d.v[i]);
		printf(i + 1 < CG_NSTAT ? "," : "},");
	}
	json_u64("elapsed_us", true, r->elapsed_us);
	printf(",");
	json_u64("process_cpu_us", true, r->process_us);
	printf(",");
	json_u64("requests_cpu_us", true, r->spun_us);
	printf(",");
	json_u64("request_overrun_max_us", true, r->over_max_us);
	printf(",");
	json_u64("bound_usec", r->bound != UINT64_MAX, r->bound);
	if (bb.o.tail_alpha > 0)
		printf(",\"tail\":{\"alpha\":%g,\"max_us\":%llu,\"seed\":%llu}", bb.o.tail_alpha,
		       (unsigned long long)bb.o.tail_max_us, (unsigned long long)bb.o.seed);
	if (bb.o.large_every)
		printf(",\"large\":{\"every\":%llu,\"cputime_us\":%llu}",
		       (unsigned long long)bb.o.large_every, (unsigned long long)bb.o.large_us);
	printf(",\"mean_request_us\":%.1f",
	       bb_mean_request_us(&bb.o, bb.first_measured, bb.nmeasured));
	if (bb.lat_by_index) {
		uint64_t i;

		printf(",\"latencies_us\":[");
		for (i = 0; i < bb.nmeasured; i++)
			printf(i ? ",%lld" : "%lld", bb.lat_by_index[i] < 0 ? -1LL :
			       (long long)((bb.lat_by_index[i] + 500) / 1000));
		/* What each asked for and when it was due: the run's own demand, for the model. */
		printf("],\"sizes_us\":[");
		for (i = 0; i < bb.nmeasured; i++)
			printf(i ? ",%llu" : "%llu",
			       (unsigned long long)bb_request_us(&bb.o, bb.first_measured + i));
		printf("],\"batch_interval_ns\":%llu", (unsigned long long)bb.interval_ns);
	}
	printf("}\n");
}

static void report_table(const struct result *r)
{
	const struct limit *l = &r->lim;
	int i;

	printf("burstbench: %u threads, %g requests/s in batches of %u every %.1f ms, "
	       "%llu us CPU each; %g s measured after %g s warm-up\n",
	       bb.o.threads, bb.o.rate, bb.o.batch, bb.interval_ns / 1e6,
	       (unsigned long long)bb.o.cputime_us, bb.o.runtime_s, bb.o.warmup_s);
	printf("cgroup %s: ", r->dir[0] ? r->dir : "(none found)");
	if (!l->known)
		printf("no cpu.max\n");
	else if (!l->quota)
		printf("cpu.max max %llu, cpu.max.burst %llu\n", (unsigned long long)l->period,
		       (unsigned long long)l->burst);
	else
		printf("cpu.max %llu %llu, cpu.max.burst %llu\n", (unsigned long long)l->quota,
		       (unsigned long long)l->period, (unsigned long long)l->burst);

	printf("\nlatency beyond CPU time (us) over %zu requests\n", r->lat.n);
	for (i = 0; i < BB_NPCT; i++)
		printf("  %6.1fth %10.1f\n", bb_pcts[i], r->lat.pct[i] / 1000.0);
	printf("  %8s %10.1f\n  %8s %10.1f\n\n", "min", r->lat.min / 1000.0,
	       "max", r->lat.max / 1000.0);

	printf("achieved %.2f requests/s (requested %g) over %.3f s", r->rps, bb.o.rate,
	       r->served_ns / 1e9);
	if (r->unfinished)
		printf("; %llu requests unfinished when the drain time ran out",
		       (unsigned long long)r->unfinished);
	printf("\nCPU: requests %.3f s (one at most %.1f ms over), whole process %.3f s\n",
	       r->spun_us / 1e6, r->over_max_us / 1e3, r->process_us / 1e6);
	printf("cpu.stat deltas over %.2f s:", r->elapsed_us / 1e6);
	if (!r->have_stat) {
		printf(" not available\n");
		return;
	}
	for (i = 0; i < CG_NSTAT; i++) {
		if (r->d.have[i])
			printf(" %s %llu", cg_stat_names[i], (unsigned long long)r->d.v[i]);
		else
			printf(" %s n/a", cg_stat_names[i]);
	}
	printf("\n");
	if (r->d.have[CG_USAGE_USEC] && r->bound != UINT64_MAX)
		printf("usage %.3f s; quota * N + burst = %.3f s: %s\n",
		       r->d.v[CG_USAGE_USEC] / 1e6, r->bound / 1e6,
		       r->d.v[CG_USAGE_USEC] <= r->bound ? "within" : "above");
}

int main(int argc, char **argv)
{
	uint64_t nbatches, warm_batches, b, t_start = 0, cpu_start = 0, deadline, measured;
	struct cg_cpustat before, after;
	char err[256], dir[PATH_MAX];
	bool have_before = false;
	struct result r = { .dir = dir };
	struct worker *w;
	uint64_t *all;
	size_t n, i;

	switch (bb_parse_args(argc, argv, &bb.o, err, sizeof(err))) {
	case BB_PARSE_HELP:
		fputs(bb_usage, stdout);
		return 0;
	case BB_PARSE_ERROR:
		fprintf(stderr, "burstbench: %s\nTry 'burstbench --help'.\n", err);
		return BB_EXIT_USAGE;
	case BB_PARSE_OK:
		break;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (bb.o.rate * bb.o.cputime_us / 1e6 > bb.o.threads)
		fprintf(stderr, "burstbench: warning: %g requests/s of %llu us need more than %u threads; requests will queue\n",
			bb.o.rate, (unsigned long long)bb.o.cputime_us, bb.o.threads);
	resolve_cgroup(bb.o.cgroup, dir, sizeof(dir));
	if (bb.o.cgroup && access(dir, F_OK)) {
		fprintf(stderr, "burstbench: --cgroup: '%s': %s\n", dir, strerror(errno));
		return BB_EXIT_USAGE;
	}
	read_limit(dir, &r.lim);

	bb.interval_ns = bb_interval_ns(bb.o.batch, bb.o.rate);	/* not 0: parsing checked */
	bb.chunk = calibrate(bb.o.cputime_us * NSEC_PER_USEC);
	/* Batches due in [0, warm-up) warm up, those in [warm-up, warm-up + run time) count. */
	warm_batches = (uint64_t)(bb.o.warmup_s * NSEC_PER_SEC + bb.interval_ns - 1) / bb.interval_ns;
	nbatches = (uint64_t)((bb.o.warmup_s + bb.o.runtime_s) * NSEC_PER_SEC + bb.interval_ns - 1) /
		   bb.interval_ns;
	if (nbatches <= warm_batches)
		nbatches = warm_batches + 1;
	measured = nbatches - warm_batches;
	bb.first_measured = warm_batches * bb.o.batch;
	bb.nmeasured = measured * bb.o.batch;
	if (bb.o.latencies) {
		bb.lat_by_index = malloc(bb.nmeasured * sizeof(*bb.lat_by_index));
		if (!bb.lat_by_index)
			bench_die("out of memory for %llu latencies", (unsigned long long)bb.nmeasured);
		for (i = 0; i < bb.nmeasured; i++)
			bb.lat_by_index[i] = -1;
	}

	w = calloc(bb.o.threads, sizeof(*w));
	if (!w)
		bench_die("out of memory");
	bb.t0 = bench_clock_ns(CLOCK_MONOTONIC) + 20 * 1000 * NSEC_PER_USEC;
	bb.warm_end = bb.t0 + warm_batches * bb.interval_ns;
	for (i = 0; i < bb.o.threads; i++) {
		errno = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (errno)
			bench_die("cannot start worker %zu: %s", i, strerror(errno));
	}

	/* The message thread: post each batch when it is due. */
	for (b = 0; b < nbatches; b++) {
		sleep_until(bb.t0 + b * bb.interval_ns);
		if (b == warm_batches) {
			have_before = read_cpustat(dir, &before);
			t_start = bench_clock_ns(CLOCK_MONOTONIC);
			cpu_start = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		}
		pthread_mutex_lock(&bb.lock);
		bb.issued += bb.o.batch;
		pthread_mutex_unlock(&bb.lock);
		for (i = 0; i < bb.o.batch && i < bb.o.threads; i++)
			pthread_cond_signal(&bb.wake);
	}
	pthread_mutex_lock(&bb.lock);
	bb.done = true;
	pthread_cond_broadcast(&bb.wake);
	pthread_mutex_unlock(&bb.lock);

	/* Queued requests may finish for as long as the run took, 5 s at least. */
	deadline = measured * bb.interval_ns;
	deadline = bb.t0 + nbatches * bb.interval_ns + (deadline > DRAIN_MIN_NS ? deadline : DRAIN_MIN_NS);
	for (;;) {
		bool idle;

		pthread_mutex_lock(&bb.lock);
		idle = bb.claimed == bb.issued;
		if (!idle && bench_clock_ns(CLOCK_MONOTONIC) >= deadline) {
			bb.abandon = true;
			pthread_cond_broadcast(&bb.wake);
			idle = true;
		}
		pthread_mutex_unlock(&bb.lock);
		if (idle)
			break;
		usleep(10000);
	}
	for (i = 0; i < bb.o.threads; i++)
		pthread_join(w[i].tid, NULL);
	r.process_us = (bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start) / NSEC_PER_USEC;
	r.spun_us = bb.spun_ns / NSEC_PER_USEC;
	r.over_max_us = bb.over_max_ns / NSEC_PER_USEC;
	r.have_stat = read_cpustat(dir, &after) && have_before;
	r.elapsed_us = (bench_clock_ns(CLOCK_MONOTONIC) - t_start) / NSEC_PER_USEC;
	cg_cpustat_delta(&before, &after, &r.d);
	r.bound = UINT64_MAX;
	if (r.lim.known && r.lim.quota)
		r.bound = bb_usage_bound(r.lim.quota, r.lim.period, r.lim.burst, r.elapsed_us);

	for (n = 0, i = 0; i < bb.o.threads; i++)
		n += w[i].n;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		bench_die("out of memory");
	for (n = 0, i = 0; i < bb.o.threads; i++) {
		if (w[i].n)
			memcpy(all + n, w[i].lat, w[i].n * sizeof(*all));
		n += w[i].n;
	}
	bb_summarise(all, n, &r.lat);
	r.unfinished = measured * bb.o.batch - bb.completed;
	r.served_ns = bb_served_ns(bb.warm_end, bb.warm_end + measured * bb.interval_ns, bb.last_done);
	r.rps = bb_achieved_rps(bb.completed, r.served_ns);
	if (bb.o.json)
		report_json(&r);
	else
		report_table(&r);
	return 0;
}
