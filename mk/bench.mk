# burstbench and the benchmark (bench/, docs/benchmarks.md).
# Included by the top Makefile, after its definitions of B, KERNEL,
# KERNEL_MAINLINE, BASELINE, GUEST_FRAGMENT and GUEST_CFLAGS and after
# mk/image.mk and mk/burstctl.mk (the report replays runs through burstctl).
# Targets:
#   burstbench    build/bench/burstbench, static (runs in a scratch container)
#   check-bench   host unit tests: statistics, arguments, cgroup parsers, the
#                 binary; the report (bench/test_report.py)
#   check-bench-runner  the latency runner without QEMU, both setups
#                 (bench/test-run-latency.sh), run before bench and bench-kernel
#   bench         the latency benchmark in the e2e image under podman, scenario
#                 2's runs on ours, mainline built with our config and Debian's,
#                 3 rounds (about 22 min); docs/bench-raw/image-DATE.jsonl and
#                 from it docs/benchmarks.md and docs/benchmarks.png
#   bench-kernel  every case in bare cgroups of the initramfs guest, on the
#                 same kernels, 3 rounds (about 26 min); writes
#                 docs/bench-raw/kernel-DATE.jsonl and from it
#                 docs/benchmarks-kernel.md and docs/benchmarks-kernel.png;
#                 then bench-cost
#   bench-cost    what the series costs: each changed path per operation
#                 (refill, wake, slack, configuration writes, cpu.stat reads)
#                 and 10-500 limited groups, ours against mainline with our
#                 config, 5 rounds (about 27 min); docs/bench-raw/cost-DATE.jsonl,
#                 docs/benchmarks-cost.md and .png (bench/run-cost.sh)
#   bench-icount  what the series costs in instructions: each changed path
#                 and configuration operation counted by a TCG plugin under
#                 QEMU's -icount, ours and mainline twice each (A/A), then
#                 a kernel slowed on purpose that the bound must fail
#                 (8-10 min with the kernels built, 616 s on a busy host;
#                 2 kernel builds from ccache the first time, mainline and the
#                 slowed kernel); docs/bench-raw/icount-DATE.jsonl,
#                 docs/benchmarks-icount.md (bench/run-icount.sh)
#   bench-frontier  where a burst above quota wins, ties or loses against
#                 mainline at its best setting for the same long-run share:
#                 four loads at three shares each, ours at 100 ms with the
#                 burst burstctl advise finds, mainline swept over periods of
#                 10 ms to 1 s with burst = quota, under QEMU's -icount on one
#                 vCPU (host load cannot move a figure, so two boots run at
#                 once), 2 rounds; docs/bench-raw/frontier-DATE.jsonl,
#                 docs/benchmarks-frontier.md and .png (bench/run-frontier.sh)
#   bench-deps    gnuplot for the plot (bench/deps.sh)

BENCH_DIR := $(B)/bench
BURSTBENCH := $(BENCH_DIR)/burstbench
BURSTBENCH_LIB := bench/args.c bench/stats.c lib/cgroup.c lib/cgfile.c
BURSTBENCH_SRCS := bench/burstbench.c bench/util.c $(BURSTBENCH_LIB)
BENCH_TEST := $(BENCH_DIR)/test-bench
BENCH_TEST_SRCS := bench/test-main.c bench/test-stats.c bench/test-args.c \
	bench/test-cgroup.c bench/test-cli.c $(BURSTBENCH_LIB) lib/tap.c
BENCH_SUITE := $(BENCH_DIR)/bench-suite
COSTBENCH := $(BENCH_DIR)/costbench
COST_SUITE := $(BENCH_DIR)/cost-suite
FRONTIER_SUITE := $(BENCH_DIR)/frontier-suite
BENCH_INITRAMFS := $(BENCH_DIR)/initramfs.cpio.gz

# The tests run under UBSan: an out-of-range float-to-integer conversion (a
# rate whose interval overflows) yields 0 on x86-64 and would pass unseen.
BENCH_TEST_SANITIZE := -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all

