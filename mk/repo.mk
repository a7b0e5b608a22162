# Our packages as a node installs them (docs/install.md). Included by the top
# Makefile after B, KERNEL, KERNEL_SRC and IMAGE_DEBS are defined, before
# mk/image.mk (the image installs crun and podman from the repository).
# Targets:
#   kernel-deb   build/kernel-deb/: linux-image and linux-headers of our
#                kernel, bindeb-pkg in the guests' object tree (obj-guest),
#                cached by the kernel's key like the bzImage
#   repo         build/repo/: a signed apt repository (reprepro) with those,
#                crun and podman; what an operator copies to a node

KERNEL_DEB_DIR := $(B)/kernel-deb
KERNEL_DEB_LIST := $(KERNEL_DEB_DIR)/debs.list
REPO := $(B)/repo
REPO_STAMP := $(REPO)/PACKAGES

.PHONY: kernel-deb repo

# scripts/kernel-build.sh sources the build environment it shares with
# scripts/kernel-deb.sh.
$(KERNEL) $(KERNEL_DEBUG) $(KERNEL_KCSAN) $(KERNEL_MAINLINE): scripts/lib/kbuild.sh scripts/lib/kconfig-base.sh

$(KERNEL_DEB_LIST): $(KERNEL) scripts/kernel-deb.sh scripts/lib/kbuild.sh | deps-kernel
	@KERNEL_TESTED=$(KERNEL) scripts/kernel-deb.sh $(KERNEL_SRC) $(B)/kernel/obj-guest $(KERNEL_DEB_DIR) $(GUEST_FRAGMENT)

kernel-deb: $(KERNEL_DEB_LIST)

$(REPO_STAMP): $(KERNEL_DEB_LIST) $(IMAGE_DEBS) scripts/repo-build.sh \
		mkosi.extra/etc/apt/preferences.d/burst-packages.pref | image-deps
	@scripts/repo-build.sh $(REPO) $$(sed 's,^,$(KERNEL_DEB_DIR)/,' $(KERNEL_DEB_LIST)) $(IMAGE_DEBS)

repo: $(REPO_STAMP)
