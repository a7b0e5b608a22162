#!/bin/bash
# Install, idempotently, what building Debian's crun needs: a deb-src source
# (in a file of our own; existing sources are never edited), crun's
# build-dependencies, and the packaging tools.
# Usage: scripts/crun-deps.sh
set -euo pipefail

src_list=/etc/apt/sources.list.d/burst-cfs-src.sources
tools=(dpkg-dev devscripts quilt fakeroot build-essential cpio busybox-static python3 python3-jsonschema python3-yaml)

want_src() {
	cat <<'SRC'
# Added by burst-cfs scripts/crun-deps.sh: source packages (apt-get source crun).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}

# Build-dependencies of the crun source package that are not installed yet,
# as apt sees them (empty when everything is satisfied).  When apt cannot
# even plan it (held broken packages), say so rather than nothing.
missing_build_deps() {
	local plan
	plan=$(apt-get build-dep -s crun 2>/dev/null) || { echo "(unresolvable)"; return; }
	sed -n 's/^Inst \([^ ]*\) .*/\1/p' <<<"$plan"
}

missing_tools() {
	local pkg status
	for pkg in "${tools[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		[[ $status == installed ]] || echo "$pkg"
	done
}

need_root() {
	[[ $(id -u) -eq 0 ]] || { echo "crun-deps: $1; run 'make deps' as root" >&2; exit 1; }
}

updated=
if ! cmp -s <(want_src) "$src_list" 2>/dev/null; then
	need_root "$src_list is missing or stale"
	echo "crun-deps: adding deb-src source $src_list"
	want_src >"$src_list.tmp"
	mv "$src_list.tmp" "$src_list"
	echo "crun-deps: apt-get update"
	apt-get update -q >/dev/null
	updated=1
elif ! apt-cache showsrc crun >/dev/null 2>&1 || [[ -z $(apt-cache showsrc crun 2>/dev/null) ]]; then
	need_root "no source index for crun"
	echo "crun-deps: apt-get update (no source index yet)"
	apt-get update -q >/dev/null
	updated=1
fi

mapfile -t tools_missing < <(missing_tools)
mapfile -t build_missing < <(missing_build_deps)
if ((${#tools_missing[@]} == 0 && ${#build_missing[@]} == 0)); then
	echo "crun-deps: crun build-dependencies present"
	exit 0
fi
need_root "missing: ${tools_missing[*]} ${build_missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if [[ -z $updated ]]; then
	echo "crun-deps: apt-get update"
	apt-get update -q >/dev/null
fi
if ((${#tools_missing[@]})); then
	echo "crun-deps: installing ${tools_missing[*]}"
	apt-get install -y -q --no-install-recommends "${tools_missing[@]}"
fi
# libsystemd-dev must match the installed libsystemd0: when another tool
# (mkosi from bookworm-backports) has moved libsystemd0 ahead of bookworm,
# build-dep would otherwise pick bookworm's libsystemd-dev and fail with
# "held broken packages". Pinning it to the installed version works both ways.
sd_ver=$(dpkg-query -W -f='${Version}' libsystemd0 2>/dev/null || true)
if [[ -n $sd_ver ]] && [[ $(dpkg-query -W -f='${Version}' libsystemd-dev 2>/dev/null || true) != "$sd_ver" ]]; then
	echo "crun-deps: installing libsystemd-dev=$sd_ver (matches libsystemd0)"
	apt-get install -y -q --no-install-recommends "libsystemd-dev=$sd_ver"
fi
echo "crun-deps: apt-get build-dep crun"
apt-get build-dep -y -q crun
mapfile -t build_missing < <(missing_build_deps)
if ((${#build_missing[@]})); then
	echo "crun-deps: build-dep left missing: ${build_missing[*]}" >&2
	exit 1
fi
echo "crun-deps: done"
