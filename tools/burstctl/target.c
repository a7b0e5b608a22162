// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 groups: finding the one a target names (a directory, a path
 * below the cgroup2 mount, a podman container), finding every limited one,
 * and reading their bandwidth files. The file formats are lib/cgroup.c's
 * parsers, shared with burstbench.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bc.h"
#include "../../lib/cgfile.h"

#define MAX_DEPTH	64
#define ID_LEN		64	/* podman's container ids: sha256 in hex */

uint64_t bc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * BC_NS_PER_S + (uint64_t)ts.tv_nsec;
}

int bc_cgroup_root(char *out, size_t len)
{
	static char mountinfo[1 << 20];
	int ret = cgfile_read("/proc/self", "mountinfo", mountinfo, sizeof(mountinfo));

	return ret ? ret : cg_dir(mountinfo, "/", out, len);
}

int bc_stat_key(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *line;

	for (line = text; *line; line += strcspn(line, "\n"), line += *line == '\n') {
		if (!strncmp(line, key, klen) && line[klen] == ' ' && line[klen + 1] >= '0' &&
		    line[klen + 1] <= '9') {
			*v = strtoull(line + klen + 1, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}

int bc_read(const char *dir, struct bc_reading *r)
{
	uint64_t t0 = bc_now_ns();
	char buf[4096];
	int ret;

	memset(r, 0, sizeof(*r));
	ret = cgfile_read(dir, "cpu.stat", buf, sizeof(buf));
	if (ret)
		return ret;
	/* The counters are somewhere within the read: take its middle. */
	r->time_ns = t0 + (bc_now_ns() - t0) / 2;
	if (cg_parse_cpustat(buf, &r->st) < 1)
		return -EPROTO;
	r->have_pool = !bc_stat_key(buf, "current_bw_usec", &r->pool_us);
	/* No cpu.max: the cpu controller is off here, so there is no limit either. */
	if (!cgfile_read(dir, "cpu.max", buf, sizeof(buf)) &&
	    cg_parse_cpumax(buf, &r->quota_us, &r->period_us))
		return -EPROTO;
	r->have_burst = !cgfile_read(dir, "cpu.max.burst", buf, sizeof(buf)) &&
			!cg_parse_u64(buf, &r->burst_us);
	return 0;
}

unsigned int bc_cpulist_count(const char *s)
{
	unsigned int n = 0;
	char *end;

	while (*s && *s != '\n') {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return 0;
		if (*end == '-') {
			s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s || hi < lo)
				return 0;
		}
		n += (unsigned int)(hi - lo + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return 0;
	}
	return n;
}

unsigned int bc_group_cpus(const char *dir)
{
	char buf[4096];
	unsigned int n = 0;
	long online;

	if (!cgfile_read(dir, "cpuset.cpus.effective", buf, sizeof(buf)))
		n = bc_cpulist_count(buf);
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (!n || (online > 0 && n > online))
		n = online > 0 ? (unsigned int)online : 1;
	return n;
}

static bool is_hex(const char *s)
{
	return *s && strspn(s, "0123456789abcdef") == strlen(s);
}

/* Every podman id in a label cut to the 12 characters podman shows. */
static void shorten_ids(char *label)
{
	char *p = label;
	size_t len;

	if (strlen(label) == ID_LEN && is_hex(label)) {
		label[12] = '\0';
		return;
	}
	while ((p = strstr(p, "libpod-"))) {
		p += 7;
		len = strspn(p, "0123456789abcdef");
		if (len == ID_LEN)
			memmove(p + 12, p + ID_LEN, strlen(p + ID_LEN) + 1);
	}
}

/* --- walking the tree --------------------------------------------------------- */

typedef int (*visit_fn)(const char *dir, const char *name, void *arg);

/* Call fn on every directory below dir, parents first; stops at fn's non-zero. */
static int walk(const char *dir, int depth, visit_fn fn, void *arg)
{
	struct dirent *e;
	int ret = 0;
	DIR *d;

	if (depth > MAX_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;	/* gone meanwhile, or not ours to read */
	while (!ret && (e = readdir(d))) {
		char sub[4096];

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		ret = fn(sub, e->d_name, arg);
		if (!ret)
			ret = walk(sub, depth + 1, fn, arg);
	}
	closedir(d);
	return ret;
}

/* The container id in a podman cgroup's name (libpod-ID.scope or libpod-ID), or NULL. */
static const char *podman_id(const char *name, size_t *len)
{
	if (strncmp(name, "libpod-", 7) || !strncmp(name, "libpod-conmon-", 14))
		return NULL;
	name += 7;
	*len = strspn(name, "0123456789abcdef");
	if (*len != ID_LEN || (name[*len] && strcmp(name + *len, ".scope")))
		return NULL;
	return name;
}

struct id_search {
	const char *prefix;
	char dir[4096];
	char id[ID_LEN + 1];
	int found;		/* distinct containers matched */
};

static int match_id(const char *dir, const char *name, void *arg)
{
	struct id_search *s = arg;
	size_t len;
	const char *id = podman_id(name, &len);

	if (!id || strncmp(id, s->prefix, strlen(s->prefix)))
		return 0;
	if (s->found && !strncmp(s->id, id, ID_LEN))
		return 0;	/* the same container seen twice: keep the first */
	if (!s->found) {
		snprintf(s->dir, sizeof(s->dir), "%s", dir);
		memcpy(s->id, id, ID_LEN);
	}
	s->found++;
	return 0;
}


/* The one child group of dir in child; how many it has. */
static int only_child(const char *dir, char *child, size_t len)
{
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (!n++ && snprintf(child, len, "%s/%s", dir, e->d_name) >= (int)len)
			n = 2;	/* too long to follow */
	}
	closedir(d);
	return n;
}

/*
 * Where a container's processes and its limit are: crun's systemd driver
 * puts them in a child of the scope (".../libpod-ID.scope/container"). Go
 * down while a group holds no process and has one child.
 */
static void container_leaf(char *dir, size_t len)
{
	char procs[64], child[4096];
	int depth;

	for (depth = 0; depth < 8; depth++) {
		if (cgfile_read(dir, "cgroup.procs", procs, sizeof(procs)) || procs[0] ||
		    only_child(dir, child, sizeof(child)) != 1)
			return;
		snprintf(dir, len, "%s", child);
	}
}

/* Search root for the container with this id (or prefix). 1 found, 0 not, -EINVAL ambiguous. */
static int find_container(const char *root, const char *prefix, struct bc_group *g)
{
	struct id_search s = { .prefix = prefix };

	walk(root, 0, match_id, &s);
	if (s.found > 1)
		return -EINVAL;
	if (s.found) {
		snprintf(g->dir, sizeof(g->dir), "%s", s.dir);
		container_leaf(g->dir, sizeof(g->dir));
	}
	return s.found;
}

/* Ask podman for a container's id; 0, or -ENOENT when it does not know it. */
static int podman_lookup(const char *name, char *id, size_t len)
{
	const char *podman = getenv("BURSTCTL_PODMAN") ?: "podman";
	int out[2], status;
	ssize_t n = 0, r;
	pid_t pid;

	if (pipe2(out, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out[1], 1);
		dup2(null, 2);
		execlp(podman, podman, "container", "inspect", "--format", "{{.Id}}", "--", name,
		       (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	while (n < (ssize_t)len - 1 && (r = read(out[0], id + n, len - 1 - n)) > 0)
		n += r;
	close(out[0]);
	id[n] = '\0';
	id[strcspn(id, "\n")] = '\0';
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    strlen(id) != ID_LEN || !is_hex(id))
		return -ENOENT;
	return 0;
}

static bool is_group(const char *dir)
{
	char path[4352];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return !access(path, F_OK);
}

static int resolve_word(const char *root, const char *target, struct bc_group *g,
			char *err, size_t len)
{
	char id[ID_LEN + 2];
	int found = 0;

	if (is_hex(target) && strlen(target) >= 3)
		found = find_container(root, target, g);
	if (found < 0)
		return bc_err(-EINVAL, err, len, "'%s': more than one podman container's id starts so: give more of it", target);
	if (found)
		return 0;
	snprintf(g->dir, sizeof(g->dir), "%s/%s", root, target);
	if (is_group(g->dir))
		return 0;
	if (!podman_lookup(target, id, sizeof(id)) && find_container(root, id, g) == 1)
		return 0;
	return bc_err(-ENOENT, err, len, "'%s': no such cgroup below %s, nor a running podman container", target, root);
}

int bc_resolve(const char *root, const char *target, struct bc_group *g, char *err, size_t len)
{
	int ret = 0;

	memset(g, 0, sizeof(*g));
	snprintf(g->label, sizeof(g->label), "%s", target);
	shorten_ids(g->label);
	if (!*target)
		return bc_err(-EINVAL, err, len, "an empty target: name a cgroup or a podman container");
	if (target[0] == '/' || target[0] == '.')
		snprintf(g->dir, sizeof(g->dir), "%s", target);
	else if (strchr(target, '/'))
		snprintf(g->dir, sizeof(g->dir), "%s/%s", root, target);
	else
		ret = resolve_word(root, target, g, err, len);
	if (!ret && !is_group(g->dir))
		return bc_err(-ENOENT, err, len, "'%s': %s is not a cgroup v2 directory", target, g->dir);
	return ret;
}

/* --- every limited group ------------------------------------------------------ */

struct list {
	const char *root;
	struct bc_group *g;
	size_t n, cap;
};

/* The path below root. */
static void label_of(const char *root, const char *dir, char *out, size_t len)
{
	const char *rel = dir + strlen(root);

	snprintf(out, len, "%s", rel + (*rel == '/'));
	shorten_ids(out);
}

static int add_limited(const char *dir, const char *name, void *arg)
{
	struct list *l = arg;
	char buf[256];
	uint64_t quota, period;

	(void)name;
	if (cgfile_read(dir, "cpu.max", buf, sizeof(buf)) || cg_parse_cpumax(buf, &quota, &period) ||
	    !quota)
		return 0;
	if (l->n == l->cap) {
		struct bc_group *g = realloc(l->g, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		l->g = g;
	}
	snprintf(l->g[l->n].dir, sizeof(l->g[l->n].dir), "%s", dir);
	label_of(l->root, dir, l->g[l->n].label, sizeof(l->g[l->n].label));
	l->n++;
	return 0;
}

static int by_dir(const void *a, const void *b)
{
	return strcmp(((const struct bc_group *)a)->dir, ((const struct bc_group *)b)->dir);
}

int bc_limited_groups(const char *root, struct bc_group **groups, size_t *n)
{
	struct list l = { .root = root };
	int ret = walk(root, 0, add_limited, &l);

	if (ret) {
		free(l.g);
		return ret;
	}
	qsort(l.g, l.n, sizeof(*l.g), by_dir);
	*groups = l.g;
	*n = l.n;
	return 0;
}
