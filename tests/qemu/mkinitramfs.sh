#!/bin/bash
# Build a busybox initramfs that runs the guest test suites at boot.
# Usage: tests/qemu/mkinitramfs.sh OUT.cpio.gz PROGRAM...
# Each PROGRAM (static binary or script) is installed under /tests.
set -euo pipefail

out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
[[ -x $busybox ]] || { echo "mkinitramfs: $busybox missing (make deps)" >&2; exit 1; }
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	{ echo "mkinitramfs: $busybox is not static (install busybox-static)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,proc,sys,dev,tmp,tests,etc}
cp "$busybox" "$stage/bin/busybox"
# Relative links: the tree must be self-contained once unpacked.
for applet in $("$busybox" --list); do
	[[ $applet == busybox ]] || ln -s busybox "$stage/bin/$applet"
done
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"
for prog in "$@"; do
	install -m 755 "$prog" "$stage/tests/$(basename "$prog")"
done
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(du -h "$out" | cut -f1), $# programs)"
