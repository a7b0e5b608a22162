// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of kernel/series: see bw-model.h. Each function names
 * the kernel function it stands for; where the kernel's behaviour is not
 * obvious from the rules in docs/kernel.md, the comment says why.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bw-model.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

void bwm_sysctls_init(struct bwm_sysctls *sys)
{
	sys->burst_enabled = 1;
	sys->onset_percent = 0;
}

void bwm_group_init(struct bwm_group *g, const struct bwm_sysctls *sys)
{
	memset(g, 0, sizeof(*g));
	g->sys = sys;
	g->quota = BWM_INF;
	g->period = BWM_DEFAULT_PERIOD;
}

/* cfs_bandwidth_buffer() */
uint64_t bwm_cap(const struct bwm_group *g)
{
	if (!g->sys->burst_enabled)
		return g->quota;
	return MIN(g->quota + g->burst, BWM_MAX_RUNTIME);
}

/* cfs_bandwidth_credit(): periods beyond those that fill the pool add nothing */
static uint64_t credit(const struct bwm_group *g, uint64_t periods)
{
	uint64_t fill = bwm_cap(g) / g->quota + 1;

	return g->quota * MIN(periods, fill);
}

/* __refill_cfs_bandwidth_runtime() */
void bwm_refill(struct bwm_group *g, uint64_t periods)
{
	int64_t over;

	if (g->quota == BWM_INF || !periods)
		return;
	g->pool += credit(g, periods);
	/* What was used since the last refill beyond the quota just added */
	over = (int64_t)(g->snap - g->pool);
	if (over > 0) {
		g->burst_time += over;
		g->nr_bursts++;
	}
	g->pool = MIN(g->pool, bwm_cap(g));
	g->snap = g->pool;
}

uint64_t bwm_spend(struct bwm_group *g, uint64_t want)
{
	uint64_t got;

	if (g->quota == BWM_INF)
		return want;
	got = MIN(want, g->pool);
	g->pool -= got;
	return got;
}

uint64_t bwm_available(const struct bwm_group *g)
{
	return g->quota == BWM_INF ? 0 : g->pool;
}

/* The onset share of @burst (cfs_bandwidth_onset()) */
static uint64_t onset(const struct bwm_group *g, uint64_t burst)
{
	return burst * g->sys->onset_percent / 100;
}

/* tg_set_cfs_bandwidth() and __set_cfs_bandwidth_pool() */
int bwm_set(struct bwm_group *g, uint64_t period, uint64_t quota, uint64_t burst)
{
	bool was_limited = g->quota != BWM_INF;
	uint64_t old_burst = g->burst, pool;

	if (quota < BWM_MIN_PERIOD || period < BWM_MIN_PERIOD)
		return -EINVAL;
	if (period > BWM_MAX_PERIOD)
		return -EINVAL;
	if (quota != BWM_INF && quota > BWM_MAX_RUNTIME)
		return -EINVAL;
	if (burst > BWM_MAX_RUNTIME)
		return -EINVAL;

	g->period = period;
	g->quota = quota;
	g->burst = burst;
	if (quota == BWM_INF)
		pool = 0;
	else if (!was_limited)
		pool = quota + onset(g, burst);
	else if (burst > old_burst)
		pool = g->pool + onset(g, burst - old_burst);
	else
		pool = g->pool;
	if (quota != BWM_INF)
		pool = MIN(pool, bwm_cap(g));
	/* Not spent: kept out of the burst statistics */
	if (was_limited)
		g->snap += pool - g->pool;
	else
		g->snap = pool;
	g->pool = pool;
	return 0;
}

/* cfs_bandwidth_switch_burst(): __set_cfs_bandwidth_burst_enabled() */
void bwm_burst_switched(struct bwm_group *g)
{
	uint64_t pool;

	if (g->quota == BWM_INF)
		return;
	pool = MIN(g->pool, bwm_cap(g));
	g->snap -= g->pool - pool;
	g->pool = pool;
}

/* sched_cfs_period_timer(), when a period is too short to be enforced */
void bwm_scale_period(struct bwm_group *g)
{
	uint64_t period = g->period * 2;

	if (period >= BWM_MAX_PERIOD)
		return;
	g->period = period;
	g->quota = MIN(g->quota * 2, BWM_MAX_RUNTIME);
	g->burst = MIN(g->burst * 2, BWM_MAX_RUNTIME);
}

/* --- the kernel's parsers ------------------------------------------------ */

/* lib/ctype.c: the kernel's white space includes Latin-1's no-break space */
static bool k_isspace(unsigned char c)
{
	return (c >= '\t' && c <= '\r') || c == ' ' || c == 0xa0;
}

