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
log() { echo "$tag: $*"; }
die() { echo "$tag: $*" >&2; exit 1; }
. "$(dirname "$0")/lib/debsrc.sh"

for tool in apt-get dpkg-source dpkg-query; do
	command -v "$tool" >/dev/null || die "$tool missing (make deps)"
done
# The source version of the installed binary (a binNMU's +bN is not in it).
version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (make deps)"
dir=$cache/src/qemu_$version
header=$dir/qemu-plugin.h

if [[ ! -f $header ]]; then
	debsrc_fetch qemu "$version" "$dir/source"
	# dpkg-source applies Debian's patches: the header as the binary was built.
	exec 9>"$dir.lock"
	flock 9
	if [[ ! -f $header ]]; then
		# dpkg-source -x also leaves a copy of the orig tarball beside the
		# tree: both go in unpack/, deleted whole.
		rm -rf "$dir/unpack"
		mkdir -p "$dir/unpack"
		dpkg-source -q -x "$dir/source/qemu_${version#*:}.dsc" "$dir/unpack/tree" >/dev/null 2>&1 ||
			die "dpkg-source -x of qemu $version failed"
		[[ -f $dir/unpack/tree/include/qemu/qemu-plugin.h ]] || die "qemu $version's source has no include/qemu/qemu-plugin.h"
		cp "$dir/unpack/tree/include/qemu/qemu-plugin.h" "$header.tmp"
		mv "$header.tmp" "$header"
		rm -rf "$dir/unpack" "$dir/source"
	fi
fi
mkdir -p "$(dirname "$out")"
cmp -s "$header" "$out" 2>/dev/null || cp "$header" "$out"
echo "$tag: $out from Debian's qemu $version (API version $(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$out"))"
