# Our packages as a node installs them (docs/install.md). Included by the top
# Makefile after B, KERNEL and IMAGE_DEBS are defined, before mk/image.mk
# (the image installs crun and podman from a repository) and mk/node.mk
# (which builds the node kernel). Targets:
#   repo         build/repo/: a signed apt repository (reprepro) with the node
#                kernel (make node-kernel: its packages, metapackages and the
#                build before in the component previous), crun, podman and burstctl
#                (mk/burstctl.mk makes its package); what an operator copies
#                to a node
#   image-repo   build/image-repo/: the same with crun and podman only, which
#                the e2e image installs as a node does; `make test` builds it
#                and never waits on the node kernel's build

REPO := $(B)/repo
REPO_STAMP := $(REPO)/PACKAGES
IMAGE_REPO := $(B)/image-repo
IMAGE_REPO_STAMP := $(IMAGE_REPO)/PACKAGES
BURSTCTL_DEB := $(B)/burstctl/burstctl.deb
REPO_INPUTS := scripts/repo-build.sh mkosi.extra/etc/apt/preferences.d/burst-packages.pref

.PHONY: repo image-repo

# scripts/kernel-build.sh sources the build environment it shares with
# scripts/node-kernel.sh.
$(KERNEL) $(KERNEL_DEBUG) $(KERNEL_KCSAN) $(KERNEL_MAINLINE): scripts/lib/kbuild.sh scripts/lib/kconfig-base.sh

# With every node kernel build kept (scripts/node-kernel.sh): main gets the
# newest of each package, previous the one before.
$(REPO_STAMP): $(NODE_DEB_LIST) $(IMAGE_DEBS) $(BURSTCTL_DEB) $(REPO_INPUTS) | image-deps
	@scripts/repo-build.sh $(REPO) $$(sed 's,^,$(NODE_DEB_DIR)/,' $(NODE_DEB_LIST)) \
		$$(ls $(BURST_CACHE)/node-kernel-builds/*/*.deb 2>/dev/null) $(IMAGE_DEBS) $(BURSTCTL_DEB)

repo: $(REPO_STAMP)

$(IMAGE_REPO_STAMP): $(IMAGE_DEBS) $(REPO_INPUTS) | image-deps
	@scripts/repo-build.sh $(IMAGE_REPO) $(IMAGE_DEBS)

image-repo: $(IMAGE_REPO_STAMP)
