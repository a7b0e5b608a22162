#!/bin/bash
# Fetch Debian's own packaged 6.1 kernel, the same Debian version as the
# linux-source-6.1 we patch, as the baseline with mainline burst semantics.
# It is only unpacked (never installed on the host) and booted in QEMU.
# Usage: scripts/baseline-kernel.sh OUT_VMLINUZ
set -euo pipefail

out=$1
tag=baseline-kernel
. "$(dirname "$0")/lib/apt.sh"
cache=${BURST_CACHE:-/var/cache/burst-cfs}/debs
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
mkdir -p "$cache"

image=$(apt-cache depends "linux-image-cloud-amd64=$version" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-6\.1[^ ]*\).*/\1/p' | head -1)
if [[ -z $image ]]; then
	apt_update "no linux-image-cloud-amd64 $version in the package lists yet"
	image=$(apt-cache depends "linux-image-cloud-amd64=$version" |
		sed -n 's/^ *Depends: \(linux-image-6\.1[^ ]*\).*/\1/p' | head -1)
fi
[[ -n $image ]] || { echo "baseline-kernel: no linux-image-cloud-amd64 $version in the archive" >&2; exit 1; }

deb=$(ls "$cache/${image}_${version//:/%3a}_amd64.deb" 2>/dev/null || true)
if [[ -z $deb ]]; then
	step "downloading $image $version (Debian's kernel, the baseline)" \
		bash -c 'cd "$1" && apt-get download -q -o APT::Sandbox::User=root "$2"' _ "$cache" "$image=$version"
	deb=$cache/${image}_${version//:/%3a}_amd64.deb
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
mkdir -p "$(dirname "$out")"
cp "$tmp"/boot/vmlinuz-* "$out"
echo "baseline-kernel: $out from $(basename "$deb")"