static bool k_isxdigit(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* _parse_integer_fixup_radix() */
static const char *fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' && k_isxdigit(s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

/* _parse_integer(): characters used, with *overflow set as the kernel does */
static size_t parse_integer(const char *s, unsigned int base, unsigned long long *p,
			    bool *overflow)
{
	unsigned long long res = 0;
	size_t n = 0;

	*overflow = false;
	for (;; s++, n++) {
		unsigned int c = (unsigned char)*s, lc = c | 0x20, val;

		if (c >= '0' && c <= '9')
			val = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			val = lc - 'a' + 10;
		else
			break;
		if (val >= base)
			break;
		if ((res & (~0ULL << 60)) && res > (ULLONG_MAX - val) / base)
			*overflow = true;
		res = res * base + val;
	}
	*p = res;
	return n;
}

/* _kstrtoull() */
static int kstrtoull_nosign(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	bool overflow;
	size_t n;

	s = fixup_radix(s, &base);
	n = parse_integer(s, base, &v, &overflow);
	if (overflow)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

int bwm_kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return kstrtoull_nosign(s, base, res);
}

int bwm_kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	int ret;

	if (s[0] == '-') {
		ret = kstrtoull_nosign(s + 1, base, &v);
		if (ret)
			return ret;
		if ((long long)-v > 0)
			return -ERANGE;
		*res = (long long)-v;
	} else {
		ret = bwm_kstrtoull(s, base, &v);
		if (ret)
			return ret;
		if ((long long)v < 0)
			return -ERANGE;
		*res = (long long)v;
	}
	return 0;
}

/* --- cgroup files ---------------------------------------------------------- */

/* cpu_max_usec(): a whole decimal field in microseconds, in nanoseconds */
static int max_field_usec(const char *field, uint64_t *nsec)
{
	unsigned long long usec;

	if (bwm_kstrtoull(field, 10, &usec) || usec > UINT64_MAX / BWM_NSEC_PER_USEC)
		return -EINVAL;
	*nsec = usec * BWM_NSEC_PER_USEC;
	return 0;
}

/*
 * kernfs_fop_write_iter(): a cgroup file takes at most a page in one write,
 * as a string ending at the first NUL.
 */
#define CGROUP_WRITE_MAX 4096

static int cgroup_buf(char *dst, const char *buf, size_t len)
{
	if (len > CGROUP_WRITE_MAX)
		return -E2BIG;
	memcpy(dst, buf, len);
	dst[len] = '\0';
	return 0;
}

