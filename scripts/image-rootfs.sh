#!/bin/bash
# Build the workload container's root filesystem, offline: static busybox
# with relative applet links (busybox --install -s would write absolute
# links to host paths and the container would find no /bin/sh) plus the
# static workload programs (burst-spin, burstbench) in /bin. Podman runs it
# with --rootfs; no registry.
# Usage: scripts/image-rootfs.sh OUT_DIR STATIC_BINARY...
set -euo pipefail

out=$1
shift
busybox=/bin/busybox
[[ -x $busybox ]] || { echo "image-rootfs: $busybox missing (scripts/image-deps.sh)" >&2; exit 1; }
is_static() { file -bL "$1" | grep -q 'statically linked'; }
is_static "$busybox" ||
	{ echo "image-rootfs: $busybox is not static (install busybox-static)" >&2; exit 1; }
for bin in "$@"; do
	is_static "$bin" || { echo "image-rootfs: $bin is not static" >&2; exit 1; }
done

rm -rf "$out.tmp"
mkdir -p "$out.tmp"/{bin,dev,proc,sys,tmp,run,etc,root}
cp "$busybox" "$out.tmp/bin/busybox"
for applet in $("$busybox" --list); do
	[[ $applet == busybox ]] || ln -s busybox "$out.tmp/bin/$applet"
done
for bin in "$@"; do
	install -m 755 "$bin" "$out.tmp/bin/$(basename "$bin")"
done
# Mount points podman binds over; present so a rootless run need not create them.
: >"$out.tmp/etc/hosts"
: >"$out.tmp/etc/hostname"
: >"$out.tmp/etc/resolv.conf"
echo 'root:x:0:0:root:/root:/bin/sh' >"$out.tmp/etc/passwd"
echo 'root:x:0:' >"$out.tmp/etc/group"
chmod 1777 "$out.tmp/tmp"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "image-rootfs: $out ($(du -sh "$out" | cut -f1))"
