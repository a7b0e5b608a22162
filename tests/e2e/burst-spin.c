// SPDX-License-Identifier: GPL-2.0
/*
 * burst-spin: a bursty service in miniature, run inside a container.
 *
 * Every INTERVAL ms a request arrives; serving it spins CPU_MS of this
 * thread's CPU time. A request's delay is its wall time minus CPU_MS: the
 * time spent queued or throttled. After a warm-up (container start-up cost
 * stays out of the numbers) the program snapshots its own cgroup's cpu.stat
 * (the container's cgroup namespace puts it at /sys/fs/cgroup), serves N
 * requests at a fixed rate, snapshots again 200 ms after the last request
 * (the same gap as before the first) and prints one line:
 *
 *   burst-spin: requests=N cpu_ms=C interval_ms=I elapsed_us=E
 *     usage_usec=U nr_periods=P nr_throttled=T throttled_usec=TU
 *     nr_bursts=B burst_usec=BU delay_p50_us=D50 delay_max_us=DMAX
 *     start_us=T0 request_cpu_us=R1,R2,... request_delay_us=D1,D2,...
 *     startup_usage_usec=SU startup_nr_throttled=ST startup_throttled_usec=STU
 *
 * (cpu.stat fields are deltas over the measured run; a field the kernel does
 * not have prints as -1.) Request i is due at T0 + i * INTERVAL, T0 being
 * CLOCK_MONOTONIC microseconds (T0 is 200 ms after the warm-up's snapshot),
 * and took Ri microseconds of CPU: C, plus
 * whatever a stalled vCPU charged it under an emulator. Ri runs from the
 * end of the request before (the first from the snapshot), so it holds the
 * wake-up too: a stall charged there, before the spin starts, is paid from
 * the pool like one inside the spin, and the spin, which stops at C of
 * thread time, cannot show either. That is the run's own demand, which the
 * e2e suite replays through the model (tests/e2e/burstctl.sh) and whose
 * excess over C is its stall rule (tests/e2e/suite.sh, spin_stalled).
 * Di is request i's delay, so a throttle in a run that should have none
 * names the request that waited. startup_* are the same deltas from the
 * program's start to the snapshot: what its own start-up cost the group
 * (and a throttle that caused), kept out of the run's figures.
 * Then it idles for the tail (-t), so a recording of its
 * cgroup can end before its exit does.
 * -P POD_CPU_STAT snapshots a second cgroup's cpu.stat at the same moments
 * (the pod-level cgroup, read from outside the container) and adds its
 * deltas as pod_FIELD=VALUE.
 * -S START_US puts the first request at that CLOCK_MONOTONIC microsecond
 * instead (the warm-up is then until 200 ms before it, the snapshot's
 * gap; START_US must be at least that far ahead): loads in several containers,
 * each started by its own slow `crun exec`, meet at the times a test
 * chose, whenever each process got going.
 * Exit 0, or 2 on bad arguments, 1 on errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQ 1000
/* Two periods of 100 ms: at least one boundary's refill after the snapshot. */
#define SNAPSHOT_GAP_MS 200