/* cpu_max_write(): "$MAX [$PERIOD [$BURST]]", every field whole */
int bwm_write_cpu_max(struct bwm_group *g, const char *buf, size_t len)
{
	uint64_t period = g->period, burst = g->burst, quota;
	char copy[CGROUP_WRITE_MAX + 1], *fields[3], *p = copy;
	int n = 0, ret;

	if (!len)
		return 0;
	ret = cgroup_buf(copy, buf, len);
	if (ret)
		return ret;
	for (;;) {
		while (k_isspace(*p))
			p++;
		if (!*p)
			break;
		if (n == 3)
			return -EINVAL;
		fields[n++] = p;
		while (*p && !k_isspace(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (n < 1)
		return -EINVAL;
	if (n > 1 && max_field_usec(fields[1], &period))
		return -EINVAL;
	if (n > 2 && max_field_usec(fields[2], &burst))
		return -EINVAL;
	if (!strcmp(fields[0], "max"))
		quota = BWM_INF;
	else if (max_field_usec(fields[0], &quota))
		return -EINVAL;
	return bwm_set(g, period, quota, burst);
}

/* cgroup_file_write() for a write_u64 file: kstrtoull(buf, 0) */
static int write_u64(const char *buf, size_t len, unsigned long long *v)
{
	char copy[CGROUP_WRITE_MAX + 1];
	int ret = cgroup_buf(copy, buf, len);

	return ret ? ret : bwm_kstrtoull(copy, 0, v);
}

/*
 * A write_u64 file in microseconds: tg_set_cfs_burst() and
 * tg_set_cfs_period() refuse what overflows nanoseconds before their own
 * range checks.
 */
static int write_usec(const char *buf, size_t len, uint64_t *nsec)
{
	unsigned long long usec;
	int ret = write_u64(buf, len, &usec);

	if (ret)
		return ret;
	if (usec > UINT64_MAX / BWM_NSEC_PER_USEC)
		return -EINVAL;
	*nsec = usec * BWM_NSEC_PER_USEC;
	return 0;
}

/* tg_set_cfs_burst(), for cpu.max.burst and cpu.cfs_burst_us alike */
int bwm_write_cpu_max_burst(struct bwm_group *g, const char *buf, size_t len)
{
	uint64_t burst;
	int ret;

	if (!len)
		return 0;
	ret = write_usec(buf, len, &burst);
	return ret ? ret : bwm_set(g, g->period, g->quota, burst);
}

int bwm_write_cfs_burst_us(struct bwm_group *g, const char *buf, size_t len)
{
	return bwm_write_cpu_max_burst(g, buf, len);
}

/* cgroup_file_write() for write_s64, then tg_set_cfs_quota(): negative is no limit */
int bwm_write_cfs_quota_us(struct bwm_group *g, const char *buf, size_t len)
{
	char copy[CGROUP_WRITE_MAX + 1];
	long long usec;
	int ret;

	if (!len)
		return 0;
	ret = cgroup_buf(copy, buf, len);
	if (!ret)
		ret = bwm_kstrtoll(copy, 0, &usec);
	if (ret)
		return ret;
	if (usec < 0)
		return bwm_set(g, g->period, BWM_INF, g->burst);
	if ((unsigned long long)usec > UINT64_MAX / BWM_NSEC_PER_USEC)
		return -EINVAL;
	return bwm_set(g, g->period, (uint64_t)usec * BWM_NSEC_PER_USEC, g->burst);
}

/* tg_set_cfs_period() */
int bwm_write_cfs_period_us(struct bwm_group *g, const char *buf, size_t len)
{
	uint64_t period;
	int ret;

	if (!len)
		return 0;
	ret = write_usec(buf, len, &period);
	return ret ? ret : bwm_set(g, period, g->quota, g->burst);
}

/* cpu_period_quota_print() */
void bwm_read_cpu_max(const struct bwm_group *g, char *buf, size_t len)
{
	if (g->quota == BWM_INF)
		snprintf(buf, len, "max %lld\n", bwm_period_us(g));
	else
		snprintf(buf, len, "%lld %lld\n", bwm_quota_us(g), bwm_period_us(g));
}

long long bwm_quota_us(const struct bwm_group *g)
{
	return g->quota == BWM_INF ? -1 : (long long)(g->quota / BWM_NSEC_PER_USEC);
}

long long bwm_period_us(const struct bwm_group *g)
{
	return (long long)(g->period / BWM_NSEC_PER_USEC);
}

long long bwm_burst_us(const struct bwm_group *g)
{
	return (long long)(g->burst / BWM_NSEC_PER_USEC);
}

/* --- sysctls: proc_douintvec_minmax() -------------------------------------- */

/*
 * do_proc_douintvec_w() with proc_get_long(): leading white space, one
 * unsigned number in any C base (strtoul_lenient(), base 0) of at most 20
 * characters, followed by nothing or a space, tab or newline (the rest is
 * ignored); everything else, and any value out of range, is -EINVAL. Only
 * the first PAGE_SIZE - 1 bytes of a write are looked at: a number that
 * straddles that point is cut there.
 */
static int write_uint_minmax(unsigned int *val, const char *buf, size_t len,
			     unsigned int min, unsigned int max)
{
	char tmp[22];
	unsigned long long v;
	size_t n, used;
	bool overflow;
	const char *p;

	if (!len)
		return 0;
	len = MIN(len, BWM_PAGE_SIZE - 1);
	while (len && k_isspace(*buf)) {
		buf++;
		len--;
	}
	if (!len)
		return -EINVAL;
	n = MIN(len, sizeof(tmp) - 1);
	memcpy(tmp, buf, n);
	tmp[n] = '\0';
	p = tmp;
	if (*p == '-' && len > 1)
		return -EINVAL;	/* negative: refused whatever follows */
	if (*p < '0' || *p > '9')
		return -EINVAL;
	{
		unsigned int base = 0;

		p = fixup_radix(p, &base);
		p += parse_integer(p, base, &v, &overflow);
	}
	if (overflow)
		return -EINVAL;
	used = (size_t)(p - tmp);
	if (used == sizeof(tmp) - 1)
		return -EINVAL;
	if (used < len && *p != ' ' && *p != '\t' && *p != '\n')
		return -EINVAL;
	if (v > UINT_MAX || v < min || v > max)
		return -EINVAL;
	*val = (unsigned int)v;
	return 0;
}

int bwm_write_burst_enabled(struct bwm_sysctls *sys, const char *buf, size_t len)
{
	return write_uint_minmax(&sys->burst_enabled, buf, len, 0, 1);
}

int bwm_write_onset_percent(struct bwm_sysctls *sys, const char *buf, size_t len)
{
	return write_uint_minmax(&sys->onset_percent, buf, len, 0, 100);
}
