// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input on every knob is refused and leaves the old values: cpu.max,
 * cpu.max.burst and, where the kernel has them, the two burst sysctls
 * (stock: they do not exist, ENOENT). cpu.max is parsed by the scheduler
 * (EINVAL); cpu.max.burst by the cgroup core (kstrtoull(): ERANGE for a
 * number that does not fit in 64 bits, EINVAL otherwise). On our kernel
 * the pool, read in cpu.stat, is unchanged by every refused write too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/badinput"

static void group_write(const char *file, const char *val, int want, long long burst)
{
	char max[64];
	long long b;
	int ret;

	ret = cg_write(CG, file, "%s", val);
	cg_text(CG, "cpu.max", max, sizeof(max));
	b = cg_num(CG, "cpu.max.burst");
	tap_ok(ret == want && !strcmp(max, "20000 100000") && b == burst,
	       "[" F_ABOVE "] %s '%s' is %s, cpu.max and burst unchanged (ret %d; '%s', burst %lld)",
	       file, val, want == -ERANGE ? "ERANGE" : "EINVAL", ret, max, b);
}

static void sysctl_bad(const char *name, const char *val, long long keep)
{
	long long v = -1;
	int ret, rret;

	ret = sysctl_write(name, val);
	rret = sysctl_get(name, &v);
	if (expect_patched())
		tap_ok(ret == -EINVAL && rret == 0 && v == keep,
		       "[" F_ABOVE " %s] %s '%s' is EINVAL, stays %lld (ret %d, reads %lld)",
		       !strcmp(name, SYSCTL_BURST_ONSET) ? F_ONSET : F_ENABLED, name, val, keep, ret, v);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "%s absent on stock: write '%s' and read are ENOENT (ret %d, read %d)",
		       name, val, ret, rret);
}

/*
 * A sysctl write longer than a page: the kernel reads only its first
 * PAGE_SIZE - 1 bytes, so 4094 spaces and "50" set 5. The model cuts the
 * write at the same place and must say the same.
 */
static void sysctl_page_write(void)
{
	struct bwm_sysctls sys;
	char page[4096];
	long long v = -1;
	int fd, ret = 0, mret, rret;

	memset(page, ' ', sizeof(page));
	memcpy(page + sizeof(page) - 2, "50", 2);
	bwm_sysctls_init(&sys);
	mret = bwm_write_onset_percent(&sys, page, sizeof(page));
	fd = open("/proc/sys/kernel/" SYSCTL_BURST_ONSET, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, page, sizeof(page)) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	rret = sysctl_get(SYSCTL_BURST_ONSET, &v);
	if (expect_patched())
		tap_ok(ret == 0 && mret == 0 && rret == 0 && v == 5 && sys.onset_percent == 5,
		       "[" F_ONSET "] %s: 4094 spaces and \"50\" in one write set %lld, the model %u (ret %d, model ret %d)",
		       SYSCTL_BURST_ONSET, v, sys.onset_percent, ret, mret);
	else
		tap_ok(ret == -ENOENT && rret == -ENOENT,
		       "%s absent on stock: a page-long write is ENOENT (ret %d, read %d)",
		       SYSCTL_BURST_ONSET, ret, rret);
	sysctl_write(SYSCTL_BURST_ONSET, "0");
}

static void run(void)
{
	/* Stock cannot take a burst above quota. */
	long long burst = expect_patched() ? 30000 : 15000;
	struct pool_model m;
	struct pool_read r0, r;
	char val[64];
	int ret;

	ret = pm_new_group(&m, CG, 20000, 100000, burst);
	ret = ret ?: pool_read(CG, &m.clk, &r0);
	if (!tap_ok(ret == 0, "[" F_ABOVE "] group with cpu.max '20000 100000', burst %lld", burst)) {
		tap_abandon("cannot set up %s", CG);
		cg_destroy(CG, CG2_ROOT);
		return;
	}
	group_write("cpu.max", "-1 100000", -EINVAL, burst);
	group_write("cpu.max", "-20000", -EINVAL, burst);
	group_write("cpu.max", "abc 100000", -EINVAL, burst);
	snprintf(val, sizeof(val), "%lld 100000", MAX_CFS_RUNTIME_US + 1);
	group_write("cpu.max", val, -EINVAL, burst);
	group_write("cpu.max", "500 100000", -EINVAL, burst);
	group_write("cpu.max", "20000 999", -EINVAL, burst);
	group_write("cpu.max", "20000 1000001", -EINVAL, burst);
	group_write("cpu.max.burst", "-1", -EINVAL, burst);
	group_write("cpu.max.burst", "abc", -EINVAL, burst);
	snprintf(val, sizeof(val), "%lld", MAX_CFS_RUNTIME_US + 1);
	group_write("cpu.max.burst", val, -EINVAL, burst);
	group_write("cpu.max.burst", "18446744073709551615", -EINVAL, burst);
	group_write("cpu.max.burst", "18446744073709551616", -ERANGE, burst);
	group_write("cpu.max.burst", "1.5", -EINVAL, burst);
	group_write("cpu.max.burst", "40000 ", -EINVAL, burst);

	ret = pool_read(CG, &m.clk, &r);
	pm_check(&m, &r, ret, F_ABOVE " " F_KEEP " " F_CURBW,
		 "after the refused writes the pool is what the periods alone made it");

	sysctl_bad(SYSCTL_BURST_ENABLED, "2", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "-1", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "abc", 1);
	sysctl_bad(SYSCTL_BURST_ENABLED, "4294967297", 1);
	sysctl_bad(SYSCTL_BURST_ONSET, "101", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "-1", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "abc", 0);
	sysctl_bad(SYSCTL_BURST_ONSET, "4294967296", 0);
	sysctl_page_write();

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "[" F_ABOVE "] remove %s", CG);
}

const struct burst_test test_bad_input = { "bad-input-v2", 26, run };
