// SPDX-License-Identifier: GPL-2.0
/*
 * icount-plugin: a TCG plugin for qemu-system-x86_64 (plugin API version 1,
 * QEMU 7.2) that counts, for every kernel instruction address, how many
 * times the guest executed it, in phases that the guest itself delimits
 * (make bench-icount, bench/run-icount.sh).
 *
 *   qemu-system-x86_64 ... -plugin build/icount/icount-plugin.so,out=FILE
 *
 * Phases. A guest program marks a phase's edges by executing, in user
 * space, an instruction that does nothing on any CPU, a long NOP whose
 * displacement carries a tag: "nopl 0x1c0c000K(%rax)", bytes 0f 1f 80 0K 00
 * 0c 1c (bench/icountbench.c). No program executes it by chance. At a
 * marker with K = 0 the counters are zeroed; with K = 1 the counts since the
 * last marker are appended to FILE as phase N (N = 1, 2, ... in the order
 * the K = 1 markers ran), then zeroed. The guest prints what phase N was on
 * its console; bench/icount.py pairs the two by N. Nothing of the kernel's
 * is needed here: which function an address belongs to is decided on the
 * host, from the /proc/kallsyms the guest prints.
 *
 * FILE, one line each:
 *   phase N user U kernel K   U, K: user and kernel instructions executed
 *   ADDR COUNT                hex kernel address, times executed (COUNT > 0)
 *   end N
 *
 * Kernel addresses are those of the upper half (bit 63 set). Each kernel
 * instruction gets an inline add on its own counter, so the counts are
 * exact per instruction, whatever the translation blocks; user code gets
 * one add per block, for the phase's user total. A vCPU is expected to be
 * alone (-smp 1): the adds are not atomic.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_HALF	(1ULL << 63)
#define MARK_TAG	0x1c0c0000u
#define MARK_RESET	0
#define MARK_DUMP	1

/*
 * The counters: translated code holds their addresses, so they never move.
 * Slot i is chunk i / CHUNK, entry i % CHUNK; addr[] says whose it is.
 */
#define CHUNK		65536
#define MAX_CHUNKS	256
static uint64_t *count_chunk[MAX_CHUNKS];
static uint64_t *addr_chunk[MAX_CHUNKS];
static uint32_t slots;

/* Open addressing from a kernel address to its slot + 1 (0: empty). */
static uint64_t *map_key;
static uint32_t *map_val;
static uint32_t map_size;	/* a power of two, at most half full */

static uint64_t user_insns;
static FILE *out;
static unsigned int phase;

static uint32_t hash(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return (uint32_t)a;
}

static void map_put(uint64_t key, uint32_t val)
{
	uint32_t i = hash(key) & (map_size - 1);

	while (map_val[i])
		i = (i + 1) & (map_size - 1);
	map_key[i] = key;
	map_val[i] = val;
}

static void map_grow(void)
{
	uint64_t *old_key = map_key;
	uint32_t *old_val = map_val, old_size = map_size;

	map_size = old_size ? old_size * 2 : 1u << 16;
	map_key = calloc(map_size, sizeof(*map_key));
	map_val = calloc(map_size, sizeof(*map_val));
	if (!map_key || !map_val) {
		fprintf(stderr, "icount-plugin: out of memory\n");
		abort();
	}
	for (uint32_t i = 0; i < old_size; i++)
		if (old_val[i])
			map_put(old_key[i], old_val[i]);
	free(old_key);
	free(old_val);
}

/* The counter of kernel address A, made on first sight. */
static uint64_t *counter_of(uint64_t a)
{
	uint32_t i, s;

	if (slots + 1 > map_size / 2)
		map_grow();
	for (i = hash(a) & (map_size - 1); map_val[i]; i = (i + 1) & (map_size - 1))
		if (map_key[i] == a)
			return &count_chunk[(map_val[i] - 1) / CHUNK][(map_val[i] - 1) % CHUNK];
	s = slots++;
	if (s / CHUNK >= MAX_CHUNKS) {
		fprintf(stderr, "icount-plugin: more than %d kernel instruction addresses\n",
			CHUNK * MAX_CHUNKS);
		abort();
	}
	if (!count_chunk[s / CHUNK]) {
		count_chunk[s / CHUNK] = calloc(CHUNK, sizeof(uint64_t));
		addr_chunk[s / CHUNK] = calloc(CHUNK, sizeof(uint64_t));
		if (!count_chunk[s / CHUNK] || !addr_chunk[s / CHUNK]) {
			fprintf(stderr, "icount-plugin: out of memory\n");
			abort();
		}
	}
	addr_chunk[s / CHUNK][s % CHUNK] = a;
	map_key[i] = a;
	map_val[i] = s + 1;
	return &count_chunk[s / CHUNK][s % CHUNK];
}

static void reset(void)
{
	for (uint32_t c = 0; c * CHUNK < slots; c++)
		memset(count_chunk[c], 0, CHUNK * sizeof(uint64_t));
	user_insns = 0;
}

static void dump(void)
{
	uint64_t kernel = 0;

	for (uint32_t s = 0; s < slots; s++)
		kernel += count_chunk[s / CHUNK][s % CHUNK];
	phase++;
	fprintf(out, "phase %u user %" PRIu64 " kernel %" PRIu64 "\n", phase, user_insns, kernel);
	for (uint32_t s = 0; s < slots; s++) {
		uint64_t n = count_chunk[s / CHUNK][s % CHUNK];

		if (n)
			fprintf(out, "%" PRIx64 " %" PRIu64 "\n", addr_chunk[s / CHUNK][s % CHUNK], n);
	}
	fprintf(out, "end %u\n", phase);
	fflush(out);
}

static void on_marker(unsigned int vcpu, void *what)
{
	(void)vcpu;
	if ((uintptr_t)what == MARK_DUMP)
		dump();
	reset();
}

/* The tag of a marker instruction, or -1 for any other instruction. */
static int marker_of(struct qemu_plugin_insn *insn)
{
	static const unsigned char nopl[3] = { 0x0f, 0x1f, 0x80 };
	const unsigned char *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 7 || memcmp(b, nopl, 3))
		return -1;
	disp = b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24;
	if ((disp & 0xffff0000u) != MARK_TAG || (disp & 0xffff) > MARK_DUMP)
		return -1;
	return disp & 0xffff;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (!(qemu_plugin_tb_vaddr(tb) & KERNEL_HALF)) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &user_insns, n);
		for (size_t i = 0; i < n; i++) {
			struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
			int tag = marker_of(insn);

			if (tag >= 0)
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
					QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)tag);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
			counter_of(qemu_plugin_insn_vaddr(insn)), 1);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	fprintf(out, "exit phases %u addresses %u\n", phase, slots);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	if (strcmp(info->target_name, "x86_64") || !info->system_emulation) {
		fprintf(stderr, "icount-plugin: for qemu-system-x86_64 only, not %s\n",
			info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!path) {
		fprintf(stderr, "icount-plugin: usage: -plugin icount-plugin.so,out=FILE\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	map_grow();
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
