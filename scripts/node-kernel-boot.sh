#!/bin/bash
# What QEMU boots the node kernel with, taken from its package: the vmlinuz
# (the in-guest kernel suite boots it with the harness's initramfs, which
# needs no module) and an initrd that loads the disk drivers, which Debian's
# configuration builds as modules (the node image's boot).
# Usage: scripts/node-kernel-boot.sh DEB_DIR VMLINUZ_OUT INITRD_OUT
#   DEB_DIR  scripts/node-kernel.sh's output: debs.list and the packages
set -euo pipefail

dir=$1 vmlinuz=$2 initrd=$3
top=$(cd "$(dirname "$0")/.." && pwd)
image=$dir/$(grep '^linux-image-[0-9]' "$dir/debs.list")
[[ -f $image ]] || { echo "node-kernel-boot: no linux-image package in $dir/debs.list" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$image" "$tmp/pkg"
release=$(cd "$tmp/pkg/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//')
depmod -b "$tmp/pkg" "$release"
mkdir -p "$(dirname "$vmlinuz")"
cp "$tmp/pkg/boot/vmlinuz-$release" "$vmlinuz.tmp"
mv "$vmlinuz.tmp" "$vmlinuz"
"$top/scripts/kernel-initrd.sh" "$tmp/pkg" "$release" "$initrd"
echo "node-kernel-boot: $vmlinuz ($release) from $(basename "$image")"
