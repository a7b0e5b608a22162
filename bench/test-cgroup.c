// SPDX-License-Identifier: GPL-2.0
/* Parsers for cpu.stat, cpu.max, /proc/stat, /proc/self/cgroup and mountinfo. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../lib/cgroup.h"
#include "test.h"

static const char stat_v2[] =
	"usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n"
	"nr_periods 150\nnr_throttled 12\nthrottled_usec 456789\n"
	"nr_bursts 70\nburst_usec 2100000\ncurrent_bw_usec 40000\n";

static void test_cpustat(void)
{
	struct cg_cpustat a, b, d;

	tap_ok(cg_parse_cpustat(stat_v2, &a) == CG_NSTAT, "cpu.stat: all six keys found");
	tap_ok(a.v[CG_USAGE_USEC] == 1234567 && a.v[CG_NR_PERIODS] == 150 &&
	       a.v[CG_NR_THROTTLED] == 12 && a.v[CG_THROTTLED_USEC] == 456789 &&
	       a.v[CG_NR_BURSTS] == 70 && a.v[CG_BURST_USEC] == 2100000,
	       "cpu.stat: values read; user_usec and current_bw_usec ignored");
	/* A cgroup without the cpu controller has the usage keys only. */
	tap_ok(cg_parse_cpustat("usage_usec 10\nuser_usec 5\nsystem_usec 5\n", &b) == 1 &&
	       b.have[CG_USAGE_USEC] && !b.have[CG_NR_PERIODS],
	       "cpu.stat without the cpu controller: usage only");
	tap_ok(cg_parse_cpustat("usage_usec 10", &b) == 1 && b.v[CG_USAGE_USEC] == 10,
	       "cpu.stat: a last line without a newline");
	tap_ok(cg_parse_cpustat("usage_usec_x 10\nusage_usec x\nnr_periods 1junk\n", &b) == 0,
	       "cpu.stat: lookalike keys and bad numbers are not taken");

	cg_parse_cpustat("usage_usec 1000000\nnr_periods 100\nnr_throttled 12\n"
			 "throttled_usec 400000\nnr_bursts 70\nburst_usec 2000000\n", &b);
	cg_cpustat_delta(&b, &a, &d);
	tap_ok(d.v[CG_USAGE_USEC] == 234567 && d.v[CG_NR_PERIODS] == 50 &&
	       d.v[CG_NR_THROTTLED] == 0 && d.v[CG_THROTTLED_USEC] == 56789 &&
	       d.v[CG_NR_BURSTS] == 0 && d.v[CG_BURST_USEC] == 100000 && d.have[CG_BURST_USEC],
	       "cpu.stat deltas");
	cg_parse_cpustat("usage_usec 5\n", &b);
	cg_cpustat_delta(&b, &a, &d);
	tap_ok(d.have[CG_USAGE_USEC] && !d.have[CG_NR_BURSTS] && !d.v[CG_NR_BURSTS],
	       "cpu.stat delta: a key missing before is missing in the delta");
	cg_cpustat_delta(&a, &b, &d);
	tap_ok(d.v[CG_USAGE_USEC] == 0, "cpu.stat delta: a counter that went down gives 0");
}

static void test_cpumax(void)
{
	uint64_t q = 1, p = 1, v = 1;

	tap_ok(!cg_parse_cpumax("70000 100000\n", &q, &p) && q == 70000 && p == 100000,
	       "cpu.max: quota and period");
	tap_ok(!cg_parse_cpumax("max 100000\n", &q, &p) && q == 0 && p == 100000,
	       "cpu.max: max is no limit");
	tap_ok(cg_parse_cpumax("70000\n", &q, &p) == -EINVAL, "cpu.max: one field is invalid");
	tap_ok(cg_parse_cpumax("0 100000\n", &q, &p) == -EINVAL, "cpu.max: quota 0 is invalid");
	tap_ok(cg_parse_cpumax("maxi 100000\n", &q, &p) == -EINVAL &&
	       cg_parse_cpumax("7 100000 x\n", &q, &p) == -EINVAL,
	       "cpu.max: junk is invalid");
	tap_ok(!cg_parse_u64("40000\n", &v) && v == 40000, "cpu.max.burst: a number");
	tap_ok(cg_parse_u64("4x\n", &v) == -EINVAL && cg_parse_u64("", &v) == -EINVAL,
	       "cpu.max.burst: junk is invalid");
}

