#!/bin/bash
# The node kernel's boot-order rule (docs/install.md, "Which kernel boots"),
# decided by Debian's own code: GRUB's grub-mkconfig picks the default entry
# with version_find_latest (grub-common's grub-mkconfig_lib), and
# linux-base's linux-version sorts kernels for the /vmlinuz symlinks. Both
# packages are fetched by name from the archive and unpacked here, never
# installed. For our release ABI-FLAVOUR-burst: ours boots over Debian's
# kernel of the same ABI and over every older one; Debian's next ABI boots
# over ours; ours rebuilt on that ABI boots over it again. TAP.
# Usage: tests/node/boot-order.sh RELEASE   (e.g. 6.1.0-57-cloud-amd64-burst)
set -euo pipefail

ours=$1
[[ $ours =~ ^(6\.1\.0-)([0-9]+)(-[a-z0-9-]+)-burst$ ]] ||
	{ echo "boot-order: '$ours' is not ABI-FLAVOUR-burst (6.1.0-N-FLAVOUR-burst)" >&2; exit 2; }
pre=${BASH_REMATCH[1]} abi=${BASH_REMATCH[2]} flavour=${BASH_REMATCH[3]}
debian_same=$pre$abi$flavour
debian_next=$pre$((abi + 1))$flavour
debian_prev=$pre$((abi - 1))$flavour
ours_prev=$pre$((abi - 1))$flavour-burst
ours_next=$pre$((abi + 1))$flavour-burst

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q grub-common linux-base >/dev/null 2>&1) ||
	{ echo "boot-order: apt-get download grub-common linux-base failed" >&2; exit 1; }
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
versions=$(cd "$tmp" && ls ./*.deb | sed 's,^\./,,' | paste -sd' ')

# grub_default KERNEL...: the release grub-mkconfig makes the default entry.
grub_default() {
	(set +u
	 # shellcheck disable=SC1091
	 . "$tmp/x/usr/share/grub/grub-mkconfig_lib"
	 version_find_latest "${@/#//boot/vmlinuz-}") | sed 's,^/boot/vmlinuz-,,'
}
# linux_version_newest KERNEL...: the newest by linux-version.
linux_version_newest() {
	printf '%s\n' "$@" | PERL5LIB=$tmp/x/usr/share/perl5 perl "$tmp/x/usr/bin/linux-version" sort | tail -1
}

n=0 failed=0
expect() { # expect WINNER WHY KERNEL...
	local want=$1 why=$2 g l
	shift 2
	g=$(grub_default "$@")
	l=$(linux_version_newest "$@")
	n=$((n + 1))
	if [[ $g == "$want" && $l == "$want" ]]; then
		echo "ok $n - $why: $want (of $*)"
	else
		echo "not ok $n - $why: want $want; GRUB's default $g, linux-version's newest $l (of $*)"
		failed=$((failed + 1))
	fi
}
echo "# Debian's code: $versions"
expect "$ours" "ours over Debian's kernel of the same ABI" "$debian_same" "$ours"
expect "$ours" "ours over Debian's of the same ABI, either order" "$ours" "$debian_same"
expect "$ours" "ours over every older Debian kernel" "$debian_prev" "$debian_same" "$ours"
expect "$debian_next" "Debian's next ABI over ours (a security update boots)" "$ours" "$debian_next"
expect "$debian_same" "Debian's over ours of the ABI before (ours not yet rebuilt)" "$ours_prev" "$debian_same"
expect "$ours_next" "ours rebuilt on the next ABI over it" "$debian_next" "$ours_next" "$ours" "$debian_same"
echo "1..$n"
((failed == 0))