# The instruction counts (make bench-icount): the plugin is built against
# the plugin API header of the QEMU the build root runs, from Debian's
# source package of that version (scripts/qemu-plugin-header.sh; never
# committed); the slowed kernel is ours plus one kernel/slowed/ diff.
ICOUNT_DIR := $(B)/icount
ICOUNT_HEADER := $(ICOUNT_DIR)/qemu-plugin.h
ICOUNT_PLUGIN := $(ICOUNT_DIR)/icount-plugin.so
ICOUNTBENCH := $(ICOUNT_DIR)/icountbench
ICOUNT_SUITE := $(ICOUNT_DIR)/icount-suite
ICOUNT_INITRAMFS := $(ICOUNT_DIR)/initramfs.cpio.gz
SLOWED_DIFF := kernel/slowed/refill-extra-work.diff
KERNEL_SLOWED := $(B)/kernel/bzImage-slowed

.PHONY: burstbench check-bench check-bench-runner bench bench-kernel bench-cost bench-icount bench-frontier \
	bench-deps icount-header-force

bench-deps:
	@bench/deps.sh

$(BURSTBENCH): $(BURSTBENCH_SRCS) bench/bb.h bench/util.h lib/cgroup.h lib/cgfile.h | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $(BURSTBENCH_SRCS) -lm

burstbench: $(BURSTBENCH)

# The images carry the binary make built (scripts/image-build.sh puts
# $IMAGE_BURSTBENCH in the workload container for `make bench`).
$(IMAGE) $(IMAGE_STOCK_INITRD) $(NODE_IMAGE): $(BURSTBENCH)
export IMAGE_BURSTBENCH := $(abspath $(BURSTBENCH))

$(COSTBENCH): bench/costbench.c bench/util.c lib/cgroup.c lib/cgfile.c bench/bb.h bench/util.h \
		lib/cgroup.h lib/cgfile.h | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ bench/costbench.c bench/util.c lib/cgroup.c lib/cgfile.c

$(BENCH_TEST): $(BENCH_TEST_SRCS) bench/bb.h bench/test.h lib/cgroup.h lib/tap.h | deps-kernel
	@mkdir -p $(@D)
	gcc -O2 -g -Wall -Wextra -Werror $(BENCH_TEST_SANITIZE) -o $@ $(BENCH_TEST_SRCS) -lm

# The report's tests also run the suite's run windows through the real
# burstbench; the runner's test boots stand-ins, no QEMU.
check-bench: $(BENCH_TEST) $(BURSTBENCH) $(BURSTCTL)
	@$(BENCH_TEST) $(BURSTBENCH)
	@BURSTBENCH=$(BURSTBENCH) BURSTCTL=$(BURSTCTL) python3 bench/test_report.py
	@python3 bench/test_cost.py
	@python3 bench/test_icount.py
	@BURSTCTL=$(BURSTCTL) python3 bench/test_frontier.py

# The kernel runner with a stand-in QEMU runner and burstbench (about a
# minute of process start-ups): run before every bench-kernel, not in make
# check, whose time make test pays.
check-bench-runner: $(BURSTBENCH)
	@bench/test-run-latency.sh

$(BENCH_SUITE): bench/suite.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(COST_SUITE): bench/cost-suite.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(FRONTIER_SUITE): bench/frontier-suite.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# One initramfs for the kernel benchmarks; the frontier records its loads
# with burstctl and asks it for their bursts in the guest.
$(BENCH_INITRAMFS): $(BURSTBENCH) $(BENCH_SUITE) $(COSTBENCH) $(COST_SUITE) $(FRONTIER_SUITE) $(BURSTCTL) \
		tests/qemu/init tests/qemu/mkinitramfs.sh
	@tests/qemu/mkinitramfs.sh $@ $(BURSTBENCH) $(BENCH_SUITE) $(COSTBENCH) $(COST_SUITE) $(FRONTIER_SUITE) $(BURSTCTL)

