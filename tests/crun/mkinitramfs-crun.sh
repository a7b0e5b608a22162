#!/bin/bash
# Build the initramfs of the crun guest suite: the harness's busybox
# initramfs (tests/qemu/mkinitramfs.sh) with SUITE under /tests, followed by
# a second archive holding crun from CRUN_DEB with the shared libraries it
# links, and a busybox root filesystem for the containers at
# /opt/crun/rootfs.  The kernel unpacks concatenated archives in order.
# Usage: tests/crun/mkinitramfs-crun.sh OUT.cpio.gz CRUN_DEB SUITE [PROGRAM...]
#   PROGRAM  static helpers of the suite, installed beside it under /tests
set -euo pipefail

out=$1 deb=$2 suite=$3
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
busybox=/bin/busybox
for f in "$deb" "$suite" "$busybox"; do
	[[ -r $f ]] || { echo "mkinitramfs-crun: $f not found" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$top/tests/qemu/mkinitramfs.sh" "$tmp/base.cpio.gz" "$suite" "$@" >/dev/null

stage=$tmp/stage
mkdir -p "$tmp/deb" "$stage/bin" "$stage/tmp"
dpkg-deb -x "$deb" "$tmp/deb"
install -m 755 "$tmp/deb/usr/bin/crun" "$stage/bin/crun"

# crun and every library it loads, at the paths the dynamic linker wants.
libs=$(ldd "$tmp/deb/usr/bin/crun" | grep -o '/[^ ]*' | sort -u)
[[ -n $libs ]] || { echo "mkinitramfs-crun: ldd found no libraries for crun" >&2; exit 1; }
for lib in $libs; do
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done

# The containers' root filesystem: static busybox with relative applet links.
rootfs=$stage/opt/crun/rootfs
mkdir -p "$rootfs"/{bin,proc,dev,sys,tmp,etc}
cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$busybox" --list); do
	[[ $applet == busybox ]] || ln -s busybox "$rootfs/bin/$applet"
done

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$tmp/crun.cpio.gz"
mkdir -p "$(dirname "$out")"
cat "$tmp/base.cpio.gz" "$tmp/crun.cpio.gz" >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs-crun: $out ($(du -h "$out" | cut -f1); crun $(dpkg-deb -f "$deb" Version), $(wc -w <<<"$libs") libraries)"
