#!/bin/bash
# Make Debian's stock cloud kernel (build/baseline/vmlinuz) bootable on the
# e2e image without installing its package there:
#  - its modules (podman's overlay, veth, bridge, nf_tables... are modules in
#    that kernel), depmod'ed on the host, into an extra tree for mkosi;
#  - a small busybox initrd that loads the disk drivers and mounts the
#    image's root partition (scripts/kernel-initrd.sh).
# Our own kernel needs neither: everything is built in.
# Usage: scripts/image-stock.sh VMLINUZ MODULES_TREE_OUT INITRD_OUT
set -euo pipefail

vmlinuz=$1 tree=$2 initrd=$3
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BURST_CACHE:-/var/cache/burst-cfs}/debs

kver=$(file -b "$vmlinuz" | sed -n 's/.*, version \([^ ]*\) .*/\1/p')
[[ -n $kver ]] || { echo "image-stock: cannot read the kernel version of $vmlinuz" >&2; exit 1; }
shopt -s nullglob
debs=("$cache/linux-image-${kver}_"*_amd64.deb)
((${#debs[@]} == 1)) || { echo "image-stock: want one $cache/linux-image-${kver}_*.deb, found ${#debs[@]} (run make baseline)" >&2; exit 1; }
deb=${debs[0]}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
depmod -b "$tmp/pkg" "$kver"

rm -rf "$tree"
mkdir -p "$tree/usr/lib/modules"
cp -a "$tmp/pkg/lib/modules/$kver" "$tree/usr/lib/modules/"
echo "image-stock: $kver modules ($(du -sh "$tree" | cut -f1)) from $(basename "$deb")"

"$top/scripts/kernel-initrd.sh" "$tmp/pkg" "$kver" "$initrd"