static const char *const fields[] = {
	"usage_usec", "nr_periods", "nr_throttled", "throttled_usec",
	"nr_bursts", "burst_usec",
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int read_stat(const char *path, long long *out)
{
	char key[64];
	long long val;
	FILE *f = fopen(path, "r");
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		out[i] = -1;
	if (!f) {
		fprintf(stderr, "burst-spin: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fscanf(f, "%63s %lld", key, &val) == 2)
		for (i = 0; i < NFIELDS; i++)
			if (!strcmp(key, fields[i]))
				out[i] = val;
	fclose(f);
	return 0;
}

/* Field @k's rise from snapshot @a to @b; -1 when the kernel lacks it. */
static long long stat_delta(const long long *a, const long long *b, size_t k)
{
	return a[k] < 0 || b[k] < 0 ? -1 : b[k] - a[k];
}

static void sleep_until(long long t_ns)
{
	struct timespec ts = { t_ns / 1000000000LL, t_ns % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: burst-spin [-n REQUESTS] [-i INTERVAL_MS] [-c CPU_MS] [-w WARMUP_MS | -S START_US] [-t TAIL_MS] [-s CPU_STAT] [-P POD_CPU_STAT]\n"
		"  -n  requests to serve (1..%d, default 8)\n"
		"  -i  milliseconds between request arrivals (default 400)\n"
		"  -c  CPU milliseconds each request spins (default 30)\n"
		"  -w  milliseconds to idle before measuring (default 600)\n"
		"  -S  the first request at this CLOCK_MONOTONIC microsecond, at least %d ms ahead (instead of -w)\n"
		"  -t  milliseconds to idle after the report, before exiting (default 0)\n"
		"  -s  cpu.stat to read (default /sys/fs/cgroup/cpu.stat)\n"
		"  -P  a second cpu.stat read at the same moments, printed as pod_FIELD\n", MAX_REQ,
		SNAPSHOT_GAP_MS);
}

static long arg_long(const char *s, long lo, long hi, char opt)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "burst-spin: -%c %s: expected an integer in %ld..%ld\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 8, interval_ms = 400, cpu_ms = 30, warmup_ms = 600, tail_ms = 0;
	const char *stat = "/sys/fs/cgroup/cpu.stat", *pod_stat = NULL;
	static long long delay[MAX_REQ], sorted[MAX_REQ];
	static long long cpu[MAX_REQ];
	long long sw[NFIELDS], s0[NFIELDS], s1[NFIELDS], p0[NFIELDS], p1[NFIELDS], t0, t1, paid, start_us = -1;
	size_t k;
	int opt;
	long i;

	while ((opt = getopt(argc, argv, "n:i:c:w:S:t:s:P:h")) != -1) {
		switch (opt) {
		case 'n': n = arg_long(optarg, 1, MAX_REQ, 'n'); break;
		case 'i': interval_ms = arg_long(optarg, 1, 60000, 'i'); break;
		case 'c': cpu_ms = arg_long(optarg, 1, 10000, 'c'); break;
		case 'w': warmup_ms = arg_long(optarg, 0, 60000, 'w'); break;
		case 'S': start_us = arg_long(optarg, 1, LONG_MAX, 'S'); break;
		case 't': tail_ms = arg_long(optarg, 0, 60000, 't'); break;
		case 's': stat = optarg; break;
		case 'P': pod_stat = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	/*
	 * What the start-up cost the group (this program's exec, and under
	 * TCG a stall charged to it) is read first and kept out of the
	 * run's figures: the snapshot is taken once the warm-up has let the
	 * group refill. A throttle the start-up caused shows as startup_*.
	 */
	if (read_stat(stat, sw))
		return 1;
	if (start_us < 0) {
		usleep(warmup_ms * 1000);
	} else {
		long long snap_ns = start_us * 1000 - SNAPSHOT_GAP_MS * 1000000LL;

		if (snap_ns < now_ns(CLOCK_MONOTONIC)) {
			fprintf(stderr,
				"burst-spin: -S %lld is less than %d ms ahead (now %lld)\n",
				start_us, SNAPSHOT_GAP_MS, now_ns(CLOCK_MONOTONIC) / 1000);
			return 1;
		}
		sleep_until(snap_ns);
	}
	if (read_stat(stat, s0) || (pod_stat && read_stat(pod_stat, p0)))
		return 1;
	/*
	 * The first request a gap after the snapshot, not at once: reading
	 * cpu.stat costs the group CPU (a few ms under TCG) that no request
	 * counts, and the pool refills it in the gap, as it refills each
	 * request's before the next.
	 */
	t0 = start_us < 0 ? now_ns(CLOCK_MONOTONIC) + SNAPSHOT_GAP_MS * 1000000LL : start_us * 1000;
	paid = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		long long arrive = t0 + i * interval_ms * 1000000LL, spin0, end;

		sleep_until(arrive);
		spin0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		do
			end = now_ns(CLOCK_THREAD_CPUTIME_ID);
		while (end - spin0 < cpu_ms * 1000000LL);
		cpu[i] = end - paid;
		paid = end;
		/* From arrival: a late start (still throttled) counts too. */
		delay[i] = (now_ns(CLOCK_MONOTONIC) - arrive - cpu_ms * 1000000LL) / 1000;
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	/*
	 * The closing snapshot the same gap after the last request: its read
	 * costs the group CPU too, and taken at once it could overdraw a pool
	 * the last request left nearly empty and count a throttle that no
	 * request met. Every throttle of a request has ended by now.
	 */
	sleep_until(t1 + SNAPSHOT_GAP_MS * 1000000LL);
	if (read_stat(stat, s1) || (pod_stat && read_stat(pod_stat, p1)))
		return 1;

	memcpy(sorted, delay, n * sizeof(delay[0]));
	qsort(sorted, n, sizeof(sorted[0]), cmp_ll);
	printf("burst-spin: requests=%ld cpu_ms=%ld interval_ms=%ld elapsed_us=%lld",
	       n, cpu_ms, interval_ms, (t1 - t0) / 1000);
	for (k = 0; k < NFIELDS; k++)
		printf(" %s=%lld", fields[k], stat_delta(s0, s1, k));
	printf(" delay_p50_us=%lld delay_max_us=%lld start_us=%lld request_cpu_us=", sorted[n / 2],
	       sorted[n - 1], t0 / 1000);
	for (i = 0; i < n; i++)
		printf("%s%lld", i ? "," : "", cpu[i] / 1000);
	printf(" request_delay_us=");
	for (i = 0; i < n; i++)
		printf("%s%lld", i ? "," : "", delay[i]);
	for (k = 0; k < NFIELDS; k++)
		if (k == 0 || k == 2 || k == 3)
			printf(" startup_%s=%lld", fields[k], stat_delta(sw, s0, k));
	for (k = 0; pod_stat && k < NFIELDS; k++)
		printf(" pod_%s=%lld", fields[k], stat_delta(p0, p1, k));
	putchar('\n');
	fflush(stdout);
	usleep(tail_ms * 1000);
	return 0;
}
