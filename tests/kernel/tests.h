/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BURSTCFS_TESTS_H
#define BURSTCFS_TESTS_H

/* A group of checks; @checks is how many tap_ok() calls run() always makes. */
struct burst_test {
	const char *name;
	int checks;
	void (*run)(void);
};

extern const struct burst_test test_interface_v2;

#endif
