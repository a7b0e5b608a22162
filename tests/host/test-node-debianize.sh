#!/bin/bash
# scripts/node-kernel-debianize.sh and scripts/node-kernel-meta.sh on
# stand-ins for bindeb-pkg's packages: the image gets Debian's
# dependencies and maintainer scripts (linux-update-symlinks,
# linux-check-removal, the flavour check, the /etc/kernel hooks), its files
# stay as built; the metapackage depends on exactly the build. The preinst's
# refusal runs with a stand-in uname (the accepting path writes to
# /lib/modules and is left to the install scenario).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }
rel=6.1.0-57-cloud-amd64-burst ver=6.1.192-3+burst9

fake() { # fake NAME FILE: a package like bindeb-pkg's with one file
	local d=$tmp/src-$1
	mkdir -p "$d/DEBIAN" "$d/$(dirname "$2")"
	echo payload >"$d/$2"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: m <m@m>\nDescription: Linux kernel, version %s\n This package contains the Linux kernel.\n' \
		"$1" "$ver" "$rel" >"$d/DEBIAN/control"
	printf '#!/bin/sh\nrun-parts /etc/kernel/x.d\n' >"$d/DEBIAN/postinst"
	chmod 755 "$d/DEBIAN/postinst"
	dpkg-deb --root-owner-group --build "$d" "$tmp/$1.deb" >/dev/null
}
fake "linux-image-$rel" "boot/vmlinuz-$rel"
fake "linux-headers-$rel" "usr/src/linux-headers-$rel/Makefile"
img=$tmp/linux-image-$rel.deb hdr=$tmp/linux-headers-$rel.deb
dpkg-deb -c "$img" | awk '{ print $1, $6 }' >"$tmp/files.before"
"$top/scripts/node-kernel-debianize.sh" "$img" "$hdr" "$rel" cloud-amd64 0123456789ab >/dev/null

desc="image Depends on kmod, linux-base and initramfs-tools"
ok test "$(dpkg-deb -f "$img" Depends)" = "kmod, linux-base (>= 4.3~), initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool"
desc="the version stays, the description names the series hash, control parses (dpkg-deb -I)"
ok test "$(dpkg-deb -f "$img" Version)" = "$ver" -a -n "$(dpkg-deb -f "$img" Description | grep -F 'series 0123456789ab')"
dpkg-deb -c "$img" | awk '{ print $1, $6 }' >"$tmp/files.after"
desc="the image's files are kbuild's as built"
ok cmp -s "$tmp/files.before" "$tmp/files.after"
mkdir -p "$tmp/ctl"
dpkg-deb -e "$img" "$tmp/ctl"
desc="postinst: depmod and linux-update-symlinks, then the postinst.d hooks"
ok grep -q '^linux-update-symlinks "$change" "$version" "$image_path"$' "$tmp/ctl/postinst"
desc="prerm: linux-check-removal on remove"
ok grep -q '^linux-check-removal "$version"$' "$tmp/ctl/prerm"
desc="postrm: linux-update-symlinks remove"
ok grep -q 'linux-update-symlinks remove "$version" "$image_path"' "$tmp/ctl/postrm"
desc="every maintainer script parses (sh -n) and is executable"
ok bash -c 'for s in "$1"/{preinst,postinst,prerm,postrm}; do [ -x "$s" ] && sh -n "$s" || exit 1; done' _ "$tmp/ctl"
desc="headers Depend on the kernel's compiler for DKMS"
ok test "$(dpkg-deb -f "$hdr" Depends)" = "gcc-12, make"

mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$FAKE_UNAME"\n' >"$tmp/bin/uname"
chmod 755 "$tmp/bin/uname"
rc=0
out=$(PATH=$tmp/bin:$PATH FAKE_UNAME=6.1.0-57-amd64 sh "$tmp/ctl/preinst" install 2>&1) || rc=$?
desc="preinst on a node running the amd64 flavour: refused, naming both flavours"
ok test "$rc" = 1 -a -n "$(grep -F 'this node runs the amd64 flavour (6.1.0-57-amd64), this package is cloud-amd64' <<<"$out")"
rc=0
out=$(PATH=$tmp/bin:$PATH FAKE_UNAME=6.1.0-57-amd64-burst sh "$tmp/ctl/preinst" install 2>&1) || rc=$?
desc="... and on our amd64 build: refused too"
ok test "$rc" = 1

"$top/scripts/node-kernel-meta.sh" cloud-amd64 "$rel" "$ver" "$tmp/meta" >/dev/null
meta=$tmp/meta/linux-image-burst-cloud-amd64_${ver}_amd64.deb
desc="metapackage linux-image-burst-cloud-amd64 $ver depends on exactly this build"
ok test "$(dpkg-deb -f "$meta" Depends)" = "linux-image-$rel (= $ver)" -a "$(dpkg-deb -f "$meta" Version)" = "$ver"
desc="the headers metapackage on the headers and the image metapackage"
ok test "$(dpkg-deb -f "$tmp/meta/linux-headers-burst-cloud-amd64_${ver}_amd64.deb" Depends)" = "linux-headers-$rel (= $ver), linux-image-burst-cloud-amd64 (= $ver)"
rc=0
"$top/scripts/node-kernel-meta.sh" cloud-amd64 6.1.0-57-amd64-burst "$ver" "$tmp/meta2" 2>"$tmp/err" || rc=$?
desc="metapackage for a release of another flavour: refused, status 2, no package"
ok test "$rc" = 2 -a ! -e "$tmp/meta2" -a -n "$(grep -F "release '6.1.0-57-amd64-burst'" "$tmp/err")"
