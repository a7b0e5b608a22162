# The mkosi end-to-end image and its suite (docs/image.md).
# Included by the top Makefile after its definitions of B, KERNEL and
# BASELINE. Targets:
#   image-deps   the mkosi root's check, reprepro, qemu... (scripts/image-deps.sh)
#   image        build/image/image.raw + build/image/initrd-stock.cpio.gz
#   e2e          the e2e suite on our kernel and on Debian's stock kernel, both
#                boots at once when there are two cores (E2E_PARALLEL=0: in turn)
#   e2e-patched  the suite on our kernel only
#   e2e-stock    the suite on Debian's stock kernel only
#   e2e-faults   crun SIGKILLed during run and update, on both kernels
#   e2e-shapes   the pod shapes a kubelet makes (init container, sidecar,
#                RuntimeClass overhead, pod-level limit, 50 ms period,
#                Guaranteed, a restarted container) through containerd, on
#                both kernels, with and without the pod-level burst; not in
#                make test (about N min a boot beside the other)
#   test-harness-image  the image runner's self-test: it must fail every
#                way a boot can go wrong (tests/e2e/selftest.sh)
#   image-demo   boots the image on both kernels: a bursty container without
#                and with burst, as a table
# Variables:
#   IMAGE_DEBS      our .debs (crun, podman: files or make targets that build
#                   them), installed over Debian's from our repository
#                   (mk/repo.mk, which holds them); without them the burst
#                   cases fail
#   E2E_TIMEOUT     seconds one boot may take (default 1500: a boot takes about
#                   9 min alone, 14 min beside the other; a hung case is
#                   killed by the suite's own watchdog long before)

IMAGE_DIR := $(B)/image
IMAGE := $(IMAGE_DIR)/image.raw
IMAGE_STOCK_INITRD := $(IMAGE_DIR)/initrd-stock.cpio.gz
IMAGE_DEBS ?=
E2E_TIMEOUT ?= 1500
IMAGE_INPUTS := mkosi.conf $(shell find mkosi.extra -type f 2>/dev/null) \
	tests/e2e/suite.sh tests/e2e/demo.sh tests/e2e/burst-spin.c tests/e2e/stock-initrd-init \
	tests/node/install-step docs/install.md \
	tests/e2e/cri-cases.sh tests/e2e/load-cases.sh tools/cri/cri.proto tools/cri/cri-client tools/cri/oci-image tools/cri/stage.sh \
	scripts/image-build.sh scripts/image-rootfs.sh scripts/image-stock.sh scripts/kernel-initrd.sh scripts/lib/image-root.sh \
	bench/suite.sh bench/image-bench.sh
# Rebuild when the choice of packages changes, not only when their files do.
IMAGE_DEBS_CHOICE := $(IMAGE_DIR)/debs-choice

.PHONY: image-deps image e2e e2e-v1 e2e-patched e2e-stock e2e-faults e2e-shapes test-harness-image image-demo FORCE

image-deps:
	@scripts/image-deps.sh

$(IMAGE_DEBS_CHOICE): FORCE
	@mkdir -p $(@D)
	@echo '$(IMAGE_DEBS)' | cmp -s - $@ || echo '$(IMAGE_DEBS)' >$@

# The repository is order-only: its files change with every rebuild (a new
# signature), the packages the image carries only with IMAGE_DEBS.
$(IMAGE) $(IMAGE_STOCK_INITRD) &: $(IMAGE_INPUTS) $(BASELINE) $(IMAGE_DEBS) $(IMAGE_DEBS_CHOICE) | image-deps $(if $(IMAGE_DEBS),$(IMAGE_REPO_STAMP))
	@scripts/image-build.sh $(IMAGE_DIR) $(BASELINE) $(if $(IMAGE_DEBS),$(IMAGE_REPO) $(IMAGE_DEBS))

image: $(IMAGE) $(IMAGE_STOCK_INITRD)

e2e-patched: $(KERNEL) $(IMAGE)
	@tests/e2e/run-image.sh e2e-patched $(KERNEL) none $(IMAGE) patched $(E2E_TIMEOUT)

e2e-stock: $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD)
	@tests/e2e/run-image.sh e2e-stock $(BASELINE) $(IMAGE_STOCK_INITRD) $(IMAGE) stock $(E2E_TIMEOUT)

# The cases that hold on cgroup v1 too, with systemd booted on v1: what
# systemd's reload and re-exec do to a container's CPU limits with either
# cgroup driver (the e2e pair is v2 only). One boot of our kernel, on one
# core: make test runs it beside the stress suite. Only the suite's unit
# and what it needs start (podman needs D-Bus and systemd, not the rest
# of multi-user).
E2E_V1_CASES := t_reload_keeps
e2e-v1: $(KERNEL) $(IMAGE)
	@EXTRA_APPEND="systemd.unified_cgroup_hierarchy=0 systemd.unit=burst-e2e.service burstcfs.e2e.only=$(E2E_V1_CASES) $(EXTRA_APPEND)" \
		tests/e2e/run-image.sh e2e-v1 $(KERNEL) none $(IMAGE) patched 600

# Both boots run, side by side on two cores (tests/e2e/run-both.sh); the
# target fails if either did.
test-harness-image: $(KERNEL) $(IMAGE) tests/lib/verdict.sh
	@tests/e2e/selftest.sh $(KERNEL) $(IMAGE)

e2e: $(KERNEL) $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD)
	@tests/e2e/run-both.sh $(KERNEL) $(BASELINE) $(IMAGE_STOCK_INITRD) $(IMAGE) $(E2E_TIMEOUT)

# Only the two cases that SIGKILL crun half-way, on both kernels: they are
# in make test's e2e too; this repeats them alone (their kills land at
# random points, so more runs find more).
e2e-faults: $(KERNEL) $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD)
	@EXTRA_APPEND="burstcfs.e2e.only=t_fault_update,t_fault_create $(EXTRA_APPEND)" \
		tests/e2e/run-both.sh $(KERNEL) $(BASELINE) $(IMAGE_STOCK_INITRD) $(IMAGE) $(E2E_TIMEOUT)

# The shape cases (tests/e2e/cri-cases.sh's cri_shape_tests) after the CRI
# setup, both kernels side by side; their logs in $(B)/results/e2e-shapes
# so that they never stand for make test's e2e.
E2E_SHAPES_CASES := t_cri_setup,t_cri_shape_init,t_cri_shape_sidecar,t_cri_shape_overhead,t_cri_shape_podlevel,t_cri_shape_period,t_cri_shape_guaranteed,t_cri_shape_restart,t_cri_shape_teeth
e2e-shapes: $(KERNEL) $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD)
	@RESULTS_DIR=$(abspath $(B))/results/e2e-shapes EXTRA_APPEND="burstcfs.e2e.only=$(E2E_SHAPES_CASES) $(EXTRA_APPEND)" \
		tests/e2e/run-both.sh $(KERNEL) $(BASELINE) $(IMAGE_STOCK_INITRD) $(IMAGE) $(E2E_TIMEOUT)

image-demo: $(KERNEL) $(BASELINE) $(IMAGE) $(IMAGE_STOCK_INITRD)
	@scripts/image-demo.sh $(KERNEL) $(BASELINE) $(IMAGE_STOCK_INITRD) $(IMAGE)

FORCE:
