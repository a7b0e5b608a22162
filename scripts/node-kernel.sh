#!/bin/bash
# The node kernel's Debian packages: linux-image-REL and linux-headers-REL
# (kbuild's bindeb-pkg, then given Debian's dependencies and maintainer
# scripts by scripts/node-kernel-debianize.sh), REL being Debian's ABI and
# flavour plus -burst (scripts/lib/node-kernel.sh), version
# LINUX_SOURCE_VERSION+burstN (N the series' revision,
# scripts/lib/node-version.sh), and the metapackages
# linux-{image,headers}-burst-FLAVOUR that follow it
# (scripts/node-kernel-meta.sh); configured by scripts/node-kernel-config.sh.
# Its own object tree; the source tree and ccache are the guests'.
# Usage: scripts/node-kernel.sh SRC_DIR OBJ_DIR OUT_DIR FRAGMENT
#   OUT_DIR receives the four packages, debs.list (their names) and
#   build.info (source, release, version, series: what
#   scripts/node-kernel-check-updates.sh compares)
# The packages are kept in $BURST_CACHE/kernels/node-debs-KEY: the next
# clone with the same tree, configuration, compiler and version copies them
# (a cold build is an hour or more on two cores). Every build is also kept
# in $BURST_CACHE/node-kernel-builds/VERSION/, which make repo ships whole:
# the repository keeps the earlier builds to roll back to.
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
node_version_init
key=$(kbuild_key "$fragment" "$obj/.config.debian" "$here/lib/node-kernel.sh" "$here/lib/node-version.sh" \
	"$here/node-kernel.sh" "$here/node-kernel-config.sh" "$here/node-kernel-debianize.sh" "$here/node-kernel-meta.sh")
[[ -z $key ]] || key=$(echo "$key $node_pkgversion $node_series_hash" | sha256sum | cut -c1-16)
cached=$cache/kernels/node-debs-$key
builds=$cache/node-kernel-builds

# keep: this build among the repository's builds, whole or not at all.
keep() {
	local dir=$builds/$node_pkgversion
	mkdir -p "$builds"
	rm -rf "$dir.tmp.$$"
	mkdir "$dir.tmp.$$"
	cp -p "$out"/*.deb "$out/debs.list" "$out/build.info" "$dir.tmp.$$/"
	rm -rf "$dir"
	mv "$dir.tmp.$$" "$dir"
	echo "$tag: kept in $dir ($(ls "$builds" | wc -l) builds there; make repo ships them all)"
}

if [[ -n $key && -s $cached/build.info ]]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp -p "$cached"/*.deb "$cached/debs.list" "$cached/build.info" "$out/"
	echo "$tag: $out from $cached (built before from the same tree, configuration, compiler and version): $(tr '\n' ' ' <"$out/debs.list")"
	keep
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

# The module signing key made for this build has signed its modules and
# must sign nothing else: deleted now (the kernel keeps the public half,
# certs/signing_key.x509; the next build makes a new pair).
rm -f "$obj/certs/signing_key.pem"
[[ ! -e $obj/certs/signing_key.pem ]] || { echo "$tag: cannot delete $obj/certs/signing_key.pem" >&2; exit 1; }
echo "$tag: deleted the module signing key $obj/certs/signing_key.pem (its modules are signed)"
rm -rf "$out"
mkdir -p "$out"
mv "$image" "$headers" "$out/"
rm -f "$parent"/linux-*.deb "$parent"/linux-burst-cfs-node_*.{buildinfo,changes}
"$here/node-kernel-debianize.sh" "$out/$(basename "$image")" "$out/$(basename "$headers")" \
	"$node_release" "$node_flavour" "$node_series_hash"
"$here/node-kernel-meta.sh" "$node_flavour" "$node_release" "$node_pkgversion" "$out"
(cd "$out" && ls -1 ./*.deb | sed 's,^\./,,') >"$out/debs.list"
printf 'source %s\nrelease %s\nversion %s\nseries %s\n' "$node_source_version" "$node_release" \
	"$node_pkgversion" "$node_series_hash" >"$out/build.info"
if [[ -n $key ]]; then
	rm -rf "$cached.tmp.$$"
	mkdir -p "$cached.tmp.$$"
	cp -p "$out"/*.deb "$out/debs.list" "$out/build.info" "$cached.tmp.$$/"
	rm -rf "$cached"
	mv "$cached.tmp.$$" "$cached"
fi
keep
echo "$tag: $out: $(basename "$image") ($(du -h "$out/$(basename "$image")" | cut -f1)), $(basename "$headers") in $((SECONDS - start)) s"
