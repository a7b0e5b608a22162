#!/bin/bash
# scripts/repo-build.sh given three builds of the node kernel's packages
# (stand-ins): main holds the newest of each name, previous the one before,
# the oldest is left out and said so; apt reads both components, upgrades
# to main's and can name previous's. Needs reprepro and gpg (the build
# root's: make check-host runs there); without them it says so and fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }
for t in reprepro gpg apt-get; do
	command -v "$t" >/dev/null || { echo "not ok - $t missing: run in the build root (make check-host)"; exit 0; }
done

rel=6.1.0-57-cloud-amd64-burst
deb() { # deb NAME VERSION
	local d=$tmp/src/$1_$2
	mkdir -p "$d/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: m <m@m>\nSection: kernel\nPriority: optional\nDescription: stand-in\n' "$1" "$2" >"$d/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$d" "$tmp/$1_$2_amd64.deb" >/dev/null
	echo "$tmp/$1_$2_amd64.deb"
}
debs=()
for n in 8 10 9; do
	debs+=("$(deb "linux-image-$rel" "6.1.192-3+burst$n")" "$(deb linux-image-burst-cloud-amd64 "6.1.192-3+burst$n")")
done
# The newest build given twice, as make repo does (the current build and the kept ones).
debs+=("$tmp/linux-image-${rel}_6.1.192-3+burst10_amd64.deb")
rc=0
BURST_CACHE=$tmp/cache "$top/scripts/repo-build.sh" "$tmp/repo" "${debs[@]}" >"$tmp/out" 2>&1 || rc=$?
desc="repo-build with three builds (10 given twice): exit 0"
ok test "$rc" = 0
[[ $rc == 0 ]] || sed 's/^/# /' "$tmp/out"
desc="main holds the newest, 10 (numerically above 9)"
ok grep -qx "linux-image-$rel 6.1.192-3+burst10 [0-9a-f]*" "$tmp/repo/PACKAGES"
desc="previous holds the one before, 9, for both packages"
ok test "$(cut -d' ' -f1,2 "$tmp/repo/PACKAGES.previous" | tr '\n' ' ')" = "linux-image-$rel 6.1.192-3+burst9 linux-image-burst-cloud-amd64 6.1.192-3+burst9 "
desc="the oldest, 8, left out and said so"
ok grep -q "linux-image-$rel 6.1.192-3+burst8 left out" "$tmp/out"
desc="the node's apt source names both components"
ok grep -qx 'Components: main previous' "$tmp/repo/burst-cfs.sources"
