#!/bin/bash
# Debian packages of our kernel (linux-image and linux-headers, kbuild's
# bindeb-pkg) from the guests' object tree: same tree, same config, same
# release and build number as the bzImage the guests boot.
# Usage: scripts/kernel-deb.sh SRC_DIR OBJ_DIR OUT_DIR FRAGMENT...
#   OBJ_DIR   the guests' object tree (build/kernel/obj-guest); configured and
#             built here by scripts/kernel-build.sh when it is not (a fresh
#             clone gets its bzImage from the cache and has no objects)
#   OUT_DIR   receives linux-image-REL_VER_amd64.deb, linux-headers-REL_VER_amd64.deb
#             and debs.list (their names); REL is `uname -r` (6.1.N-burst-cfs-gCOMMIT),
#             VER the package version (linux-source-6.1's + "+burst1")
#   FRAGMENT  the guests' config fragments, as scripts/kernel-build.sh takes them
# Environment: KERNEL_TESTED, the bzImage the tests boot: the packaged
# vmlinuz must be it, byte for byte.
# The packages are kept in $BURST_CACHE/kernels/debs-KEY (the key of
# scripts/lib/kbuild.sh): the next clone with the same tree and config
# copies them. Not shipped: linux-libc-dev (bindeb-pkg builds it too; ours
# would replace Debian's for every program built on the node).
set -euo pipefail

src=$(realpath "$1")
obj=$(realpath -m "$2")
out=$3
shift 3
fragments=()
for fragment; do fragments+=("$(realpath "$fragment")"); done
here=$(cd "$(dirname "$0")" && pwd)
tag=kernel-deb
. "$here/lib/kbuild.sh"

key=$(kbuild_key "${fragments[@]}")
cached=$cache/kernels/debs-$key
if [[ -n $key && -s $cached/debs.list ]]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp -p "$cached"/*.deb "$cached/debs.list" "$out/"
	echo "kernel-deb: $out from $cached (built before from the same tree, config and compiler): $(tr '\n' ' ' <"$out/debs.list")"
	exit 0
fi

# The objects: built (or found up to date) like the bzImage, in OBJ_DIR.
KERNEL_BUILD_REUSE=0 "$here/kernel-build.sh" "$src" "$obj" "$obj/bzImage.packaged" "${fragments[@]}"
kbuild_lock
release=$("${kmake[@]}" -s kernelrelease)
# bindeb-pkg writes its packages next to the object tree.
parent=$(dirname "$obj")
rm -f "$parent"/linux-*.deb "$parent"/linux-burst-cfs_*.{buildinfo,changes}

echo "kernel-deb: bindeb-pkg $release, version $kernel_pkgversion (log: $obj/deb.log)"
start=$SECONDS
kbuild_run "$obj/deb.log" "${kmake[@]}" \
	KDEB_PKGVERSION="$kernel_pkgversion" KDEB_SOURCENAME=linux-burst-cfs \
	KDEB_CHANGELOG_DIST=bookworm DEBFULLNAME="burst-cfs maintainers" \
	DEBEMAIL="maintainers@users.noreply.a-seed-b38bfef3.example" \
	bindeb-pkg

image=$parent/linux-image-${release}_${kernel_pkgversion}_amd64.deb
headers=$parent/linux-headers-${release}_${kernel_pkgversion}_amd64.deb
for deb in "$image" "$headers"; do
	[[ -f $deb ]] || { echo "kernel-deb: bindeb-pkg made no $(basename "$deb") (see $obj/deb.log)" >&2; exit 1; }
done

# The packaged kernel is the one this object tree built.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; kill $kbuild_heartbeat 2>/dev/null || true' EXIT
dpkg-deb --fsys-tarfile "$image" | tar -x -C "$tmp" "./boot/vmlinuz-$release"
cmp -s "$tmp/boot/vmlinuz-$release" "$obj/arch/x86/boot/bzImage" ||
	{ echo "kernel-deb: /boot/vmlinuz-$release in $(basename "$image") differs from $obj/arch/x86/boot/bzImage" >&2; exit 1; }

# And, when the tests' bzImage came from the cache (another clone built it),
# the same bytes: the build is reproducible (scripts/lib/kbuild.sh).
if [[ -n ${KERNEL_TESTED:-} ]]; then
	cmp -s "$tmp/boot/vmlinuz-$release" "$KERNEL_TESTED" ||
		{ echo "kernel-deb: /boot/vmlinuz-$release in $(basename "$image") differs from the tested $KERNEL_TESTED" >&2; exit 1; }
	echo "kernel-deb: the packaged vmlinuz is the tested $KERNEL_TESTED, byte for byte"
fi

rm -rf "$out"
mkdir -p "$out"
mv "$image" "$headers" "$out/"
rm -f "$parent"/linux-*.deb "$parent"/linux-burst-cfs_*.{buildinfo,changes}
(cd "$out" && ls -1 ./*.deb | sed 's,^\./,,') >"$out/debs.list"
if [[ -n $key ]]; then
	rm -rf "$cached.tmp.$$"
	mkdir -p "$cached.tmp.$$"
	cp -p "$out"/*.deb "$out/debs.list" "$cached.tmp.$$/"
	rm -rf "$cached"
	mv "$cached.tmp.$$" "$cached"
fi
echo "kernel-deb: $out: $(basename "$image") ($(du -h "$out/$(basename "$image")" | cut -f1)), $(basename "$headers") ($(du -h "$out/$(basename "$headers")" | cut -f1)) in $((SECONDS - start)) s"
