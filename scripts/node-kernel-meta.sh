#!/bin/bash
# The node kernel's metapackages, as Debian's linux-image-cloud-amd64 follows
# Debian's latest ABI: linux-image-burst-FLAVOUR depends on exactly our
# latest build (linux-image-RELEASE (= VERSION)) and linux-headers-burst-FLAVOUR
# on its headers, so `apt upgrade` moves a node to each new build, a new
# ABI's included, and `apt-mark hold linux-image-burst-FLAVOUR` stops that.
# Usage: scripts/node-kernel-meta.sh FLAVOUR RELEASE VERSION OUT_DIR
#   writes OUT_DIR/linux-{image,headers}-burst-FLAVOUR_VERSION_amd64.deb
set -euo pipefail

flavour=$1 release=$2 version=$3 out=$4
case $flavour in
cloud-amd64) what="x86-64 cloud" ;;
amd64) what="64-bit PCs" ;;
*) echo "node-kernel-meta: flavour '$flavour': must be cloud-amd64 or amd64" >&2; exit 2 ;;
esac
[[ $release == 6.1.0-*-$flavour-burst ]] ||
	{ echo "node-kernel-meta: release '$release' is not 6.1.0-N-$flavour-burst" >&2; exit 2; }
[[ $version =~ ^6\.1\.[0-9]+-[0-9a-z.~+]+\+burst[0-9]+$ ]] ||
	{ echo "node-kernel-meta: version '$version' is not LINUX_SOURCE_VERSION+burstN" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

meta() { # meta KIND DEPENDS DESCRIPTION
	local name=$1-burst-$flavour dir=$tmp/$1
	mkdir -p "$dir/DEBIAN" "$dir/usr/share/doc/$name"
	chmod 755 "$dir" "$dir/usr" "$dir/usr/share" "$dir/usr/share/doc" "$dir/usr/share/doc/$name"
	cat >"$dir/usr/share/doc/$name/copyright" <<'COPY'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: burst-cfs node kernel metapackage

Files: *
License: GPL-2.0
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
COPY
	chmod 644 "$dir/usr/share/doc/$name/copyright"
	cat >"$dir/DEBIAN/control" <<CTRL
Package: $name
Source: linux-burst-cfs-node
Version: $version
Architecture: amd64
Maintainer: burst-cfs maintainers <maintainers@users.noreply.a-seed-b38bfef3.example>
Installed-Size: 12
Depends: $2
Section: kernel
Priority: optional
Description: $3 for $what, with burst-cfs (meta-package)
 This package depends on the latest burst-cfs build of Debian's Linux
 kernel for $what ($release, $version): Debian's kernel with the
 burst-cfs series (CPU bandwidth burst above quota). Holding it
 (apt-mark hold) holds the node on its current build.
CTRL
	dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/${name}_${version}_amd64.deb" >/dev/null
}
meta linux-image "linux-image-$release (= $version)" "Linux"
meta linux-headers "linux-headers-$release (= $version), linux-image-burst-$flavour (= $version)" "Header files for Linux"
echo "node-kernel-meta: linux-image-burst-$flavour and linux-headers-burst-$flavour $version -> $release"
