// SPDX-License-Identifier: GPL-2.0
/*
 * Demand traces: CSV with a header and units, as `burstctl record` writes
 * them (docs/burstctl.md, "Trace format"):
 *
 *	# cpus: 2
 *	# monotonic_start_us: 73309123
 *	time_us,cpu_us,nr_throttled
 *	0,0,0
 *	10012,4980,0
 *
 * A row's cpu_us is the CPU the group used since the row before; the first
 * row marks the start. Lines starting with # are comments; "# key: value"
 * comments carry what the replay needs to know about the recording.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

struct parser {
	const char *name;
	char *err;
	size_t errlen;
	size_t line;		/* the line being parsed, from 1 */
	int columns;		/* 0 until the header is read */
	bool started;		/* the start row is read */
	uint64_t start_us, prev_us;
	size_t cap;
	struct bc_trace *t;
};

static int bad(struct parser *p, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(p->err, p->errlen, "%s:%zu: ", p->name, p->line);
	va_start(ap, fmt);
	if (n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* What is wrong with the whole file, not a line of it. */
static int bad_file(struct parser *p, const char *msg)
{
	snprintf(p->err, p->errlen, "%s: %s", p->name, msg);
	return -EINVAL;
}

/* "# key: value": the keys the replay needs. */
static int comment(struct parser *p, const char *s)
{
	char msg[256];
	uint64_t v;

	if (!strncmp(s, "# cpus: ", 8)) {
		if (bc_parse_count("cpus", s + 8, 1, 4096, &v, msg, sizeof(msg)))
			return bad(p, "%s", msg);
		p->t->cpus = (unsigned int)v;
	} else if (!strncmp(s, "# monotonic_start_us: ", 22)) {
		if (bc_parse_count("monotonic_start_us", s + 22, 0, UINT64_MAX / BC_NS_PER_US, &v,
				   msg, sizeof(msg)))
			return bad(p, "%s", msg);
		p->t->have_start = true;
		p->t->start_ns = v * BC_NS_PER_US;
	}
	return 0;
}

static int header(struct parser *p, const char *s)
{
	if (!strcmp(s, "time_us,cpu_us"))
		p->columns = 2;
	else if (!strcmp(s, "time_us,cpu_us,nr_throttled"))
		p->columns = 3;
	else
		return bad(p, "expected the header 'time_us,cpu_us' or 'time_us,cpu_us,nr_throttled', got '%.60s'", s);
	p->t->have_throttled = p->columns == 3;
	return 0;
}

/* One field of a row: a whole number up to max; *s moves past its comma. */
static int field(struct parser *p, char **s, const char *name, uint64_t max, uint64_t *v)
{
	char *end = strchr(*s, ','), msg[256];

	if (end)
		*end = '\0';
	if (bc_parse_count(name, *s, 0, max, v, msg, sizeof(msg)))
		return bad(p, "%s", msg);
	*s = end ? end + 1 : *s + strlen(*s);
	return 0;
}

static int append(struct parser *p, uint64_t t_us, uint64_t cpu_us)
{
	struct bc_trace *t = p->t;

	if (t->n == BC_TRACE_MAX_ROWS)
		return bad(p, "more than %d rows", BC_TRACE_MAX_ROWS);
	if (t->n == p->cap) {
		struct bwr_sample *s;

		p->cap = p->cap ? 2 * p->cap : 1024;
		s = realloc(t->s, p->cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->s = s;
	}
	t->s[t->n].t = (t_us - p->start_us) * BC_NS_PER_US;
	t->s[t->n++].cpu = cpu_us * BC_NS_PER_US;
	t->cpu += cpu_us * BC_NS_PER_US;
	return 0;
}

static int row(struct parser *p, char *s)
{
	uint64_t t_us, cpu_us, thr = 0;
	int ret, columns = 1;
	const char *c;

	for (c = s; (c = strchr(c, ',')); c++)
		columns++;
	if (columns != p->columns)
		return bad(p, "%d columns, the header has %d", columns, p->columns);
	ret = field(p, &s, "time_us", BC_TRACE_MAX_US, &t_us);
	if (!ret)
		ret = field(p, &s, "cpu_us", BC_TRACE_MAX_US, &cpu_us);
	if (!ret && p->columns == 3)
		ret = field(p, &s, "nr_throttled", UINT32_MAX, &thr);
	if (ret)
		return ret;
	if (!p->started) {
		if (cpu_us)
			return bad(p, "the first row marks the trace's start: its cpu_us must be 0, not %llu",
				   (unsigned long long)cpu_us);
		p->started = true;
		p->start_us = p->prev_us = t_us;
		return 0;
	}
	if (t_us <= p->prev_us)
		return bad(p, "time_us %llu is not after the row before's %llu",
			   (unsigned long long)t_us, (unsigned long long)p->prev_us);
	p->prev_us = t_us;
	p->t->throttled += thr;
	return append(p, t_us, cpu_us);
}

static int line(struct parser *p, char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\r')
		s[--n] = '\0';
	if (!n)
		return 0;
	if (s[0] == '#')
		return comment(p, s);
	if (!p->columns)
		return header(p, s);
	return row(p, s);
}

int bc_trace_parse(const char *name, const char *text, struct bc_trace *t, char *err, size_t len)
{
	struct parser p = { .name = name, .err = err, .errlen = len, .t = t };
	char *copy = strdup(text), *s, *next;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (!copy)
		return -ENOMEM;
	for (s = copy; s && !ret; s = next) {
		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		p.line++;
		ret = line(&p, s);
	}
	free(copy);
	if (!ret && !p.columns)
		ret = bad_file(&p, "no header: not a burstctl trace");
	else if (!ret && !t->n)
		ret = bad_file(&p, "no samples: a trace needs its start row and at least one more");
	if (ret == -ENOMEM)
		snprintf(err, len, "%s: out of memory", name);
	if (ret)
		bc_trace_free(t);
	return ret;
}

int bc_trace_load(const char *path, struct bc_trace *t, char *err, size_t len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	int c, ret;

	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	mem = open_memstream(&text, &size);
	if (!mem) {
		if (f != stdin)
			fclose(f);
		snprintf(err, len, "%s: out of memory", path);
		return -ENOMEM;
	}
	while ((c = getc(f)) != EOF)
		putc(c, mem);
	ret = ferror(f) ? -EIO : 0;
	fclose(mem);
	if (f != stdin)
		fclose(f);
	if (!ret && memchr(text, '\0', size))
		ret = -EINVAL;
	if (ret)
		snprintf(err, len, "%s: %s", path, ret == -EIO ? "read error" : "a NUL byte: not a text trace");
	else
		ret = bc_trace_parse(path, text, t, err, len);
	free(text);
	return ret;
}

void bc_trace_free(struct bc_trace *t)
{
	free(t->s);
	t->s = NULL;
	t->n = 0;
}

unsigned int bc_trace_cpus(const struct bc_trace *t)
{
	uint64_t most = 1, prev = 0;
	size_t i;

	if (t->cpus)
		return t->cpus;
	/* The trace does not say: what it shows it used at once, rounded up. */
	for (i = 0; i < t->n; prev = t->s[i++].t) {
		uint64_t dt = t->s[i].t - prev, at_once = (t->s[i].cpu + dt - 1) / dt;

		if (at_once > most)
			most = at_once;
	}
	return most > 4096 ? 4096 : (unsigned int)most;
}

void bc_trace_write_head(FILE *f, const struct bc_trace_meta *m)
{
	fprintf(f, "# burstctl record: %s (%s)\n", m->target, m->path);
	fprintf(f, "# cpu.max: %s\n", m->cpu_max);
	fprintf(f, "# cpu.max.burst: %s\n", m->cpu_max_burst);
	fprintf(f, "# cpus: %u\n", m->cpus);
	fprintf(f, "# interval_us: %llu\n", (unsigned long long)(m->interval_ns / BC_NS_PER_US));
	fprintf(f, "# monotonic_start_us: %llu\n", (unsigned long long)(m->start_ns / BC_NS_PER_US));
	fprintf(f, "time_us,cpu_us,nr_throttled\n");
}

void bc_trace_write_row(FILE *f, uint64_t t_us, uint64_t cpu_us, uint64_t throttled)
{
	fprintf(f, "%llu,%llu,%llu\n", (unsigned long long)t_us, (unsigned long long)cpu_us,
		(unsigned long long)throttled);
}
