#!/bin/bash
# The node kernel's Debian packages: linux-image-REL and linux-headers-REL
# (kbuild's bindeb-pkg), REL being Debian's ABI and flavour plus -burst
# (scripts/lib/node-kernel.sh), configured by scripts/node-kernel-config.sh.
# Its own object tree; the source tree and ccache are the guests'.
# Usage: scripts/node-kernel.sh SRC_DIR OBJ_DIR OUT_DIR FRAGMENT
#   OUT_DIR receives the two packages and debs.list (their names)
# The packages are kept in $BURST_CACHE/kernels/node-debs-KEY: the next
# clone with the same tree, configuration and compiler copies them (a cold
# build is an hour or more on two cores).
set -euo pipefail

src=$(realpath "$1")
obj=$(realpath -m "$2")
out=$3
fragment=$(realpath "$4")
here=$(cd "$(dirname "$0")" && pwd)
tag=node-kernel
. "$here/lib/kbuild.sh"
. "$here/lib/node-kernel.sh"

"$here/node-kernel-config.sh" "$src" "$obj" "$fragment"
key=$(kbuild_key "$fragment" "$obj/.config.debian" "$here/lib/node-kernel.sh" "$here/node-kernel.sh" "$here/node-kernel-config.sh")
cached=$cache/kernels/node-debs-$key
if [[ -n $key && -s $cached/debs.list ]]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp -p "$cached"/*.deb "$cached/debs.list" "$out/"
	echo "$tag: $out from $cached (built before from the same tree, configuration and compiler): $(tr '\n' ' ' <"$out/debs.list")"
	exit 0
fi

kbuild_lock
parent=$(dirname "$obj")
rm -f "$parent"/linux-*.deb "$parent"/linux-burst-cfs-node_*.{buildinfo,changes}
echo "$tag: bindeb-pkg $node_release, version $node_pkgversion, in $obj (logs: $obj/build.log, deb.log; a cold build is an hour or more on two cores)"
start=$SECONDS
# bindeb-pkg's own make, under dpkg-buildpackage, runs one job at a time:
# compile first, then package what is built.
kbuild_run "$obj/build.log" "${node_kmake[@]}" all
kbuild_run "$obj/deb.log" "${node_kmake[@]}" \
	KDEB_PKGVERSION="$node_pkgversion" KDEB_SOURCENAME=linux-burst-cfs-node \
	KDEB_CHANGELOG_DIST=bookworm DEBFULLNAME="burst-cfs maintainers" \
	DEBEMAIL="maintainers@users.noreply.a-seed-b38bfef3.example" \
	bindeb-pkg

image=$parent/linux-image-${node_release}_${node_pkgversion}_amd64.deb
headers=$parent/linux-headers-${node_release}_${node_pkgversion}_amd64.deb
for deb in "$image" "$headers"; do
	[[ -f $deb ]] || { echo "$tag: bindeb-pkg made no $(basename "$deb") (see $obj/build.log)" >&2; exit 1; }
done
# The release is the one Debian's tools will sort by.
got=$(dpkg-deb -c "$image" | sed -n 's,.*\./boot/vmlinuz-\(.*\)$,\1,p')
[[ $got == "$node_release" ]] || { echo "$tag: $(basename "$image") holds /boot/vmlinuz-$got, not $node_release" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
mv "$image" "$headers" "$out/"
rm -f "$parent"/linux-*.deb "$parent"/linux-burst-cfs-node_*.{buildinfo,changes}
(cd "$out" && ls -1 ./*.deb | sed 's,^\./,,') >"$out/debs.list"
if [[ -n $key ]]; then
	rm -rf "$cached.tmp.$$"
	mkdir -p "$cached.tmp.$$"
	cp -p "$out"/*.deb "$out/debs.list" "$cached.tmp.$$/"
	rm -rf "$cached"
	mv "$cached.tmp.$$" "$cached"
fi
echo "$tag: $out: $(basename "$image") ($(du -h "$out/$(basename "$image")" | cut -f1)), $(basename "$headers") in $((SECONDS - start)) s"
