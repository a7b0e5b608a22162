#!/bin/bash
# Make kbuild's bindeb-pkg packages behave as Debian's own kernel packages
# do on a node: the image Depends on kmod, linux-base and initramfs-tools,
# its maintainer scripts keep /vmlinuz and /initrd.img through linux-base's
# linux-update-symlinks, refuse to remove the running kernel through
# linux-check-removal, and refuse to install a flavour other than the one
# the node runs (a cloud build lacks the drivers of bare metal:
# BURST_CFS_ANY_FLAVOUR=1 overrides); the headers Depend on the compiler
# the kernel was built with, which DKMS needs. The files are kbuild's
# as built; only the control and maintainer scripts change.
# Usage: scripts/node-kernel-debianize.sh IMAGE_DEB HEADERS_DEB RELEASE FLAVOUR SERIES_HASH
#   rewrites both packages in place
set -euo pipefail

(($# == 5)) || { echo "usage: scripts/node-kernel-debianize.sh IMAGE_DEB HEADERS_DEB RELEASE FLAVOUR SERIES_HASH" >&2; exit 2; }
image=$1 headers=$2 release=$3 flavour=$4 hash=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rebuild DEB FIELD=VALUE...: unpack DEB in $tmp/pkg and set control
# fields (a new one goes before the description, which stays last).
rebuild() {
	local deb=$1 dir=$tmp/pkg kv key
	shift
	rm -rf "$dir"
	dpkg-deb -R "$deb" "$dir"
	for kv in "$@"; do
		key=${kv%%=*}
		KV=${kv#*=} awk -v k="$key" '
			index($0, k ":") == 1 { print k ": " ENVIRON["KV"]; done = 1; skip = 1; next }
			skip && /^ / { next }
			{ skip = 0 }
			/^Description:/ && !done { print k ": " ENVIRON["KV"]; done = 1 }
			{ print }' "$dir/DEBIAN/control" >"$dir/DEBIAN/control.new"
		mv "$dir/DEBIAN/control.new" "$dir/DEBIAN/control"
	done
}
pack() {
	dpkg-deb --root-owner-group -Zxz --build "$tmp/pkg" "$1.new" >/dev/null
	mv "$1.new" "$1"
}

# The image's maintainer scripts. The hooks in /etc/kernel/*.d
# (initramfs-tools', grub's zz-update-grub...) run as for Debian's packages.
hooks() {
	printf '%s\n' "if [ -d /etc/kernel/$1.d ]; then" \
		"	DEB_MAINT_PARAMS=\"\$*\" run-parts --report --exit-on-error --arg=\"\$version\" --arg=\"\$image_path\" /etc/kernel/$1.d" \
		"fi"
}
head() {
	printf '%s\n' '#!/bin/sh' 'set -e' "version=$release" 'image_path=/boot/vmlinuz-$version'
}
rebuild "$image" \
	"Depends=kmod, linux-base (>= 4.3~), initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool" \
	"Recommends=firmware-linux-free, apparmor" \
	"Suggests=debian-kernel-handbook, grub-pc | grub-efi-amd64 | extlinux" \
	"Description=Linux $release for $flavour with the burst-cfs series (series $hash)
 Debian's linux-source-6.1 with the burst-cfs series (CPU bandwidth burst
 above quota) and Debian's configuration for $flavour: the kernel, its
 modules and System.map."
{
	head
	echo "flavour=$flavour"
	cat <<'SCRIPT'
if [ "$1" = install ]; then
	# The flavour the node runs, ours or Debian's: 6.1.0-N-FLAVOUR[-burst].
	running=$(uname -r | sed -n 's/^[0-9][0-9.]*-[0-9][0-9]*-\(.*\)$/\1/p')
	running=${running%-burst}
	if [ -n "$running" ] && [ "$running" != "$flavour" ] && [ "${BURST_CFS_ANY_FLAVOUR:-}" != 1 ]; then
		echo "linux-image-$version: this node runs the $running flavour ($(uname -r)), this package is $flavour:" >&2
		echo "  it may lack drivers the node needs. Build NODE_FLAVOUR=$running, or install with BURST_CFS_ANY_FLAVOUR=1." >&2
		exit 1
	fi
	# A fresh install, not an upgrade, for linux-update-symlinks.
	mkdir -p "/lib/modules/$version"
	touch "/lib/modules/$version/.fresh-install"
fi
SCRIPT
	hooks preinst
	echo 'exit 0'
} >"$tmp/pkg/DEBIAN/preinst"
{
	head
	cat <<'SCRIPT'
[ "$1" = configure ] || exit 0
depmod "$version"
if [ -f "/lib/modules/$version/.fresh-install" ]; then change=install; else change=upgrade; fi
linux-update-symlinks "$change" "$version" "$image_path"
rm -f "/lib/modules/$version/.fresh-install"
SCRIPT
	hooks postinst
	echo 'exit 0'
} >"$tmp/pkg/DEBIAN/postinst"
{
	head
	cat <<'SCRIPT'
[ "$1" = remove ] || exit 0
# Stops (or asks, through debconf) when $version is the running kernel.
linux-check-removal "$version"
SCRIPT
	hooks prerm
	echo 'exit 0'
} >"$tmp/pkg/DEBIAN/prerm"
{
	head
	cat <<'SCRIPT'
rm -f "/lib/modules/$version/.fresh-install"
if [ "$1" != upgrade ] && command -v linux-update-symlinks >/dev/null; then
	linux-update-symlinks remove "$version" "$image_path"
fi
SCRIPT
	hooks postrm
	cat <<'SCRIPT'
if [ "$1" = purge ]; then
	# What depmod and the hooks made, which no package owns.
	rm -f "/lib/modules/$version"/modules.*
	rmdir --ignore-fail-on-non-empty "/lib/modules/$version" 2>/dev/null || true
fi
exit 0
SCRIPT
} >"$tmp/pkg/DEBIAN/postrm"
for s in preinst postinst prerm postrm; do
	chmod 755 "$tmp/pkg/DEBIAN/$s"
	sh -n "$tmp/pkg/DEBIAN/$s"
done
pack "$image"

# DKMS builds modules with the kernel's compiler (gcc-12 on bookworm).
rebuild "$headers" "Depends=gcc-12, make" \
	"Description=Header files for Linux $release with the burst-cfs series (series $hash), for DKMS"
pack "$headers"
echo "node-kernel-debianize: $(basename "$image"), $(basename "$headers"): Debian's dependencies and maintainer scripts"
