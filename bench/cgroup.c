// SPDX-License-Identifier: GPL-2.0
/* Parsers for the kernel files burstbench and costbench report; no I/O here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bb.h"

const char *const bb_stat_names[BB_NSTAT] = {
	[BB_USAGE_USEC] = "usage_usec",
	[BB_NR_PERIODS] = "nr_periods",
	[BB_NR_THROTTLED] = "nr_throttled",
	[BB_THROTTLED_USEC] = "throttled_usec",
	[BB_NR_BURSTS] = "nr_bursts",
	[BB_BURST_USEC] = "burst_usec",
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

int bb_parse_u64(const char *text, uint64_t *v)
{
	const char *end;

	if (parse_num_at(text, v, &end))
		return -EINVAL;
	return *end && strcmp(end, "\n") ? -EINVAL : 0;
}

int bb_parse_cpustat(const char *text, struct bb_cpustat *st)
{
	const char *line = text, *end;
	int found = 0, i;

	memset(st, 0, sizeof(*st));
	while (*line) {
		size_t len = strcspn(line, " \n");

		for (i = 0; i < BB_NSTAT; i++) {
			uint64_t v;

			if (strlen(bb_stat_names[i]) != len || strncmp(line, bb_stat_names[i], len) ||
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

void bb_cpustat_delta(const struct bb_cpustat *before, const struct bb_cpustat *after,
		      struct bb_cpustat *delta)
{
	int i;

	for (i = 0; i < BB_NSTAT; i++) {
		delta->have[i] = before->have[i] && after->have[i];
		delta->v[i] = delta->have[i] && after->v[i] > before->v[i] ?
			      after->v[i] - before->v[i] : 0;
	}
}

int bb_parse_cpumax(const char *text, uint64_t *quota, uint64_t *period)
{
	const char *p = text;
	uint64_t q;

	if (!strncmp(p, "max ", 4)) {
		q = 0;
		p += 3;
	} else if (parse_num_at(p, &q, &p) || !q) {
		return -EINVAL;
	}
	if (*p != ' ' || bb_parse_u64(p + 1, period) || !*period)
		return -EINVAL;
	*quota = q;
	return 0;
}

int bb_own_cgroup(const char *proc_cgroup, char *out, size_t len)
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

int bb_cgroup_dir(const char *mountinfo, const char *cg, char *out, size_t len)
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

const char *const bb_procstat_names[BB_NPROCSTAT] = {
	[BB_CPU_USER] = "user",
	[BB_CPU_NICE] = "nice",
	[BB_CPU_SYSTEM] = "system",
	[BB_CPU_IDLE] = "idle",
	[BB_CPU_IOWAIT] = "iowait",
	[BB_CPU_IRQ] = "irq",
	[BB_CPU_SOFTIRQ] = "softirq",
	[BB_CPU_STEAL] = "steal",
};

int bb_parse_procstat(const char *text, struct bb_procstat *st)
{
	const char *p = text, *end;
	int i;

	/* The aggregate line comes first: "cpu" and spaces, then the ticks. */
	if (strncmp(p, "cpu ", 4))
		return -EINVAL;
	for (i = 0; i < BB_NPROCSTAT; i++) {
		while (*p == ' ' || (i == 0 && *p >= 'a' && *p <= 'z'))
			p++;
		if (parse_num_at(p, &st->v[i], &end))
			return -EINVAL;
		p = end;
	}
	return 0;
}
