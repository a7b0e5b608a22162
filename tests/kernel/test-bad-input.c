// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input on every knob is EINVAL and leaves the old values: cpu.max,
 * cpu.max.burst and, where the kernel has them, the two burst sysctls
 * (stock: they do not exist, ENOENT).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/badinput"

static void group_write(const char *file, const char *val, long long burst)
{
	char max[64];
	long long b;
	int ret;

	ret = cg_write(CG, file, "%s", val);
	cg_text(CG, "cpu.max", max, sizeof(max));
	b = cg_num(CG, "cpu.max.burst");
	tap_ok(ret == -EINVAL && !strcmp(max, "20000 100000") && b == burst,
	       "%s '%s' is EINVAL, cpu.max and burst unchanged (ret %d; '%s', burst %lld)",
	       file, val, ret, max, b);
}

static void sysctl_bad(const char *name, const char *val, long long keep)
{
	long long v = -1;
	int ret, rret;

	ret = sysctl_write(name, val);
	rret = sysctl_get(name, &v);
	if (expect_patched())
		tap_ok(ret == -EINVAL && rret == 0 && v == keep,
		       "%s '%s' is EINVAL, stays %lld (ret %d, reads %lld)", name, val, keep, ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "%s absent on stock: write '%s' and read are ENOENT (ret %d, read %d)",
		       name, val, ret, rret);
}

static void run(void)
{
	/* Stock cannot take a burst above quota. */
	long long burst = expect_patched() ? 30000 : 15000;
	char val[64];

	if (!tap_ok(bw_group(CG, 20000, 100000, burst) == 0,
		    "group with cpu.max '20000 100000', burst %lld", burst)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	group_write("cpu.max", "-1 100000", burst);
	group_write("cpu.max", "-20000", burst);
	group_write("cpu.max", "abc 100000", burst);
	snprintf(val, sizeof(val), "%lld 100000", MAX_CFS_RUNTIME_US + 1);
	group_write("cpu.max", val, burst);
	group_write("cpu.max", "500 100000", burst);
	group_write("cpu.max", "20000 999", burst);
	group_write("cpu.max", "20000 1000001", burst);
	group_write("cpu.max.burst", "-1", burst);
	group_write("cpu.max.burst", "abc", burst);
	snprintf(val, sizeof(val), "%lld", MAX_CFS_RUNTIME_US + 1);
	group_write("cpu.max.burst", val, burst);
	group_write("cpu.max.burst", "18446744073709551615", burst);
	group_write("cpu.max.burst", "1.5", burst);

	sysctl_bad(SYSCTL_BURST_ENABLED, "2", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "-1", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "abc", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "4294967297", 1);
	sysctl_bad(SYSCTL_BURST_ONSET, "101", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "-1", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "abc", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "4294967296", 0);

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_bad_input = { "bad-input-v2", 22, run };
