# Burstable CFS bandwidth, from the kernel to the container: one build graph.
# `make demo` runs the main job, `make test` every test; see README.md.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:

export BURST_CACHE ?= /var/cache/burst-cfs

# On the host this file does one thing: the host part of `make deps`
# (scripts/host-deps.sh: mmdebstrap and our Debian roots, nothing else),
# then the same goals again inside the build root (scripts/in-root.sh), where
# every build and test runs and every other package is installed, so that
# the host's packages stay as they were. scripts/in-root.sh sets BURST_ROOT.
ifeq ($(BURST_ROOT),)

HOST_GOALS := deps-remove clean
ROOT_GOALS := $(filter-out $(HOST_GOALS),$(or $(MAKECMDGOALS),all))
.DEFAULT_GOAL := all
.PHONY: host-deps $(HOST_GOALS) $(ROOT_GOALS)

host-deps:
	@scripts/host-deps.sh

# Deletes the roots and purges what host-deps installed.
deps-remove:
	@scripts/deps-remove.sh

# Needs no root: it must not make one.
clean:
	rm -rf build

ifneq ($(ROOT_GOALS),)
$(firstword $(ROOT_GOALS)): host-deps
	+@scripts/in-root.sh build $(MAKE) --no-print-directory $(ROOT_GOALS)
$(wordlist 2,$(words $(ROOT_GOALS)),$(ROOT_GOALS)): $(firstword $(ROOT_GOALS)) ; @:
endif

else # in the build root

B := build

PATCHES := $(shell sed -e 's/\#.*//' -e 's/[[:space:]]*$$//' -e '/^$$/d' kernel/series 2>/dev/null | sed 's,^,kernel/,')
KERNEL_SRC := $(B)/kernel/src
KERNEL_TREE_STAMP := $(B)/kernel/src.stamp
GUEST_FRAGMENT := kernel/config/guest.config
DEBUG_FRAGMENT := kernel/config/debug.config
KCSAN_FRAGMENT := kernel/config/kcsan.config

KERNEL := $(B)/kernel/bzImage-guest
KERNEL_DEBUG := $(B)/kernel/bzImage-debug
KERNEL_KCSAN := $(B)/kernel/bzImage-kcsan
KERNEL_MAINLINE := $(B)/kernel/bzImage-mainline
BASELINE := $(B)/baseline/vmlinuz