static void test_paths(void)
{
	static const char mountinfo[] =
		"22 28 0:21 / /proc rw,nosuid - proc proc rw\n"
		"30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";
	static const char nested[] =
		"40 30 0:26 /machine/ctr /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	static const char spaced[] =
		"40 30 0:26 / /mnt/cg\\040two rw - cgroup2 none rw\n";
	char out[256];

	tap_ok(!cg_own("0::/bench/s1\n", out, sizeof(out)) && !strcmp(out, "/bench/s1"),
	       "/proc/self/cgroup: the v2 line");
	tap_ok(!cg_own("12:cpu,cpuacct:/x\n1:name=systemd:/y\n0::/z\n", out, sizeof(out)) &&
	       !strcmp(out, "/z"), "/proc/self/cgroup: the v2 line among v1 lines");
	tap_ok(cg_own("12:cpu,cpuacct:/x\n", out, sizeof(out)) == -ENOENT,
	       "/proc/self/cgroup: v1 only has no v2 path");
	tap_ok(cg_own("0::/long/path\n", out, 5) == -ENAMETOOLONG,
	       "/proc/self/cgroup: a path too long for the buffer");

	tap_ok(!cg_dir(mountinfo, "/bench/s1", out, sizeof(out)) &&
	       !strcmp(out, "/sys/fs/cgroup/bench/s1"), "cgroup dir: mount point + path");
	tap_ok(!cg_dir(mountinfo, "/", out, sizeof(out)) && !strcmp(out, "/sys/fs/cgroup"),
	       "cgroup dir: the root cgroup is the mount point");
	tap_ok(!cg_dir(nested, "/machine/ctr/app", out, sizeof(out)) &&
	       !strcmp(out, "/sys/fs/cgroup/app"),
	       "cgroup dir: a mount of a subtree strips its root");
	tap_ok(!cg_dir(nested, "/machine/ctr", out, sizeof(out)) &&
	       !strcmp(out, "/sys/fs/cgroup"), "cgroup dir: the subtree's root itself");
	tap_ok(!cg_dir(spaced, "/a", out, sizeof(out)) && !strcmp(out, "/mnt/cg two/a"),
	       "cgroup dir: an escaped space in the mount point");
	tap_ok(cg_dir("22 28 0:21 / /proc rw - proc proc rw\n", "/a", out, sizeof(out)) == -ENOENT,
	       "cgroup dir: no cgroup2 mount");
	tap_ok(cg_dir(mountinfo, "/a", out, 10) == -ENAMETOOLONG,
	       "cgroup dir: too long for the buffer");
}

static void test_procstat(void)
{
	struct cg_procstat st;

	tap_ok(!cg_parse_procstat("cpu  4705 12 1923 1305212 117 0 243 7 3 1\n"
				  "cpu0 2352 6 961 652606 58 0 121 3 1 0\n", &st) &&
	       st.v[CG_CPU_USER] == 4705 && st.v[CG_CPU_NICE] == 12 &&
	       st.v[CG_CPU_SYSTEM] == 1923 && st.v[CG_CPU_IDLE] == 1305212 &&
	       st.v[CG_CPU_IOWAIT] == 117 && st.v[CG_CPU_IRQ] == 0 &&
	       st.v[CG_CPU_SOFTIRQ] == 243 && st.v[CG_CPU_STEAL] == 7,
	       "/proc/stat: the aggregate line's eight kinds; guest time not added twice");
	tap_ok(cg_parse_procstat("cpu0 1 2 3 4 5 6 7 8\n", &st) == -EINVAL,
	       "/proc/stat: a per-CPU line first is not the aggregate");
	tap_ok(cg_parse_procstat("cpu  1 2 3 4 5 6 7\n", &st) == -EINVAL,
	       "/proc/stat: fewer than eight numbers");
	tap_ok(cg_parse_procstat("cpu  1 2 x 4 5 6 7 8\n", &st) == -EINVAL,
	       "/proc/stat: a bad number");
}

void test_cgroup(void)
{
	test_cpustat();
	test_procstat();
	test_cpumax();
	test_paths();
}
