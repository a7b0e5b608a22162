// SPDX-License-Identifier: GPL-2.0
/*
 * Random and mutated writes to every bandwidth control file, one at a time,
 * each also made to the reference model (model/bw-model.c): cpu.max with
 * one to four fields, cpu.max.burst, both burst sysctls, and the v1 files
 * cpu.cfs_quota_us, cpu.cfs_period_us and cpu.cfs_burst_us. After every
 * write the kernel's answer must be the model's, every file of the target
 * must read what the model holds, and a refused write must have changed
 * nothing (checked against the files' text before it, not only against the
 * model). Part of the debug kernel's stress suite (burst-stress.c), whose
 * harness also fails on any kernel report the writes provoke.
 *
 * The seed is printed; burstcfs.seed=N on the kernel command line repeats
 * a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../model/bw-model.h"
#include "cg.h"
#include "stress.h"
#include "../../lib/tap.h"

#define FUZZ_V2		CG2_ROOT "/fuzz"
#define FUZZ_V1_MNT	"/tmp/fuzz-v1"
#define FUZZ_V1		FUZZ_V1_MNT "/fuzz"
#define PROC_SYS	"/proc/sys/kernel"

/* What one kind of write did: outcomes and the checks after it. */
struct tally {
	const char *what;
	long writes, taken, refused;
	long disagree;		/* the kernel's answer is not the model's */
	long misread;		/* a file reads other than the model holds */
	long changed;		/* a refused write changed a file */
};

static unsigned long long rng_state;