GUEST_CFLAGS := -O2 -g -Wall -Wextra -Werror -static -pthread
# The reference model of the pool (model/): the guest suites, burstctl and
# the benchmark link this one file.
MODEL_SRC := model/bw-model.c
MODEL_HDR := model/bw-model.h
KTEST_COMMON := lib/tap.c tests/kernel/cg.c lib/cgfile.c tests/kernel/pool.c $(MODEL_SRC)
KTEST_SRCS := tests/kernel/burst-kernel.c $(wildcard tests/kernel/test-*.c) $(KTEST_COMMON)
KTEST_HDRS := $(wildcard tests/kernel/*.h) $(MODEL_HDR) lib/tap.h lib/cgfile.h
KTEST := $(B)/tests/burst-kernel
STRESS_SRCS := tests/kernel/burst-stress.c tests/kernel/write-fuzz.c tests/kernel/writers.c $(KTEST_COMMON)
STRESS := $(B)/tests/burst-stress
INITRAMFS := $(B)/tests/initramfs.cpio.gz

.PHONY: all deps deps-kernel kernel kernel-debug kernel-kcsan kernel-mainline kernel-6.12 test-kernel-6.12 \
	check-series-6.12 checkpatch-6.12 test-series-prefixes-6.12 kernel-debug-6.12 kernel-kcsan-6.12 \
	test-stress-debug-6.12 test-kcsan-6.12 baseline initramfs check check-series \
	checkpatch check-model check-host check-series-builds test-series-prefixes test-kernel-teeth test-kernel-teeth-6.12 test test-harness test-kernel \
	test-kernel-patched test-kernel-stock \
	test-stress test-stress-debug test-kcsan demo demo-kernel test-demo-shape clean

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

# KCSAN (data races) with lockdep, on the same cut-down config, with
# kernel/sched/{fair,core}.o instrumented: the fragment's "# kbuild-env:"
# lines go to kbuild as environment (kernel/config/kcsan.config says why).
$(KERNEL_KCSAN): $(KERNEL_TREE_STAMP) $(KCSAN_FRAGMENT) scripts/kernel-build.sh
	@mapfile -t kenv < <(sed -n 's/^# kbuild-env: //p' $(KCSAN_FRAGMENT)); \
	env "$${kenv[@]}" scripts/kernel-build.sh $(KERNEL_SRC) $(B)/kernel/obj-kcsan $@ $(KCSAN_FRAGMENT)

kernel: $(KERNEL)
kernel-debug: $(KERNEL_DEBUG)
kernel-kcsan: $(KERNEL_KCSAN)

# Debian's tree without the series, with our guest config: the benchmark's
# comparator that differs from our kernel by the series alone.
$(KERNEL_MAINLINE): $(KERNEL_TREE_STAMP) $(GUEST_FRAGMENT) scripts/kernel-build.sh scripts/kernel-mainline.sh
	@scripts/kernel-mainline.sh $(KERNEL_SRC) $@ $(GUEST_FRAGMENT)

kernel-mainline: $(KERNEL_MAINLINE)

# --- the series on 6.12 -----------------------------------------------------

# kernel/6.12: the same eleven patches on Debian's linux-source-6.12
# (PORTING.md). Its guest kernel boots the same suites as the 6.1 one, in
# its own goal: its cold build (about 31 min on two cores) does not fit
# beside the 6.1 kernel in make test's 60 minutes. make check (and so make
# test) checks that it applies and is checkpatch clean.
K612 := $(B)/kernel/6.12
PATCHES_612 := $(shell sed -e 's/\#.*//' -e 's/[[:space:]]*$$//' -e '/^$$/d' kernel/6.12/series 2>/dev/null | sed 's,^,kernel/6.12/,')
KERNEL_SRC_612 := $(K612)/src
KERNEL_TREE_STAMP_612 := $(K612)/src.stamp
GUEST_FRAGMENT_612 := kernel/6.12/guest.config
KERNEL_612 := $(K612)/bzImage-guest

$(KERNEL_TREE_STAMP_612): kernel/6.12/series $(PATCHES_612) scripts/kernel-tree.sh /usr/src/linux-source-6.12.tar.xz | deps-kernel
	@KERNEL_SERIES=kernel/6.12/series scripts/kernel-tree.sh $(KERNEL_SRC_612)
	@touch $@

/usr/src/linux-source-6.12.tar.xz: | deps-kernel

$(KERNEL_612): $(KERNEL_TREE_STAMP_612) $(GUEST_FRAGMENT_612) scripts/kernel-build.sh
	@scripts/kernel-build.sh $(KERNEL_SRC_612) $(K612)/obj-guest $@ $(GUEST_FRAGMENT_612)

kernel-6.12: $(KERNEL_612)

# The kernel suite and the stress suite on the 6.12 kernel, one after the
# other (each boot is one single-threaded TCG process).
test-kernel-6.12: $(KERNEL_612) $(INITRAMFS)
	@rm -rf $(B)/results/6.12
	@RESULTS_DIR=$(B)/results/6.12 tests/qemu/run-guest.sh kernel-6.12 $(KERNEL_612) $(INITRAMFS) burst-kernel patched 600 && \
		RESULTS_DIR=$(B)/results/6.12 tests/qemu/run-guest.sh stress-6.12 $(KERNEL_612) $(INITRAMFS) burst-stress patched 900 || \
		{ scripts/summary.sh $(B)/results/6.12; exit 1; }
	@scripts/summary.sh $(B)/results/6.12

# The debug and KCSAN kernels of the 6.12 series, with the 6.1 fragments
# and what 6.12's Kconfig needs besides (kernel/6.12/debug.config), and
# the stress suite on each (make test-stress-debug and make test-kcsan say
# why; each its own goal: a cold build of each is minutes more).
DEBUG_FRAGMENT_612 := kernel/6.12/debug.config
KERNEL_DEBUG_612 := $(K612)/bzImage-debug
KERNEL_KCSAN_612 := $(K612)/bzImage-kcsan

$(KERNEL_DEBUG_612): $(KERNEL_TREE_STAMP_612) $(DEBUG_FRAGMENT) $(DEBUG_FRAGMENT_612) scripts/kernel-build.sh
	@scripts/kernel-build.sh $(KERNEL_SRC_612) $(K612)/obj-debug $@ $(DEBUG_FRAGMENT) $(DEBUG_FRAGMENT_612)

$(KERNEL_KCSAN_612): $(KERNEL_TREE_STAMP_612) $(KCSAN_FRAGMENT) scripts/kernel-build.sh
	@mapfile -t kenv < <(sed -n 's/^# kbuild-env: //p' $(KCSAN_FRAGMENT)); \
	env "$${kenv[@]}" scripts/kernel-build.sh $(KERNEL_SRC_612) $(K612)/obj-kcsan $@ $(KCSAN_FRAGMENT)

kernel-debug-6.12: $(KERNEL_DEBUG_612)
kernel-kcsan-6.12: $(KERNEL_KCSAN_612)

test-stress-debug-6.12: $(KERNEL_DEBUG_612) $(INITRAMFS)
	@RESULTS_DIR=$(B)/results/6.12 EXTRA_APPEND="no5lvl burstcfs.lockdep=required $(EXTRA_APPEND)" \
		tests/qemu/run-guest.sh stress-debug-6.12 $(KERNEL_DEBUG_612) $(INITRAMFS) burst-stress patched 900

test-kcsan-6.12: $(KERNEL_KCSAN_612) $(INITRAMFS) scripts/kcsan-report.sh
	@rc=0; RESULTS_DIR=$(B)/results/6.12 EXTRA_APPEND="no5lvl burstcfs.lockdep=required $(EXTRA_APPEND)" \
		tests/qemu/run-guest.sh stress-kcsan-6.12 $(KERNEL_KCSAN_612) $(INITRAMFS) burst-stress patched 1800 || rc=$$?; \
	scripts/kcsan-report.sh "$(B)/results/6.12/stress-kcsan-6.12" $$rc

# The prefix table of the 6.12 series (make test-series-prefixes says what).
test-series-prefixes-6.12: $(KERNEL_TREE_STAMP_612) $(INITRAMFS)
	@KERNEL_SERIES=kernel/6.12/series scripts/series-prefixes.sh $(KERNEL_SRC_612) $(INITRAMFS) \
		$(B)/results/prefixes-6.12 $(GUEST_FRAGMENT_612)

check-series-6.12: | deps-kernel
	@KERNEL_SERIES=kernel/6.12/series scripts/kernel-tree.sh --check $(KERNEL_SRC_612)

checkpatch-6.12: check-series-6.12
	@scripts/checkpatch.sh $(KERNEL_SRC_612) $(PATCHES_612)

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

$(INITRAMFS): $(KTEST) $(STRESS) tests/qemu/selftest-suite tests/qemu/init tests/qemu/mkinitramfs.sh
	@tests/qemu/mkinitramfs.sh $@ $(KTEST) $(STRESS) tests/qemu/selftest-suite

initramfs: $(INITRAMFS)

# --- checks -----------------------------------------------------------------

# Host only, no guest: the series applies and is checkpatch-clean, and the
# pipeline's own scripts behave (tests/host).
check: check-series checkpatch check-series-6.12 checkpatch-6.12 check-model check-host check-node-config check-crun check-bench check-burstctl check-cri check-fuzz

MODEL_TEST := $(B)/model/test-bw-model

$(MODEL_TEST): model/test-bw-model.c $(MODEL_SRC) $(MODEL_HDR) lib/tap.c lib/tap.h
	@mkdir -p $(@D)
	gcc -O2 -g -Wall -Wextra -Werror -o $@ model/test-bw-model.c $(MODEL_SRC) lib/tap.c

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
	@scripts/series-prefixes.sh $(KERNEL_SRC) $(INITRAMFS) $(B)/results/prefixes $(GUEST_FRAGMENT)

# The suite's teeth inside the series (not in `make test`: a kernel build
# and a boot per fault): each kernel/teeth/*.diff breaks one rule of the
# whole series, and the checks it names must fail.
test-kernel-teeth: $(KERNEL_TREE_STAMP) $(INITRAMFS)
	@scripts/kernel-teeth.sh $(KERNEL_SRC) $(INITRAMFS) $(B)/results/teeth $(GUEST_FRAGMENT)

# The same faults in the 6.12 series (kernel/6.12/teeth: the two that
# touch the switch's code differ in context only).
test-kernel-teeth-6.12: $(KERNEL_TREE_STAMP_612) $(INITRAMFS)
	@TEETH_DIR=kernel/6.12/teeth scripts/kernel-teeth.sh $(KERNEL_SRC_612) $(INITRAMFS) \
		$(B)/results/6.12/teeth $(GUEST_FRAGMENT_612)

# The harness itself: every way a guest can go wrong must fail the run.
test-harness: $(BASELINE) $(INITRAMFS) tests/lib/verdict.sh
	@tests/qemu/selftest.sh $(BASELINE) $(INITRAMFS)

# A suite on our kernel and on Debian's: the two boots side by side, one
# single-threaded TCG process per core (measured: each takes as long as
# alone), in turn on one core.
PAIR_JOBS := $(if $(filter 1,$(shell nproc)),1,2)

test-kernel-patched: $(KERNEL) $(INITRAMFS)
	@tests/qemu/run-guest.sh kernel-patched $(KERNEL) $(INITRAMFS) burst-kernel patched 600

test-kernel-stock: $(BASELINE) $(INITRAMFS)
	@tests/qemu/run-guest.sh kernel-stock $(BASELINE) $(INITRAMFS) burst-kernel stock 600

test-kernel: $(KERNEL) $(BASELINE) $(INITRAMFS)
	@$(MAKE) --no-print-directory -j$(PAIR_JOBS) test-kernel-patched test-kernel-stock

# The host checks two at a time (alone they leave a core idle in xz,
# configure scripts and single-threaded tests: 185 s instead of 256 s
# cold), then each build and each boot in turn. Kernel builds beside other
# builds cost more than the idle core they fill, measured cold: beside the
# debug kernel at nice 19 the guest kernel took 1,423 s instead of 1,113 s
# and the podman package 312 s instead of 228-244 s. So the debug kernel
# (lockdep, KASAN, UBSAN; about 10 min cold, from the bzImage cache when
# warm) builds in turn after the image, and then the remaining boots share
# the two cores, the longest first (make -j2 starts them in this order):
# the stress suite on the debug kernel, the image runner's self-test (five
# image boots at once), the image on cgroup v1, the stress suite on the
# guest kernel, the harness's self-test (two boots at a time) and make
# demo's bare part. Measured warm: 261 s for the six (7068ed6), where the
# harness, the demo and the image's self-test each alone and the other
# three side by side took 298 s (eae6e72).
test:
	@$(MAKE) --no-print-directory -j$(PAIR_JOBS) check
	@rm -rf $(B)/results
	@$(MAKE) --no-print-directory test-kernel test-crun image kernel-debug && \
		$(MAKE) --no-print-directory -j$(PAIR_JOBS) test-stress-debug test-harness-image e2e-v1 \
			test-stress test-harness test-demo-shape && \
		$(MAKE) --no-print-directory e2e || { scripts/summary.sh $(B)/results; exit 1; }
	@scripts/summary.sh $(B)/results

# no5lvl: with QEMU's -cpu max the kernel turns on 5-level paging, and then
# KASAN may report a wild access in rcu_is_watching from an interrupt during
# identify_boot_cpu, before any of our code runs (seen once in about six
# boots of the same bzImage); 4-level paging is what the suite needs.
test-stress-debug: $(KERNEL_DEBUG) $(INITRAMFS)
	@EXTRA_APPEND="no5lvl burstcfs.lockdep=required $(EXTRA_APPEND)" tests/qemu/run-guest.sh stress-debug $(KERNEL_DEBUG) $(INITRAMFS) burst-stress patched 900

# The same suite on the guest kernel: the races and the write fuzz against
# the model, without the debug kernel's checkers (make test).
test-stress: $(KERNEL) $(INITRAMFS)
	@tests/qemu/run-guest.sh stress $(KERNEL) $(INITRAMFS) burst-stress patched 900

# The stress suite on the KCSAN kernel (not part of `make test`: its own
# cold build, and mainline 6.1 has data races of its own). run-guest.sh
# fails on every 'BUG: KCSAN:' line, so its verdict is set aside and
# scripts/kcsan-report.sh judges instead: it fails on a hang, a suite
# failure, any other kernel report, and any KCSAN report in the series'
# code, and lists the other races with counts. no5lvl as test-stress-debug.
test-kcsan: $(KERNEL_KCSAN) $(INITRAMFS) scripts/kcsan-report.sh
	@rc=0; EXTRA_APPEND="no5lvl burstcfs.lockdep=required $(EXTRA_APPEND)" tests/qemu/run-guest.sh stress-kcsan \
		$(KERNEL_KCSAN) $(INITRAMFS) burst-stress patched 1800 || rc=$$?; \
	scripts/kcsan-report.sh "$${RESULTS_DIR:-$(B)/results}/stress-kcsan" $$rc

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

# make demo's bare part, booted, its output judged as a person sees it.
test-demo-shape: $(KERNEL) $(BASELINE) $(DEMO_INITRAMFS)
	@tests/demo/run.sh $(KERNEL) $(BASELINE) $(DEMO_INITRAMFS)

clean:
	rm -rf $(B)

# --- the rest of the stack: crun, the mkosi image and its e2e suite, the
# benchmark. Each file lists its targets.
include mk/crun.mk
include mk/podman.mk
IMAGE_DEBS := $(CRUN_DEB) $(PODMAN_DEB)
include mk/node-kernel.mk
include mk/repo.mk
include mk/image.mk
include mk/node.mk
include mk/burstctl.mk
include mk/bench.mk
include mk/cri.mk
include mk/fuzz.mk
include mk/secure-boot.mk

endif # in the build root
