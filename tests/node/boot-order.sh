#!/bin/bash
# The node kernel's boot-order rule (docs/install.md, "Which kernel boots"),
# decided by Debian's own code (tests/node/debian-boot.sh: GRUB's default
# entry and linux-base's order). For our release ABI-FLAVOUR-burst: ours boots over Debian's
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
. "$(dirname "$0")/debian-boot.sh"
versions=$(debian_boot_fetch "$tmp")

n=0 failed=0
expect() { # expect WINNER WHY KERNEL...
	local want=$1 why=$2 g l
	shift 2
	g=$(grub_default "$tmp" "$@")
	l=$(linux_version_newest "$tmp" "$@")
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
