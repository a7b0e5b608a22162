// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers for the kernel files burstbench, costbench and burstctl read
 * (cgroup.h); no I/O here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

const char *const cg_stat_names[CG_NSTAT] = {
	[CG_USAGE_USEC] = "usage_usec",
	[CG_NR_PERIODS] = "nr_periods",
	[CG_NR_THROTTLED] = "nr_throttled",
	[CG_THROTTLED_USEC] = "throttled_usec",
	[CG_NR_BURSTS] = "nr_bursts",
	[CG_BURST_USEC] = "burst_usec",
};

/* A decimal number ending at a space, newline or NUL; *end past it. */
static int parse_num_at(const char *s, uint64_t *v, const char **end)
{
	unsigned long long x;
	char *e;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (errno || (*e && *e != ' ' && *e != '\n'))
		return -EINVAL;
	*v = x;
	*end = e;
	return 0;
}

int cg_parse_u64(const char *text, uint64_t *v)
{
	const char *end;

	if (parse_num_at(text, v, &end))
		return -EINVAL;
	return *end && strcmp(end, "\n") ? -EINVAL : 0;
}

int cg_parse_cpustat(const char *text, struct cg_cpustat *st)
{
	const char *line = text, *end;
	int found = 0, i;

	memset(st, 0, sizeof(*st));
	while (*line) {
		size_t len = strcspn(line, " \n");

		for (i = 0; i < CG_NSTAT; i++) {
			uint64_t v;

			if (strlen(cg_stat_names[i]) != len || strncmp(line, cg_stat_names[i], len) ||
			    line[len] != ' ' || parse_num_at(line + len + 1, &v, &end))
				continue;
			if (!st->have[i])
				found++;
			st->v[i] = v;
			st->have[i] = true;
		}
		line += strcspn(line, "\n");
		if (*line)
			line++;
	}
	return found;
}

void cg_cpustat_delta(const struct cg_cpustat *before, const struct cg_cpustat *after,
		      struct cg_cpustat *delta)
{
	int i;

	for (i = 0; i < CG_NSTAT; i++) {
		delta->have[i] = before->have[i] && after->have[i];
		delta->v[i] = delta->have[i] && after->v[i] > before->v[i] ?
			      after->v[i] - before->v[i] : 0;
	}
}

int cg_parse_cpumax(const char *text, uint64_t *quota, uint64_t *period)
{
	const char *p = text;
	uint64_t q;

	if (!strncmp(p, "max ", 4)) {
		q = 0;
		p += 3;
	} else if (parse_num_at(p, &q, &p) || !q) {
		return -EINVAL;
	}
	if (*p != ' ' || cg_parse_u64(p + 1, period) || !*period)
		return -EINVAL;
	*quota = q;
	return 0;
}

int cg_own(const char *proc_cgroup, char *out, size_t len)
{
	const char *line = proc_cgroup;

	while (*line) {
		size_t n = strcspn(line, "\n");

		if (!strncmp(line, "0::", 3) && n > 3) {
			if (n - 3 >= len)
				return -ENAMETOOLONG;
			memcpy(out, line + 3, n - 3);
			out[n - 3] = '\0';
			return 0;
		}
		line += n;
		if (*line)
			line++;
	}
	return -ENOENT;
}

/* Copy one space-separated mountinfo field, undoing its \NNN escapes. */
static const char *field(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (*s && *s != ' ' && *s != '\n') {
		char c = *s++;

		if (c == '\\' && s[0] >= '0' && s[0] <= '7' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (n + 1 < len)
			out[n++] = c;
	}
	out[n] = '\0';
	return *s == ' ' ? s + 1 : s;
}

int cg_dir(const char *mountinfo, const char *cg, char *out, size_t len)
{
	const char *line = mountinfo;
	char root[4096], mnt[4096], fstype[64];

	while (*line) {
		const char *p = line, *sep;
		size_t n = strcspn(line, "\n"), rlen;
		int i, w;

		sep = strstr(line, " - ");
		if (sep && sep < line + n) {
			field(sep + 3, fstype, sizeof(fstype));
			if (!strcmp(fstype, "cgroup2")) {
				for (i = 0; i < 3; i++)	/* id, parent, major:minor */
					p = field(p, mnt, sizeof(mnt));
				p = field(p, root, sizeof(root));
				field(p, mnt, sizeof(mnt));
				rlen = strlen(root);
				if (!strcmp(root, "/"))
					rlen = 0;
				else if (strncmp(cg, root, rlen) || (cg[rlen] && cg[rlen] != '/'))
					rlen = 0;	/* outside the mount's root: best effort */
				if (!strcmp(cg + rlen, "/"))
					rlen = strlen(cg);
				w = snprintf(out, len, "%s%s", mnt, cg + rlen);
				return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
			}
		}
		line += n;
		if (*line)
			line++;
	}
	return -ENOENT;
}

const char *const cg_procstat_names[CG_NPROCSTAT] = {
	[CG_CPU_USER] = "user",
	[CG_CPU_NICE] = "nice",
	[CG_CPU_SYSTEM] = "system",
	[CG_CPU_IDLE] = "idle",
	[CG_CPU_IOWAIT] = "iowait",
	[CG_CPU_IRQ] = "irq",
	[CG_CPU_SOFTIRQ] = "softirq",
	[CG_CPU_STEAL] = "steal",
};

int cg_parse_procstat(const char *text, struct cg_procstat *st)
{
	const char *p = text, *end;
	int i;

	/* The aggregate line comes first: "cpu" and spaces, then the ticks. */
	if (strncmp(p, "cpu ", 4))
		return -EINVAL;
	for (i = 0; i < CG_NPROCSTAT; i++) {
		while (*p == ' ' || (i == 0 && *p >= 'a' && *p <= 'z'))
			p++;
		if (parse_num_at(p, &st->v[i], &end))
			return -EINVAL;
		p = end;
	}
	return 0;
}