# Not a test: prints figures and never fails on a missed target; it fails on
# figures it cannot stand behind (a run short of its samples, a failed boot).
# Mainline with our config is the comparator that differs by the series alone.
bench-kernel: $(KERNEL) $(KERNEL_MAINLINE) $(BASELINE) $(BENCH_INITRAMFS) $(BURSTCTL) check-bench-runner | bench-deps
	@bench/run-latency.sh kernel $(KERNEL) $(KERNEL_MAINLINE) $(BASELINE) $(GUEST_FRAGMENT) \
		$(BENCH_INITRAMFS) $(BENCH_DIR)/results
	@$(MAKE) --no-print-directory bench-cost

bench-cost: $(KERNEL) $(KERNEL_MAINLINE) $(BENCH_INITRAMFS) | bench-deps
	@bench/run-cost.sh $(KERNEL) $(KERNEL_MAINLINE) $(GUEST_FRAGMENT) \
		$(BENCH_INITRAMFS) $(BENCH_DIR)/cost-results

# Not a test: figures only. -icount makes the guests' time the instructions
# they execute, so it needs no quiet host.
bench-frontier: $(KERNEL) $(KERNEL_MAINLINE) $(BENCH_INITRAMFS) $(BURSTCTL) | bench-deps
	@BURSTCTL=$(BURSTCTL) bench/run-frontier.sh $(KERNEL) $(KERNEL_MAINLINE) $(GUEST_FRAGMENT) \
		$(BENCH_INITRAMFS) $(BENCH_DIR)/frontier-results

# Not a test either; not part of `make test`.
bench: $(KERNEL) $(KERNEL_MAINLINE) $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD) $(BURSTCTL) check-bench-runner | bench-deps
	@bench/run-latency.sh image $(KERNEL) $(KERNEL_MAINLINE) $(BASELINE) $(GUEST_FRAGMENT) \
		$(IMAGE) $(IMAGE_STOCK_INITRD) $(BENCH_DIR)/image-results

# The header follows the installed QEMU: the script runs every time and
# rewrites the file only when its content changes.
$(ICOUNT_HEADER): icount-header-force | deps-kernel deps-crun
	@scripts/qemu-plugin-header.sh $@

$(ICOUNT_PLUGIN): bench/icount-plugin.c $(ICOUNT_HEADER)
	gcc -O2 -g -Wall -Wextra -Werror -shared -fPIC -I$(ICOUNT_DIR) -o $@ $<

$(ICOUNTBENCH): bench/icountbench.c bench/util.c lib/cgroup.c lib/cgfile.c bench/util.h \
		lib/cgroup.h lib/cgfile.h | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ bench/icountbench.c bench/util.c lib/cgroup.c lib/cgfile.c

$(ICOUNT_SUITE): bench/icount-suite.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(ICOUNT_INITRAMFS): $(ICOUNTBENCH) $(ICOUNT_SUITE) tests/qemu/init tests/qemu/mkinitramfs.sh
	@tests/qemu/mkinitramfs.sh $@ $(ICOUNTBENCH) $(ICOUNT_SUITE)

$(KERNEL_SLOWED): $(KERNEL_TREE_STAMP) $(GUEST_FRAGMENT) $(SLOWED_DIFF) scripts/kernel-build.sh scripts/kernel-slowed.sh
	@scripts/kernel-slowed.sh $(KERNEL_SRC) $(SLOWED_DIFF) $@ $(GUEST_FRAGMENT)

# Not a test: prints figures; it fails on figures it cannot stand behind (a
# failed boot, phases the guest and the plugin disagree on) and when the
# slowed kernel passes the bound, which could then show nothing.
bench-icount: $(KERNEL) $(KERNEL_MAINLINE) $(KERNEL_SLOWED) $(ICOUNT_INITRAMFS) $(ICOUNT_PLUGIN)
	@bench/run-icount.sh $(KERNEL) $(KERNEL_MAINLINE) $(KERNEL_SLOWED) $(GUEST_FRAGMENT) \
		$(ICOUNT_INITRAMFS) $(abspath $(ICOUNT_PLUGIN)) $(ICOUNT_DIR)/results
