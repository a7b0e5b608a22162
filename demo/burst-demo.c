// SPDX-License-Identifier: GPL-2.0
/*
 * A bursty service in a CPU-limited cgroup, run without and with burst.
 *
 * Every INTERVAL a request arrives that needs WORK of CPU time; the group
 * is limited to QUOTA per PERIOD, which covers the average use (WORK per
 * INTERVAL) but not a single request.  Without burst every request waits
 * for several periods' refills; with a burst of WORK - QUOTA the group
 * serves each one at once from the quota it saved while idle.
 *
 * Runs in the demo guest (make demo); prints one table row per setting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CG		"/sys/fs/cgroup/demo"
#define PERIOD_US	50000
#define QUOTA_US	10000
#define WORK_US		30000
#define INTERVAL_US	250000
#define REQUESTS	16
/* burst = 3 x quota's pool at burst = quota: the period times (1 + 3) / 2 */
#define STRETCH		2
#define STRETCHED_LABEL	"quota 20ms/100ms, burst 20ms"

static long long clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int write_file(const char *file, const char *value)
{
	char path[256];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), CG "/%s", file);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(value, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static long long stat_key(const char *key)
{
	char line[128];
	long long v = -1;
	size_t len = strlen(key);
	FILE *f = fopen(CG "/cpu.stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	return v;
}

static void spin_cpu(long long usec)
{
	long long end = clock_us(CLOCK_THREAD_CPUTIME_ID) + usec;
	volatile unsigned long sink = 0;

	while (clock_us(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			sink += i;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void run(const char *label, long long quota_us, long long period_us, long long burst_us)
{
	long long lat[REQUESTS], throttled0, next;
	char value[64];
	int ret, i;

	/* The burst first: a smaller quota under the old burst would be refused by a capped kernel. */
	ret = write_file("cpu.max.burst", "0");
	snprintf(value, sizeof(value), "%lld %lld", quota_us, period_us);
	if (!ret)
		ret = write_file("cpu.max", value);
	if (ret) {
		printf("%-28s cpu.max=%lld refused: %s\n", label, quota_us, strerror(-ret));
		return;
	}
	snprintf(value, sizeof(value), "%lld", burst_us);
	ret = write_file("cpu.max.burst", value);
	if (ret) {
		printf("%-28s cpu.max.burst=%lld refused: %s\n", label, burst_us, strerror(-ret));
		return;
	}
	/* Start each run with an idle group that has saved what it can. */
	usleep(10 * period_us);
	throttled0 = stat_key("nr_throttled");
	next = clock_us(CLOCK_MONOTONIC);
	for (i = 0; i < REQUESTS; i++) {
		long long now = clock_us(CLOCK_MONOTONIC);

		if (next > now)
			usleep(next - now);
		spin_cpu(WORK_US);
		lat[i] = clock_us(CLOCK_MONOTONIC) - next;
		next += INTERVAL_US;
	}
	qsort(lat, REQUESTS, sizeof(lat[0]), cmp_ll);
	printf("%-28s %8lld %8lld %8lld %10lld\n", label, lat[REQUESTS / 2] / 1000,
	       lat[REQUESTS * 9 / 10] / 1000, lat[REQUESTS - 1] / 1000,
	       stat_key("nr_throttled") - throttled0);
}

int main(void)
{
	char value[64];
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "w");
	if (!f || fputs("+cpu", f) < 0 || fclose(f)) {
		perror("enable the cpu controller");
		return 1;
	}
	if (mkdir(CG, 0755) && errno != EEXIST) {
		perror("mkdir " CG);
		return 1;
	}
	snprintf(value, sizeof(value), "%d %d", QUOTA_US, PERIOD_US);
	if (write_file("cpu.max", value)) {
		perror("cpu.max");
		return 1;
	}
	f = fopen(CG "/cgroup.procs", "w");
	if (!f || fprintf(f, "%d", getpid()) < 0 || fclose(f)) {
		perror("cgroup.procs");
		return 1;
	}
	printf("quota %d ms / period %d ms (%d%% of a CPU); a request of %d ms CPU every %d ms (%d%% average)\n",
	       QUOTA_US / 1000, PERIOD_US / 1000, QUOTA_US * 100 / PERIOD_US, WORK_US / 1000,
	       INTERVAL_US / 1000, WORK_US * 100 / INTERVAL_US);
	printf("%-28s %8s %8s %8s %10s\n", "request latency (ms)", "p50", "p90", "max", "throttled");
	run("no burst", QUOTA_US, PERIOD_US, 0);
	run("burst = quota (10 ms)", QUOTA_US, PERIOD_US, QUOTA_US);
	run("burst = 3 x quota (30 ms)", QUOTA_US, PERIOD_US, 3 * QUOTA_US);
	/*
	 * What a kernel that caps burst at quota can do instead: the same share
	 * and the same pool (quota + burst) with a longer period.
	 */
	run(STRETCHED_LABEL, STRETCH * QUOTA_US, STRETCH * PERIOD_US, STRETCH * QUOTA_US);
	printf("(the last row: the same %d%% share and %d ms pool with burst = quota, on a %d ms period)\n",
	       QUOTA_US * 100 / PERIOD_US, 2 * STRETCH * QUOTA_US / 1000, STRETCH * PERIOD_US / 1000);
	return 0;
}
