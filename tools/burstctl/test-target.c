// SPDX-License-Identifier: GPL-2.0
/*
 * Finding groups in a made-up cgroup tree (--root): directories, paths,
 * podman ids and names, the limited ones; reading their files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bc.h"
#include "test.h"

#define ID_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_B "0123ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"

static char root[4096], err[512];

static const char stat_a[] =
	"usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnr_periods 150\n"
	"nr_throttled 12\nthrottled_usec 456789\nnr_bursts 70\nburst_usec 2100000\n"
	"current_bw_usec 30000\n";
static const char stat_stock[] =
	"usage_usec 99\nuser_usec 1\nsystem_usec 2\nnr_periods 1\nnr_throttled 0\n"
	"throttled_usec 0\nnr_bursts 0\nburst_usec 0\n";

/* A group below root: cgroup.procs, and cpu.max/cpu.max.burst/cpu.stat when given. */
static void group(const char *rel, const char *max, const char *burst, const char *stat)
{
	char dir[4352];

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	if (mkdir(dir, 0755) && errno != EEXIST)
		tap_bail("mkdir %s", dir);
	write_file(dir, "cgroup.procs", "");
	if (max)
		write_file(dir, "cpu.max", max);
	if (burst)
		write_file(dir, "cpu.max.burst", burst);
	if (stat)
		write_file(dir, "cpu.stat", stat);
}

/* The made-up tree, shared with test-cli.c through tmp/cg. */
static void make_tree(const char *tmp)
{
	snprintf(root, sizeof(root), "%s/cg", tmp);
	mkdir(root, 0755);
	write_file(root, "cgroup.procs", "");
	group("machine.slice", NULL, NULL, stat_stock);
	/* crun's systemd driver: the processes and the limit in a child of the scope */
	group("machine.slice/libpod-" ID_A ".scope", "max 100000\n", "0\n", stat_stock);
	group("machine.slice/libpod-" ID_A ".scope/container", "10000 100000\n", "20000\n", stat_a);
	group("machine.slice/libpod-conmon-" ID_A ".scope", "max 100000\n", "0\n", stat_stock);
	group("system.slice", NULL, NULL, stat_stock);
	group("system.slice/web.service", "50000 100000\n", "0\n", stat_stock);
	group("user.slice", "max 100000\n", "0\n", stat_stock);
	group("not-a-group", NULL, NULL, NULL);
	snprintf(err, sizeof(err), "%.400s/not-a-group/cgroup.procs", root);
	unlink(err);
}

static void resolves(const char *target, const char *dir_suffix, const char *label)
{
	struct bc_group g;
	int ret = bc_resolve(root, target, &g, err, sizeof(err));
	size_t n = strlen(g.dir), m = strlen(dir_suffix);

	tap_ok(!ret && n >= m && !strcmp(g.dir + n - m, dir_suffix) && !strcmp(g.label, label),
	       "target '%.20s' is %s, shown as '%s' (got %s, '%s')", target, dir_suffix, label,
	       ret ? err : g.dir, g.label);
}

static void refused(const char *target, int want, const char *why)
{
	struct bc_group g;
	int ret = bc_resolve(root, target, &g, err, sizeof(err));

	tap_ok(ret == want && strstr(err, why), "target '%s' refused: %s", target, ret ? err : "found");
}

static void test_resolve(const char *tmp)
{
	char podman[4352], script[4600], path[4352];

	resolves("0123456", "/libpod-" ID_A ".scope/container", "0123456");
	resolves(ID_A, "/libpod-" ID_A ".scope/container", "0123456789ab");
	resolves("machine.slice/libpod-" ID_A ".scope", "/libpod-" ID_A ".scope",
		 "machine.slice/libpod-0123456789ab.scope");
	resolves("system.slice", "/cg/system.slice", "system.slice");
	resolves(root, "/cg", root);
	snprintf(path, sizeof(path), "%s/not-a-group", root);
	refused(path, -ENOENT, "is not a cgroup v2 directory");
	refused("", -EINVAL, "an empty target");
	group("machine.slice/libpod-" ID_B ".scope", "max 100000\n", "0\n", stat_stock);
	refused("0123", -EINVAL, "more than one podman container's id starts so");
	resolves("01234", "/libpod-" ID_A ".scope/container", "01234");

	/* Names go to podman: a stand-in that knows one container, "web". */
	snprintf(podman, sizeof(podman), "%s/podman", tmp);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n[ \"$1 $2 $3 $4 $5\" = 'container inspect --format {{.Id}} --' ] && [ \"$6\" = web ] && echo %s\n",
		 ID_A);
	write_file(tmp, "podman", script);
	chmod(podman, 0755);
	setenv("BURSTCTL_PODMAN", podman, 1);
	resolves("web", "/libpod-" ID_A ".scope/container", "web");
	refused("db", -ENOENT, "'db': no such cgroup below");
	setenv("BURSTCTL_PODMAN", "/nonexistent/podman", 1);
	refused("web", -ENOENT, "nor a running podman container");
	unsetenv("BURSTCTL_PODMAN");
}

static void test_limited(void)
{
	struct bc_group *g = NULL;
	size_t n = 0;
	int ret = bc_limited_groups(root, &g, &n);

	tap_ok(!ret && n == 2 &&
	       !strcmp(g[0].label, "machine.slice/libpod-0123456789ab.scope/container") &&
	       !strcmp(g[1].label, "system.slice/web.service"),
	       "the limited groups: the container and web.service, by path (%zu found)", n);
	free(g);
}

static void test_read(void)
{
	struct bc_reading r;
	char dir[4352];

	snprintf(dir, sizeof(dir), "%s/machine.slice/libpod-%s.scope/container", root, ID_A);
	tap_ok(!bc_read(dir, &r) && r.quota_us == 10000 && r.period_us == 100000 && r.have_burst &&
	       r.burst_us == 20000 && r.have_pool && r.pool_us == 30000 &&
	       r.st.v[CG_NR_THROTTLED] == 12 && r.st.v[CG_BURST_USEC] == 2100000 && r.time_ns,
	       "read: limit, burst, pool and counters");
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	tap_ok(!bc_read(dir, &r) && !r.quota_us && !r.have_burst && !r.have_pool &&
	       r.st.v[CG_USAGE_USEC] == 99, "read: no cpu.max, no burst, no pool: still the usage");
	snprintf(dir, sizeof(dir), "%s/gone", root);
	tap_ok(bc_read(dir, &r) == -ENOENT, "read: a group that is gone: -ENOENT");
}

static void test_parsers(void)
{
	uint64_t v = 0;

	tap_ok(bc_cpulist_count("0-3,8\n") == 5 && bc_cpulist_count("0") == 1 &&
	       bc_cpulist_count("3-1") == 0 && bc_cpulist_count("x") == 0 &&
	       bc_cpulist_count("1 2") == 0, "cpuset lists: 0-3,8 is 5; malformed is 0");
	tap_ok(!bc_stat_key(stat_a, "current_bw_usec", &v) && v == 30000 &&
	       bc_stat_key(stat_stock, "current_bw_usec", &v) == -ENOENT &&
	       bc_stat_key("current_bw_usec_x 5\n", "current_bw_usec", &v) == -ENOENT,
	       "current_bw_usec found only as itself");
}

void test_target(const char *tmp)
{
	make_tree(tmp);
	test_resolve(tmp);
	test_limited();
	test_read();
	test_parsers();
}
