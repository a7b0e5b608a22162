# A node, and the image for a person. Included by the top Makefile after
# mk/repo.mk and mk/image.mk. Targets:
#   node-image   build/node/image.raw: the e2e image with the node kernel
#                (mk/node-kernel.mk) installed from our repository too;
#                mkosi copies the installed vmlinuz out as
#                build/node/image.vmlinuz and boots that, with an initrd for
#                the disk drivers the node kernel has as modules
#   test-node    one boot of the node image on its installed kernel, the e2e
#                suite's smoke subset (NODE_SMOKE); checks the guest runs the
#                repository's kernel, crun and podman
#   install-image  build/install/image.raw: a fresh Debian node (Debian's
#                kernel, crun and podman) with our repository in /srv/burst-cfs
#                and Debian's crun and podman in /srv/debian-local (it has no
#                network)
#   test-install docs/install.md as typed on a copy of it, in three boots:
#                install, reboot into what GRUB picks (ours), verify, roll
#                back, reboot into what GRUB picks (Debian's), verify
#                (tests/node/run-install.sh)
#   vm           the e2e image on our kernel, interactive: root shell on the
#                console, commands to try (scripts/vm.sh)
#   vm-node      the same with the node image on its installed kernel
#   test-vm      drives `make vm` in tmux: logs in, runs what docs/install.md
#                verifies (uname -r, crun --version, a container with
#                --cpu-burst), powers off; fails on any wrong answer
# Variables:
#   NODE_SMOKE   e2e cases the node boot runs (tests/e2e/suite.sh's names)

NODE_DIR := $(B)/node
NODE_IMAGE := $(NODE_DIR)/image.raw
NODE_SMOKE ?= t_quota_only,t_ann_above_quota,t_spin_burst_above,t_pm_burst,t_pm_burst_above,t_pm_run_d_inspect,t_pm_update_above,t_bridge_network,t_rootless_cpu_burst,t_cri_setup,t_cri_pod_list

INSTALL_DIR := $(B)/install
INSTALL_IMAGE := $(INSTALL_DIR)/image.raw
DEBIAN_LOCAL := $(B)/debian-local
DEBIAN_LOCAL_STAMP := $(DEBIAN_LOCAL)/dists/bookworm/Release

.PHONY: node-image test-node vm vm-node test-vm install-image test-install

$(NODE_IMAGE): $(IMAGE_INPUTS) $(BASELINE) $(IMAGE_DEBS) $(BURSTCTL_DEB) $(REPO_STAMP) | image-deps
	@scripts/image-build.sh $(NODE_DIR) $(BASELINE) $(REPO) $(IMAGE_DEBS) $(BURSTCTL_DEB) \
		$(NODE_DEB_DIR)/$$(grep '^linux-image-[0-9]' $(NODE_DEB_LIST))

node-image: $(NODE_IMAGE)

test-node: $(NODE_IMAGE) $(NODE_INITRD)
	@tests/e2e/run-node.sh $(NODE_IMAGE) $(NODE_INITRD) $(REPO) '$(NODE_SMOKE)' $(E2E_TIMEOUT)

vm: $(KERNEL) $(IMAGE)
	@scripts/vm.sh $(KERNEL) $(IMAGE)

vm-node: $(NODE_IMAGE) $(NODE_INITRD)
	@scripts/vm.sh installed $(NODE_IMAGE) $(NODE_INITRD)

test-vm: $(KERNEL) $(IMAGE) | image-deps
	@tests/e2e/drive-vm.sh $(B)/results/vm vm

$(DEBIAN_LOCAL_STAMP): scripts/debian-local-repo.sh | image-deps
	@scripts/debian-local-repo.sh $(DEBIAN_LOCAL)

# Debian's kernel and apt (which the other images do without) are added
# to the scenario's own cached base (IMAGE_BASE), as volatile packages.
$(INSTALL_IMAGE): $(IMAGE_INPUTS) $(BASELINE) $(REPO_STAMP) $(DEBIAN_LOCAL_STAMP) | image-deps
	@IMAGE_BASE=incremental-install IMAGE_MKOSI_ARGS="--volatile-package linux-image-$(NODE_FLAVOUR) --volatile-package apt \
		--extra-tree $(CURDIR)/$(REPO):/srv/burst-cfs --extra-tree $(CURDIR)/$(DEBIAN_LOCAL):/srv/debian-local" \
		scripts/image-build.sh $(INSTALL_DIR) $(BASELINE)

install-image: $(INSTALL_IMAGE)

test-install: $(INSTALL_IMAGE)
	@tests/node/run-install.sh $(INSTALL_DIR) $(E2E_TIMEOUT)
