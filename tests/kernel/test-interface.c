// SPDX-License-Identifier: GPL-2.0
/* cpu.max / cpu.max.burst / cpu.stat basics on cgroup v2. */
#include <errno.h>
#include <string.h>

#include "cg.h"
#include "tap.h"
#include "tests.h"

#define CG CG2_ROOT "/iface"

static void run(void)
{
	char buf[256];
	int ret;

	tap_ok(cg_create(CG) == 0, "create %s", CG);
	ret = cg_write(CG, "cpu.max", "10000 100000");
	tap_ok(ret == 0, "write cpu.max '10000 100000' (ret %d)", ret);
	tap_ok(cg_read(CG, "cpu.max", buf, sizeof(buf)) == 0 &&
	       !strcmp(buf, "10000 100000\n"), "cpu.max reads back '10000 100000' (got '%.*s')",
	       (int)strcspn(buf, "\n"), buf);
	ret = cg_write(CG, "cpu.max.burst", "5000");
	tap_ok(ret == 0 && cg_num(CG, "cpu.max.burst") == 5000,
	       "burst 5000 <= quota accepted and read back (ret %d)", ret);
	tap_ok(cg_key(CG, "cpu.stat", "nr_periods") >= 0 &&
	       cg_key(CG, "cpu.stat", "nr_bursts") >= 0 &&
	       cg_key(CG, "cpu.stat", "burst_usec") >= 0,
	       "cpu.stat has nr_periods, nr_bursts, burst_usec");

	ret = cg_write(CG, "cpu.max.burst", "20000");
	if (expect_patched())
		tap_ok(ret == 0 && cg_num(CG, "cpu.max.burst") == 20000,
		       "burst 20000 > quota 10000 accepted (ret %d, reads %lld)",
		       ret, cg_num(CG, "cpu.max.burst"));
	else
		tap_ok(ret == -EINVAL && cg_num(CG, "cpu.max.burst") == 5000,
		       "burst 20000 > quota 10000 is EINVAL, burst stays 5000 (ret %d, reads %lld)",
		       ret, cg_num(CG, "cpu.max.burst"));
	tap_ok(cg_destroy(CG, CG2_ROOT) == 0, "remove %s", CG);
}

const struct burst_test test_interface_v2 = { "interface-v2", 7, run };
