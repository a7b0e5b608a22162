#!/bin/bash
# Make Debian's stock cloud kernel (build/baseline/vmlinuz) bootable on the
# e2e image without installing its package there:
#  - its modules (podman's overlay, veth, bridge, nf_tables... are modules in
#    that kernel), depmod'ed on the host, into an extra tree for mkosi;
#  - a small busybox initrd that loads virtio-pci and the disk drivers
#    (virtio-blk for a plain qemu -drive, virtio-scsi + sd for `mkosi qemu`,
#    which attaches the image as a SCSI disk) and mounts the image's root
#    partition (tests/e2e/stock-initrd-init).
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

# Initrd: the modules the root disk needs, in dependency order.
mkdir -p "$tmp/initrd"/{bin,dev,proc,sys,modules,newroot}
cp /bin/busybox "$tmp/initrd/bin/busybox"
for applet in $(/bin/busybox --list); do
	[[ $applet == busybox ]] || ln -s busybox "$tmp/initrd/bin/$applet"
done
modprobe -d "$tmp/pkg" -S "$kver" --show-depends -a virtio_pci virtio_blk virtio_scsi sd_mod |
	awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' >"$tmp/list"
[[ -s $tmp/list ]] || { echo "image-stock: no module list for virtio_pci virtio_blk virtio_scsi sd_mod" >&2; exit 1; }
while read -r ko; do
	cp "$ko" "$tmp/initrd/modules/"
	basename "$ko" >>"$tmp/initrd/modules/order"
done <"$tmp/list"
install -m 755 "$top/tests/e2e/stock-initrd-init" "$tmp/initrd/init"
mkdir -p "$(dirname "$initrd")"
(cd "$tmp/initrd" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$initrd.tmp"
mv "$initrd.tmp" "$initrd"
echo "image-stock: $initrd ($(du -h "$initrd" | cut -f1): $(tr '\n' ' ' <"$tmp/initrd/modules/order"))"
