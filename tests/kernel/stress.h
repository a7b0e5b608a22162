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

#endif
