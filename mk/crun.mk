# crun with CPU burst: the patched Debian package, its host tests, its guest
# suite on both kernels.  Included by the top Makefile after B, KERNEL and
# BASELINE are defined.  See docs/crun.md.
#
#   make deps-crun     crun's build-dependencies and a deb-src source (root)
#   make crun          build/crun/crun.deb (from the cache when nothing changed)
#   make check-crun    host tests: unit tests, command line, oci-spec examples
#   make test-crun     the guest suite on our kernel and on Debian's

CRUN_OUT := $(B)/crun
CRUN_DEB := $(CRUN_OUT)/crun.deb
CRUN_UNIT := $(CRUN_OUT)/tests_libcrun_cpu_burst
CRUN_INITRAMFS := $(CRUN_OUT)/initramfs.cpio.gz

.PHONY: deps-crun crun check-crun test-crun test-crun-patched test-crun-stock crun-force

deps-crun:
	@scripts/build-deps.sh crun

# Always asks scripts/crun-build.sh: it rebuilds only when its cache key (the
# Debian source version, crun-patches/, itself) changes, and touches its
# outputs only when they change, so what depends on them is rebuilt only then.
$(CRUN_DEB): crun-force | deps-crun
	@scripts/crun-build.sh $(CRUN_OUT)

$(CRUN_UNIT): $(CRUN_DEB) ;

crun-force:

crun: $(CRUN_DEB)

check-crun: $(CRUN_DEB) $(CRUN_UNIT)
	@tests/crun/run-host-tests.sh $(CRUN_OUT)

# The suite's helpers: one holds a container's state lock as crun does,
# one watches cgroup files for writes while crun runs.
CRUN_HOLD_LOCK := $(CRUN_OUT)/hold-lock
CRUN_WATCH := $(CRUN_OUT)/watch-cgroup

$(CRUN_HOLD_LOCK): tests/crun/hold-lock.c | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(CRUN_WATCH): tests/crun/watch-cgroup.c | deps-kernel
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(CRUN_INITRAMFS): $(CRUN_DEB) $(CRUN_HOLD_LOCK) $(CRUN_WATCH) tests/crun/crun-suite tests/crun/mkinitramfs-crun.sh tests/qemu/mkinitramfs.sh tests/qemu/init
	@tests/crun/mkinitramfs-crun.sh $@ $(CRUN_DEB) tests/crun/crun-suite $(CRUN_HOLD_LOCK) $(CRUN_WATCH)

test-crun-patched: $(KERNEL) $(CRUN_INITRAMFS)
	@tests/qemu/run-guest.sh crun-patched $(KERNEL) $(CRUN_INITRAMFS) crun-suite patched 900

test-crun-stock: $(BASELINE) $(CRUN_INITRAMFS)
	@tests/qemu/run-guest.sh crun-stock $(BASELINE) $(CRUN_INITRAMFS) crun-suite stock 900

# Side by side, as test-kernel's pair (PAIR_JOBS).
test-crun: $(KERNEL) $(BASELINE) $(CRUN_INITRAMFS)
	@$(MAKE) --no-print-directory -j$(PAIR_JOBS) test-crun-patched test-crun-stock
