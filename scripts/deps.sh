#!/bin/bash
# Install, idempotently, every Debian package the kernel build and the QEMU
# guests need. One line per step; apt's output in build/logs/deps.log.
# Usage: scripts/deps.sh [GROUP...]   GROUP: kernel (default), fuzz, secure-boot
set -euo pipefail

tag=deps
. "$(dirname "$0")/lib/apt.sh"

declare -A groups=(
	# fakeroot: `make node-kernel` (bindeb-pkg) packs as a fake root.
	# linux-source-6.12: the series' port (kernel/6.12, make test-kernel-6.12).
	# linux-config-6.1: Debian's own kernel configurations, which the node
	# kernel starts from (scripts/node-kernel-config.sh); lz4 compresses
	# its bzImage, as Debian's configuration says (CONFIG_KERNEL_LZ4), and
	# dwarves' pahole makes its BTF (kernel/config/node.config).
	[kernel]="linux-source-6.1 linux-source-6.12 linux-config-6.1 lz4 dwarves build-essential bc bison flex libelf-dev
		libssl-dev cpio zstd xz-utils kmod rsync git ccache quilt
		devscripts dpkg-dev fakeroot qemu-system-x86 busybox-static perl
		python3 libc6-dev"
	# The libFuzzer harnesses (mk/fuzz.mk); crun's build-dependencies come
	# from scripts/build-deps.sh crun.
	[fuzz]="clang libclang-rt-14-dev"
	# make test-secure-boot: OVMF's Secure Boot firmware, sbsign/sbverify,
	# the signature lists and authenticated variables of efitools.
	[secure-boot]="ovmf sbsigntool efitools openssl"
)
declare -A why=([kernel]="the kernel build and the QEMU guests"
	[fuzz]="the fuzz harnesses of crun's burst parsers"
	[secure-boot]="the Secure Boot guest")

for group in "${@:-kernel}"; do
	[[ -n ${groups[$group]+x} ]] || { echo "deps: unknown group '$group' (known: ${!groups[*]})" >&2; exit 2; }
	read -r -a pkgs <<<"$(echo ${groups[$group]})"
	apt_install "${why[$group]}" -- "${pkgs[@]}"
done
