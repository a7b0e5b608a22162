# The node kernel: what a node boots (docs/install.md, "The node kernel").
# Included by the top Makefile before mk/repo.mk, which ships it. Targets:
#   check-node-config  build/node-kernel/config/.config: Debian's configuration
#                for the flavour + kernel/config/node.config, checked as a
#                container host (scripts/node-kernel-check.sh), that check's
#                teeth and the boot-order rule (tests/node/); seconds, in
#                make check
#   node-kernel  build/node-kernel/debs/: the node kernel's packages
#                (scripts/node-kernel.sh), cached by its key; not in make
#                test: a cold build takes over an hour on two cores
#   test-node-kernel  the in-guest kernel suite (burst-kernel, as make
#                test-kernel-patched runs it) booted on the node kernel
#   node-kernel-check-updates  whether the archive (bookworm-security) has
#                a newer linux-source-6.1 than the last build, and what to run
# Variables:
#   NODE_FLAVOUR cloud-amd64 (default) or amd64: Debian's flavour the
#                configuration starts from

NODE_FLAVOUR ?= cloud-amd64
export NODE_FLAVOUR
NODE_KERNEL_DIR := $(B)/node-kernel
NODE_FRAGMENT := kernel/config/node.config
NODE_DEB_DIR := $(NODE_KERNEL_DIR)/debs
NODE_DEB_LIST := $(NODE_DEB_DIR)/debs.list
NODE_VMLINUZ := $(NODE_KERNEL_DIR)/vmlinuz
NODE_INITRD := $(NODE_KERNEL_DIR)/initrd.cpio.gz
NODE_KERNEL_SCRIPTS := scripts/node-kernel.sh scripts/node-kernel-config.sh \
	scripts/node-kernel-check.sh scripts/lib/node-kernel.sh scripts/lib/kconfig-check.sh

.PHONY: check-node-config node-kernel test-node-kernel node-kernel-check-updates

# In a tree of its own (the configuration alone), so that it runs beside a
# node kernel build.
check-node-config: $(KERNEL_TREE_STAMP) | deps-kernel
	@scripts/node-kernel-config.sh $(KERNEL_SRC) $(NODE_KERNEL_DIR)/config $(NODE_FRAGMENT)
	@tests/node/check-config-teeth.sh $(NODE_KERNEL_DIR)/config/.config $(B)/kernel/obj-guest/.config
	@tests/node/boot-order.sh $$(cat $(NODE_KERNEL_DIR)/config/release)

$(NODE_DEB_LIST): $(KERNEL_TREE_STAMP) $(NODE_FRAGMENT) $(NODE_KERNEL_SCRIPTS) | deps-kernel
	@scripts/node-kernel.sh $(KERNEL_SRC) $(NODE_KERNEL_DIR)/obj $(NODE_DEB_DIR) $(NODE_FRAGMENT)

node-kernel: $(NODE_DEB_LIST)

$(NODE_VMLINUZ) $(NODE_INITRD) &: $(NODE_DEB_LIST) scripts/node-kernel-boot.sh scripts/kernel-initrd.sh tests/e2e/stock-initrd-init
	@scripts/node-kernel-boot.sh $(NODE_DEB_DIR) $(NODE_VMLINUZ) $(NODE_INITRD)

test-node-kernel: $(NODE_VMLINUZ) $(INITRAMFS)
	@tests/qemu/run-guest.sh kernel-node $(NODE_VMLINUZ) $(INITRAMFS) burst-kernel patched 600

# Whether bookworm-security has a newer linux-source-6.1 than the last node
# kernel build (this clone's or a kept one), and what to run. Seconds.
node-kernel-check-updates: | deps-kernel
	@scripts/node-kernel-check-updates.sh $(wildcard $(NODE_DEB_DIR)/build.info) \
		$(wildcard $(BURST_CACHE)/node-kernel-builds/*/build.info)
