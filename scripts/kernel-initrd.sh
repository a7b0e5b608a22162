#!/bin/bash
# A small busybox initrd for a kernel whose disk drivers are modules
# (Debian's stock cloud kernel, our node kernel): it loads virtio-pci and
# the disk drivers (virtio-blk for a plain qemu -drive, virtio-scsi + sd for
# `mkosi qemu`, which attaches the image as a SCSI disk), mounts the image's
# root partition and hands over to systemd (tests/e2e/stock-initrd-init).
# Usage: scripts/kernel-initrd.sh PKG_TREE KVER OUT
#   PKG_TREE  the kernel package unpacked, depmod'ed (lib/modules/KVER)
set -euo pipefail

pkg=$1 kver=$2 initrd=$3
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Initrd: the modules the root disk needs, in dependency order.
mkdir -p "$tmp/initrd"/{bin,dev,proc,sys,modules,newroot}
cp /bin/busybox "$tmp/initrd/bin/busybox"
for applet in $(/bin/busybox --list); do
	[[ $applet == busybox ]] || ln -s busybox "$tmp/initrd/bin/$applet"
done
modprobe -d "$pkg" -S "$kver" --show-depends -a virtio_pci virtio_blk virtio_scsi sd_mod |
	awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' >"$tmp/list"
[[ -s $tmp/list ]] || { echo "kernel-initrd: no module list for virtio_pci virtio_blk virtio_scsi sd_mod" >&2; exit 1; }
while read -r ko; do
	cp "$ko" "$tmp/initrd/modules/"
	basename "$ko" >>"$tmp/initrd/modules/order"
done <"$tmp/list"
install -m 755 "$top/tests/e2e/stock-initrd-init" "$tmp/initrd/init"
mkdir -p "$(dirname "$initrd")"
(cd "$tmp/initrd" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$initrd.tmp"
mv "$initrd.tmp" "$initrd"
echo "kernel-initrd: $initrd ($(du -h "$initrd" | cut -f1): $(tr '\n' ' ' <"$tmp/initrd/modules/order"))"
