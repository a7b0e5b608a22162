# Burstable CFS bandwidth, from the kernel to the container: one build graph.
# `make demo` runs the main job, `make test` every test; see README.md.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:

B := build
export BURST_CACHE ?= /var/cache/burst-cfs

PATCHES := $(shell sed -e 's/\#.*//' -e 's/[[:space:]]*$$//' -e '/^$$/d' kernel/series 2>/dev/null | sed 's,^,kernel/,')
KERNEL_SRC := $(B)/kernel/src
KERNEL_TREE_STAMP := $(B)/kernel/src.stamp
GUEST_FRAGMENT := kernel/config/guest.config
DEBUG_FRAGMENT := kernel/config/debug.config

KERNEL := $(B)/kernel/bzImage-guest
KERNEL_DEBUG := $(B)/kernel/bzImage-debug
BASELINE := $(B)/baseline/vmlinuz

GUEST_CFLAGS := -O2 -g -Wall -Wextra -Werror -static -pthread
# The reference model of the pool (model/): the guest suites, burstctl and
# the benchmark link this one file.
MODEL_SRC := model/bw-model.c
MODEL_HDR := model/bw-model.h
KTEST_COMMON := tests/kernel/tap.c tests/kernel/cg.c lib/cgfile.c tests/kernel/pool.c $(MODEL_SRC)
KTEST_SRCS := tests/kernel/burst-kernel.c $(wildcard tests/kernel/test-*.c) $(KTEST_COMMON)
KTEST_HDRS := $(wildcard tests/kernel/*.h) $(MODEL_HDR) lib/cgfile.h
KTEST := $(B)/tests/burst-kernel
STRESS_SRCS := tests/kernel/burst-stress.c $(KTEST_COMMON)
STRESS := $(B)/tests/burst-stress
INITRAMFS := $(B)/tests/initramfs.cpio.gz

.PHONY: all deps deps-kernel kernel kernel-debug baseline initramfs check check-series \
	checkpatch check-model check-host check-series-builds test-series-prefixes test test-harness test-kernel \
	test-stress demo demo-kernel clean

all: kernel burstctl

# Everything every target needs, from Debian's archive (idempotent). Each
# target also depends on the part it needs, so `make test` alone works.
deps: deps-kernel deps-crun deps-podman image-deps bench-deps

deps-kernel:
	@scripts/deps.sh kernel

# --- kernel ---------------------------------------------------------------

$(KERNEL_TREE_STAMP): kernel/series $(PATCHES) scripts/kernel-tree.sh /usr/src/linux-source-6.1.tar.xz | deps-kernel
	@scripts/kernel-tree.sh $(KERNEL_SRC)
	@touch $@

/usr/src/linux-source-6.1.tar.xz: | deps-kernel

$(KERNEL): $(KERNEL_TREE_STAMP) $(GUEST_FRAGMENT) scripts/kernel-build.sh
	@scripts/kernel-build.sh $(KERNEL_SRC) $(B)/kernel/obj-guest $@ $(GUEST_FRAGMENT)

# lockdep + KASAN + UBSAN, on a config cut down to what the initramfs
# harness needs (kernel/config/debug.config says why).
$(KERNEL_DEBUG): $(KERNEL_TREE_STAMP) $(DEBUG_FRAGMENT) scripts/kernel-build.sh
	@scripts/kernel-build.sh $(KERNEL_SRC) $(B)/kernel/obj-debug $@ $(DEBUG_FRAGMENT)

kernel: $(KERNEL)
kernel-debug: $(KERNEL_DEBUG)

$(BASELINE): scripts/baseline-kernel.sh | deps-kernel
	@scripts/baseline-kernel.sh $@

baseline: $(BASELINE)

# --- in-guest test programs -------------------------------------------------

$(KTEST): $(KTEST_SRCS) $(KTEST_HDRS) | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $(KTEST_SRCS)

$(STRESS): $(STRESS_SRCS) $(KTEST_HDRS) | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $(STRESS_SRCS)

$(INITRAMFS): $(KTEST) $(STRESS) tests/qemu/init tests/qemu/mkinitramfs.sh
	@tests/qemu/mkinitramfs.sh $@ $(KTEST) $(STRESS)

initramfs: $(INITRAMFS)

# --- checks -----------------------------------------------------------------

# Host only, no guest: the series applies and is checkpatch-clean, and the
# pipeline's own scripts behave (tests/host).
check: check-series checkpatch check-model check-host check-crun check-bench check-burstctl check-cri

MODEL_TEST := $(B)/model/test-bw-model

$(MODEL_TEST): model/test-bw-model.c $(MODEL_SRC) $(MODEL_HDR) tests/kernel/tap.c tests/kernel/tap.h
	@mkdir -p $(@D)
	gcc -O2 -g -Wall -Wextra -Werror -o $@ model/test-bw-model.c $(MODEL_SRC) tests/kernel/tap.c

# The reference model against hand-computed cases.
check-model: $(MODEL_TEST)
	@$(MODEL_TEST)

check-series: | deps-kernel
	@scripts/kernel-tree.sh --check $(KERNEL_SRC)

checkpatch: check-series
	@scripts/checkpatch.sh $(KERNEL_SRC) $(PATCHES)

check-host: check-series
	@tests/host/run.sh

# Every prefix of the series builds (slow: one incremental build per patch).
check-series-builds: $(KERNEL_TREE_STAMP)
	@scripts/kernel-series-builds.sh $(KERNEL_SRC) $(B)/kernel/obj-bisect $(GUEST_FRAGMENT)

# The suite's teeth (not in `make test`: a kernel build and a boot per
# patch): on the kernel of every prefix of the series the suite, expecting
# our kernel, fails exactly the checks of the features the prefix lacks.
test-series-prefixes: $(KERNEL_TREE_STAMP) $(INITRAMFS)
	@scripts/series-prefixes.sh $(KERNEL_SRC) $(B)/kernel/obj-prefix $(INITRAMFS) \
		$(B)/results/prefixes $(GUEST_FRAGMENT)

# The harness itself: a guest that never reports must fail the run.
test-harness: $(BASELINE) $(INITRAMFS)
	@tests/qemu/selftest.sh $(BASELINE) $(INITRAMFS)

test-kernel: $(KERNEL) $(BASELINE) $(INITRAMFS)
	@tests/qemu/run-guest.sh kernel-patched $(KERNEL) $(INITRAMFS) burst-kernel patched 600
	@tests/qemu/run-guest.sh kernel-stock $(BASELINE) $(INITRAMFS) burst-kernel stock 600

test: check
	@rm -rf $(B)/results
	@$(MAKE) --no-print-directory test-harness test-kernel test-stress test-crun e2e || { scripts/summary.sh $(B)/results; exit 1; }
	@scripts/summary.sh $(B)/results

# no5lvl: with QEMU's -cpu max the kernel turns on 5-level paging, and then
# KASAN may report a wild access in rcu_is_watching from an interrupt during
# identify_boot_cpu, before any of our code runs (seen once in about six
# boots of the same bzImage); 4-level paging is what the suite needs.
test-stress: $(KERNEL_DEBUG) $(INITRAMFS)
	@EXTRA_APPEND="no5lvl $(EXTRA_APPEND)" tests/qemu/run-guest.sh stress-debug $(KERNEL_DEBUG) $(INITRAMFS) burst-stress patched 900

# --- demo ---------------------------------------------------------------------

DEMO := $(B)/demo/burst-demo
DEMO_INITRAMFS := $(B)/demo/initramfs.cpio.gz

$(DEMO): demo/burst-demo.c | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(DEMO_INITRAMFS): $(DEMO) tests/qemu/init tests/qemu/mkinitramfs.sh
	@tests/qemu/mkinitramfs.sh $@ $(DEMO)

# The scheduler alone (initramfs guests), then a bursty podman container in
# the image (mk/image.mk's image-demo), each on our kernel and Debian's.
demo: demo-kernel image-demo

demo-kernel: $(KERNEL) $(BASELINE) $(DEMO_INITRAMFS)
	@scripts/demo.sh $(KERNEL) $(BASELINE) $(DEMO_INITRAMFS)

clean:
	rm -rf $(B)

# --- the rest of the stack: crun, the mkosi image and its e2e suite, the
# benchmark. Each file lists its targets.
include mk/crun.mk
include mk/podman.mk
IMAGE_DEBS := $(CRUN_DEB) $(PODMAN_DEB)
include mk/repo.mk
include mk/image.mk
include mk/node.mk
include mk/bench.mk
include mk/burstctl.mk
include mk/cri.mk
