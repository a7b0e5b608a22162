// SPDX-License-Identifier: GPL-2.0
/* cpu.max / cpu.max.burst / cpu.stat basics on cgroup v2, and burst's bounds. */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "pool.h"
#include "../../lib/tap.h"
#include "tests.h"

#define CG CG2_ROOT "/iface"

static void run(void)
{
	bool patched = expect_patched();
	char buf[256];
	long long v;
	int ret;

	if (!tap_ok(cg_create(CG) == 0, "create %s", CG)) {
		tap_abandon("no cgroup");
		return;
	}
	ret = cg_write(CG, "cpu.max", "10000 100000");
	tap_ok(ret == 0, "write cpu.max '10000 100000' (ret %d)", ret);
	cg_text(CG, "cpu.max", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "10000 100000"), "cpu.max reads back '10000 100000' (got '%s')", buf);
	ret = cg_write(CG, "cpu.max.burst", "5000");
	v = cg_num(CG, "cpu.max.burst");
	tap_ok(ret == 0 && v == 5000, "burst 5000 <= quota accepted and read back (ret %d, reads %lld)",
	       ret, v);
	tap_ok(cg_key(CG, "cpu.stat", "usage_usec") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_periods") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_throttled") >= 0 &&
	       cg_key(CG, "cpu.stat", "throttled_usec") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_bursts") >= 0 &&
	       cg_key(CG, "cpu.stat", "burst_usec") >= 0,
	       "cpu.stat has usage_usec, nr_periods, nr_throttled, throttled_usec, nr_bursts, burst_usec");

	ret = cg_write(CG, "cpu.max.burst", "20000");
	v = cg_num(CG, "cpu.max.burst");
	if (patched)
		tap_ok(ret == 0 && v == 20000,
		       "[" F_ABOVE "] burst 20000 > quota 10000 accepted (ret %d, reads %lld)", ret, v);
	else
		tap_ok(ret == -EINVAL && v == 5000,
		       "burst 20000 > quota 10000 is EINVAL, burst stays 5000 (ret %d, reads %lld)",
		       ret, v);

	ret = cg_write(CG, "cpu.max.burst", "%lld", MAX_CFS_RUNTIME_US);
	v = cg_num(CG, "cpu.max.burst");
	if (patched)
		tap_ok(ret == 0 && v == MAX_CFS_RUNTIME_US,
		       "[" F_ABOVE "] burst = max_cfs_runtime %lld accepted (ret %d, reads %lld)",
		       MAX_CFS_RUNTIME_US, ret, v);
	else
		tap_ok(ret == -EINVAL && v == 5000,
		       "burst = max_cfs_runtime is EINVAL (> quota), burst stays 5000 (ret %d, reads %lld)",
		       ret, v);
	ret = cg_write(CG, "cpu.max.burst", "%lld", MAX_CFS_RUNTIME_US + 1);
	v = cg_num(CG, "cpu.max.burst");
	tap_ok(ret == -EINVAL && v == (patched ? MAX_CFS_RUNTIME_US : 5000),
	       "[" F_ABOVE "] burst max_cfs_runtime+1 is EINVAL, burst unchanged (ret %d, reads %lld)", ret, v);

	/* Without a limit stock checks nothing; the series bounds burst always. */
	ret = cg_write(CG, "cpu.max", "max");
	cg_text(CG, "cpu.max", buf, sizeof(buf));
	tap_ok(ret == 0 && !strcmp(buf, "max 100000"), "cpu.max 'max' (ret %d, reads '%s')", ret, buf);
	ret = cg_write(CG, "cpu.max.burst", "%lld", MAX_CFS_RUNTIME_US + 1);
	v = cg_num(CG, "cpu.max.burst");
	if (patched)
		tap_ok(ret == -EINVAL && v == MAX_CFS_RUNTIME_US,
		       "[" F_ABOVE "] no limit: burst max_cfs_runtime+1 still EINVAL (ret %d, reads %lld)", ret, v);
	else
		tap_ok(ret == 0 && v == MAX_CFS_RUNTIME_US + 1,
		       "no limit: stock takes burst max_cfs_runtime+1 unchecked (ret %d, reads %lld)",
		       ret, v);
	ret = cg_write(CG, "cpu.max.burst", "30000");
	v = cg_num(CG, "cpu.max.burst");
	tap_ok(ret == 0 && v == 30000, "no limit: burst 30000 accepted (ret %d, reads %lld)", ret, v);

	/* Setting a quota below the burst in force. */
	ret = cg_write(CG, "cpu.max", "10000 100000");
	cg_text(CG, "cpu.max", buf, sizeof(buf));
	v = cg_num(CG, "cpu.max.burst");
	if (patched)
		tap_ok(ret == 0 && !strcmp(buf, "10000 100000") && v == 30000,
		       "[" F_ABOVE "] quota 10000 under burst 30000 accepted (ret %d, cpu.max '%s', burst %lld)",
		       ret, buf, v);
	else
		tap_ok(ret == -EINVAL && !strcmp(buf, "max 100000") && v == 30000,
		       "quota 10000 under burst 30000 is EINVAL, cpu.max stays 'max 100000' (ret %d, cpu.max '%s', burst %lld)",
		       ret, buf, v);

	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_interface_v2 = { "interface-v2", 13, run };
