/* SPDX-License-Identifier: GPL-2.0 */
/* The parts of the debug kernel's stress suite (burst-stress.c). */
#ifndef BURSTCFS_STRESS_H
#define BURSTCFS_STRESS_H

/*
 * @writes random and mutated writes to cpu.max, cpu.max.burst, the burst
 * sysctls and the v1 files, each checked against the model
 * (write-fuzz.c). Reports WRITE_FUZZ_CHECKS checks. Mounts the v1 cpu
 * controller at the end: run it last.
 */
#define WRITE_FUZZ_CHECKS	5
void write_fuzz(long writes);

/*
 * @rounds rounds of three threads writing one group's quota (cpu.max "Q"),
 * period (cpu.max "Q P") and burst (cpu.max.burst) at once; after each
 * the group must hold what some order of the round's writes gives
 * (writers.c). Reports WRITERS_CHECKS check. Needs only cpu.max.burst:
 * valid on Debian's kernel too.
 */
#define WRITERS_CHECKS	1
#define WRITERS_ROUNDS	20000
/*
 * On the debug kernel (burstcfs.lockdep=required) the checkers see every
 * path of a round in each round, and a round costs about 6 ms there: the
 * lost-value count is the guest kernel's run's job (make test-stress), so
 * this run takes a tenth of the rounds (2 min less in make test).
 */
#define WRITERS_ROUNDS_DEBUG	2000
int writers_race(long rounds);

#endif