static unsigned int rnd(unsigned int n)
{
	/* xorshift64*: fast, and the same sequence from the same seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned int)((rng_state * 0x2545F4914F6CDD1DULL) >> 32) % n;
}

/* Numbers at and around every limit the parsers and the checks know. */
static const char *const edge_numbers[] = {
	"0", "1", "-1", "-0", "+5", "00", "010", "0x10", "0X1f", "1e3", "1.5",
	"999", "1000", "1001", "100000", "999999", "1000000", "1000001",
	"2147483647", "2147483648", "4294967295", "4294967296",
	"17592186044415", "17592186044416", "9223372036854775807",
	"9223372036854775808", "18446744073709551615", "18446744073709551616",
	"-9223372036854775808", "99999999999999999999999",
};
static const char *const words[] = { "max", "MAX", "Max", "maxx", "ma", "", "abc", "-", "+" };
static const char *const seps[] = { " ", " ", " ", "  ", "\t", " \t", "\n" };
/* What a mutation may put in: the characters that matter to the parsers. */
static const char mutation_chars[] = "0123456789 \t\n-+xXmaMA.e";

/* A number a control file could plausibly take, in microseconds. */
static void plausible(char *out, size_t len, int kind)
{
	static const long long scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	long long v = (1 + rnd(999)) * scale[rnd(7)];

	if (kind == 1 && rnd(3))	/* periods: mostly within 1 ms..1 s */
		v = 1000 + rnd(1000000);
	snprintf(out, len, "%lld", v);
}

/* One field: a plausible number, an edge number, or a word. */
static void field(char *out, size_t len, int kind)
{
	switch (rnd(10)) {
	case 0:
	case 1:
		snprintf(out, len, "%s", edge_numbers[rnd(sizeof(edge_numbers) / sizeof(*edge_numbers))]);
		break;
	case 2:
		snprintf(out, len, "%s", kind == 0 ? "max" : words[rnd(sizeof(words) / sizeof(*words))]);
		break;
	case 3:
		snprintf(out, len, "%s", words[rnd(sizeof(words) / sizeof(*words))]);
		break;
	default:
		plausible(out, len, kind);
	}
}

/* Up to three byte changes: replace, insert or delete. */
static void mutate(char *s, size_t cap)
{
	int n = 1 + rnd(3);

	while (n--) {
		size_t len = strlen(s), at = len ? rnd(len + 1) : 0;
		char c = mutation_chars[rnd(sizeof(mutation_chars) - 1)];

		switch (rnd(3)) {
		case 0:
			if (at < len)
				s[at] = c;
			break;
		case 1:
			if (len + 1 < cap) {
				memmove(s + at + 1, s + at, len - at + 1);
				s[at] = c;
			}
			break;
		default:
			if (at < len)
				memmove(s + at, s + at + 1, len - at);
		}
	}
}

/* A value of @nfields fields (kinds: quota, period, burst, then extra). */
static void value(char *out, size_t cap, int nfields)
{
	char f[48];
	int i;

	out[0] = '\0';
	if (!rnd(8))
		strncat(out, rnd(2) ? " " : "\t", cap - strlen(out) - 1);
	for (i = 0; i < nfields; i++) {
		if (i)
			strncat(out, seps[rnd(sizeof(seps) / sizeof(*seps))], cap - strlen(out) - 1);
		field(f, sizeof(f), i < 3 ? i : 2);
		strncat(out, f, cap - strlen(out) - 1);
	}
	if (rnd(2))	/* echo's newline, or none as printf writes it */
		strncat(out, "\n", cap - strlen(out) - 1);
	if (!rnd(4))
		mutate(out, cap);
}

/*
 * The files of one target, each kept open: thousands of open/close pairs
 * cost minutes on the debug kernel under TCG. pread/pwrite at offset 0:
 * kernfs and sysctl files parse every write whole and regenerate every
 * read from the start.
 */
struct target {
	const char *dir;
	const char *const *files;
	int nfiles;
	int fd[3];
	char text[3][64];	/* what each file read after the last write */
};

static int file_text(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0) {
		snprintf(buf, len, "<%s>", strerror(errno));
		return -errno;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int target_open(struct target *t)
{
	char path[256];
	int i;

	for (i = 0; i < t->nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, t->files[i]);
		t->fd[i] = open(path, O_RDWR | O_CLOEXEC);
		if (t->fd[i] < 0)
			return -errno;
		file_text(t->fd[i], t->text[i], sizeof(t->text[i]));
	}
	return 0;
}

static void target_close(struct target *t)
{
	int i;

	for (i = 0; i < t->nfiles; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
}

static void note(struct tally *t, long *counter, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct tally *t, long *counter, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if ((*counter)++ >= 3)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap_diag("%s: %s", t->what, msg);
}

/*
 * One write of @val to file @f of @t, also given to @model_write; then
 * every file of @t must read what @want says the model holds, and, if the
 * write was refused, what it read before.
 */
static void one_write(struct tally *tl, struct target *t, int f, const char *val,
		      int (*model_write)(void *, const char *, size_t), void *model,
		      void (*want)(void *, int, char *, size_t))
{
	char after[64], expect[64];
	ssize_t n;
	int ret, mret, i;

	n = pwrite(t->fd[f], val, strlen(val), 0);
	ret = n < 0 ? -errno : 0;
	mret = model_write(model, val, strlen(val));
	tl->writes++;
	if (ret)
		tl->refused++;
	else
		tl->taken++;
	if (ret != mret)
		note(tl, &tl->disagree, "%s '%s': the kernel says %d, the model %d", t->files[f],
		     tap_escape(val), ret, mret);
	for (i = 0; i < t->nfiles; i++) {
		file_text(t->fd[i], after, sizeof(after));
		want(model, i, expect, sizeof(expect));
		if (strcmp(after, expect))
			note(tl, &tl->misread, "after %s '%s' (%d): %s reads '%s', the model '%s'",
			     t->files[f], tap_escape(val), ret, t->files[i], tap_escape(after),
			     tap_escape(expect));
		if (ret && strcmp(after, t->text[i]))
			note(tl, &tl->changed, "refused %s '%s' (%d) changed %s: '%s' -> '%s'",
			     t->files[f], tap_escape(val), ret, t->files[i], tap_escape(t->text[i]),
			     tap_escape(after));
		memcpy(t->text[i], after, sizeof(after));
	}
}

/* --- the three targets: a v2 group, the sysctls, a v1 group ------------------ */

static const char *const v2_files[] = { "cpu.max", "cpu.max.burst" };

static void v2_want(void *m, int i, char *buf, size_t len)
{
	struct bwm_group *g = m;

	if (i == 0) {
		bwm_read_cpu_max(g, buf, len);
		buf[strcspn(buf, "\n")] = '\0';
	} else {
		snprintf(buf, len, "%lld", bwm_burst_us(g));
	}
}

static int v2_max(void *m, const char *b, size_t n) { return bwm_write_cpu_max(m, b, n); }
static int v2_burst(void *m, const char *b, size_t n) { return bwm_write_cpu_max_burst(m, b, n); }

static const char *const sysctl_files[] = { SYSCTL_BURST_ENABLED, SYSCTL_BURST_ONSET };

static void sysctl_want(void *m, int i, char *buf, size_t len)
{
	struct bwm_sysctls *s = m;

	snprintf(buf, len, "%u", i == 0 ? s->burst_enabled : s->onset_percent);
}

static int sys_enabled(void *m, const char *b, size_t n) { return bwm_write_burst_enabled(m, b, n); }
static int sys_onset(void *m, const char *b, size_t n) { return bwm_write_onset_percent(m, b, n); }

static const char *const v1_files[] = { "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.cfs_burst_us" };

static void v1_want(void *m, int i, char *buf, size_t len)
{
	struct bwm_group *g = m;

	snprintf(buf, len, "%lld", i == 0 ? bwm_quota_us(g) : i == 1 ? bwm_period_us(g) : bwm_burst_us(g));
}

static int v1_quota(void *m, const char *b, size_t n) { return bwm_write_cfs_quota_us(m, b, n); }
static int v1_period(void *m, const char *b, size_t n) { return bwm_write_cfs_period_us(m, b, n); }
static int v1_burst(void *m, const char *b, size_t n) { return bwm_write_cfs_burst_us(m, b, n); }

static bool report(const struct tally *t)
{
	return tap_ok(t->writes > 0 && t->taken > 0 && t->refused > 0 && !t->disagree && !t->misread &&
		      !t->changed,
		      "%s: %ld writes (%ld taken, %ld refused): the kernel answered as the model every time "
		      "(%ld disagreements), every file read what the model holds (%ld misreads), no refused "
		      "write changed anything (%ld)",
		      t->what, t->writes, t->taken, t->refused, t->disagree, t->misread, t->changed);
}

static unsigned long long fuzz_seed(void)
{
	char cmdline[4096], *p;
	struct timespec ts;

	if (!cg_read("/proc", "cmdline", cmdline, sizeof(cmdline)) &&
	    (p = strstr(cmdline, "burstcfs.seed=")))
		return strtoull(p + strlen("burstcfs.seed="), NULL, 10);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20);
}

void write_fuzz(long writes)
{
	struct tally max = { .what = "cpu.max" }, burst = { .what = "cpu.max.burst" };
	struct tally sys = { .what = "the burst sysctls" };
	struct tally v1 = { .what = "v1 cfs_quota_us, cfs_period_us, cfs_burst_us" };
	struct target v2t = { .dir = FUZZ_V2, .files = v2_files, .nfiles = 2, .fd = { -1, -1, -1 } };
	struct target syst = { .dir = PROC_SYS, .files = sysctl_files, .nfiles = 2, .fd = { -1, -1, -1 } };
	struct target v1t = { .dir = FUZZ_V1, .files = v1_files, .nfiles = 3, .fd = { -1, -1, -1 } };
	static int (*const v1_writers[])(void *, const char *, size_t) = { v1_quota, v1_period, v1_burst };
	unsigned long long seed = fuzz_seed();
	long i, n_v2 = writes * 6 / 10, n_sys = writes / 10, n_v1 = writes - n_v2 - n_sys;
	long long start = now_usec();
	struct bwm_sysctls msys;
	struct bwm_group g;
	char val[160];
	int ret;

	rng_state = seed ?: 1;
	tap_diag("write fuzz: %ld writes, seed %llu (burstcfs.seed=%llu repeats it)", writes, seed, seed);

	/* The defaults, which the model starts from. */
	burst_sysctls_default();
	bwm_sysctls_init(&msys);
	bwm_group_init(&g, &msys);
	ret = cg_write(CG2_ROOT, "cgroup.subtree_control", "+cpu");
	ret = ret ?: cg_create(FUZZ_V2);
	ret = ret ?: target_open(&v2t);
	for (i = 0; i < n_v2 && !ret; i++) {
		if (rnd(2)) {
			value(val, sizeof(val), 1 + rnd(rnd(8) ? 3 : 4));
			one_write(&max, &v2t, 0, val, v2_max, &g, v2_want);
		} else {
			value(val, sizeof(val), rnd(8) ? 1 : 2);
			if (!rnd(2))	/* bursts from none to 100 s */
				snprintf(val, sizeof(val), "%u\n", rnd(4) ? rnd(3000000) : rnd(100) * 1000000);
			one_write(&burst, &v2t, 1, val, v2_burst, &g, v2_want);
		}
	}
	target_close(&v2t);
	if (ret)
		tap_diag("the v2 group: %s", strerror(-ret));
	report(&max);
	report(&burst);

	ret = ret ?: target_open(&syst);
	for (i = 0; i < n_sys && !ret; i++) {
		value(val, sizeof(val), rnd(8) ? 1 : 2);
		if (!rnd(3))
			snprintf(val, sizeof(val), "%u\n", rnd(2) ? rnd(3) : rnd(120));
		if (rnd(2))
			one_write(&sys, &syst, 0, val, sys_enabled, &msys, sysctl_want);
		else
			one_write(&sys, &syst, 1, val, sys_onset, &msys, sysctl_want);
	}
	target_close(&syst);
	report(&sys);
	burst_sysctls_default();
	bwm_sysctls_init(&msys);
	if (rmdir(FUZZ_V2))
		tap_diag("rmdir %s: %s", FUZZ_V2, strerror(errno));

	/* v1 last: once mounted there, the cpu controller stays off v2. */
	bwm_group_init(&g, &msys);
	ret = ret ?: cg_mount_v1_cpu(FUZZ_V1_MNT);
	ret = ret ?: cg_create(FUZZ_V1);
	ret = ret ?: target_open(&v1t);
	if (ret)
		tap_diag("the v1 group: %s", strerror(-ret));
	for (i = 0; i < n_v1 && !ret; i++) {
		int f = rnd(3);

		value(val, sizeof(val), rnd(8) ? 1 : 2);
		if (f == 0 && !rnd(4))
			snprintf(val, sizeof(val), "-1\n");
		one_write(&v1, &v1t, f, val, v1_writers[f], &g, v1_want);
	}
	target_close(&v1t);
	report(&v1);
	tap_ok(max.writes + burst.writes + sys.writes + v1.writes >= writes,
	       "%ld writes in all, each checked, in %.1f s (asked for %ld)",
	       max.writes + burst.writes + sys.writes + v1.writes, (now_usec() - start) / 1e6, writes);
}
