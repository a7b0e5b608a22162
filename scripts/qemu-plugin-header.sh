#!/bin/bash
# Put the TCG plugin API header (include/qemu/qemu-plugin.h) of the QEMU the
# build root runs at OUT_HEADER, taken from Debian's own source package of
# that exact version (apt-get source through the deb-src source of
# scripts/build-deps.sh): a plugin must be built against the API of the
# binary that loads it, and the header is QEMU's code, never ours to commit.
# Usage: scripts/qemu-plugin-header.sh OUT_HEADER
#
# The source (23 MB) is downloaded and unpacked with Debian's patches once
# per version; only the header is kept, in $BURST_CACHE/src/qemu_VERSION/.
set -euo pipefail

out=$1
cache=${BURST_CACHE:-/var/cache/burst-cfs}
tag=qemu-plugin-header
die() { echo "$tag: $*" >&2; exit 1; }

for tool in apt-get dpkg-source dpkg-query; do
	command -v "$tool" >/dev/null || die "$tool missing (make deps)"
done
# The source version of the installed binary (a binNMU's +bN is not in it).
version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (make deps)"
dir=$cache/src/qemu_$version
header=$dir/qemu-plugin.h

mkdir -p "$cache/src"
exec 9>"$dir.lock"
flock 9
if [[ ! -f $header ]]; then
	echo "$tag: downloading and unpacking Debian's source of qemu $version (once per version)"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get source -q --download-only -o APT::Sandbox::User=root "qemu=$version" >/dev/null) ||
		die "apt-get source qemu=$version failed (is there a deb-src source? make deps)"
	# dpkg-source applies Debian's patches: the header as the binary was built.
	dpkg-source -q -x "$dir.tmp/qemu_${version#*:}.dsc" "$dir.tmp/tree" >/dev/null 2>&1 ||
		die "dpkg-source -x of qemu $version failed"
	[[ -f $dir.tmp/tree/include/qemu/qemu-plugin.h ]] || die "qemu $version's source has no include/qemu/qemu-plugin.h"
	mkdir -p "$dir"
	cp "$dir.tmp/tree/include/qemu/qemu-plugin.h" "$header.tmp"
	mv "$header.tmp" "$header"
	rm -rf "$dir.tmp"
fi
mkdir -p "$(dirname "$out")"
cmp -s "$header" "$out" 2>/dev/null || cp "$header" "$out"
echo "$tag: $out from Debian's qemu $version (API version $(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$out"))"
