#!/bin/bash
# Install, idempotently, what building Debian source packages needs: a
# deb-src source (in a file of our own; existing sources are never edited),
# their build-dependencies, and the packaging tools. Runs in the build root
# (scripts/root-create.sh), where apt may move any package: the host's are
# never touched. One line per step;
# apt's output in build/logs/deps.log.
# Usage: scripts/build-deps.sh PACKAGE...   (e.g. crun, podman)
set -euo pipefail

packages=("$@")
((${#packages[@]})) || { echo "usage: scripts/build-deps.sh PACKAGE..." >&2; exit 2; }

tag=build-deps
. "$(dirname "$0")/lib/apt.sh"
src_list=/etc/apt/sources.list.d/burst-cfs-src.sources
tools=(dpkg-dev devscripts quilt fakeroot build-essential cpio busybox-static python3 python3-jsonschema python3-yaml)

want_src() {
	cat <<'SRC'
# Added by burst-cfs scripts/build-deps.sh: source packages (apt-get source crun / podman).
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

# Build-dependencies of the source packages that are not installed yet,
# as apt sees them (empty when everything is satisfied).  When apt cannot
# even plan it (held broken packages), say so rather than nothing.
missing_build_deps() {
	local plan
	plan=$(apt-get build-dep -s "${packages[@]}" 2>/dev/null) || { echo "(unresolvable)"; return; }
	sed -n 's/^Inst \([^ ]*\) .*/\1/p' <<<"$plan"
}

need_update=
if ! cmp -s <(want_src) "$src_list" 2>/dev/null; then
	need_root "$src_list is missing or stale"
	# A temporary file of its own: build-deps.sh crun and podman run side
	# by side (make check -j2), and with a shared one the second mv fails. In
	# /etc/apt, where apt does not read sources.
	tmp_src=$(mktemp /etc/apt/.burst-cfs-src.XXXXXX)
	want_src >"$tmp_src"
	chmod 644 "$tmp_src"
	mv "$tmp_src" "$src_list"
	echo "$tag: wrote the deb-src source $src_list"
	need_update="for the new deb-src source"
elif [[ -z $(apt-cache showsrc "${packages[0]}" 2>/dev/null) ]]; then
	need_root "no source index for ${packages[0]}"
	need_update="no source index for ${packages[0]} yet"
fi
[[ -z $need_update ]] || apt_update "$need_update"

mapfile -t tools_missing < <(missing_packages "${tools[@]}")
mapfile -t build_missing < <(missing_build_deps)
if ((${#tools_missing[@]} == 0 && ${#build_missing[@]} == 0)); then
	echo "$tag: build-dependencies of ${packages[*]} present"
	exit 0
fi
need_root "missing: ${tools_missing[*]} ${build_missing[*]}"
apt_install "building Debian packages" -- "${tools[@]}"
mapfile -t build_missing < <(missing_build_deps)
if ((${#build_missing[@]})); then
	apt_update "to install build-dependencies"
	step "installing $(packages ${#build_missing[@]}) of build-dependencies of ${packages[*]} ($(some "${build_missing[@]}"))" \
		apt-get "${apt_opts[@]}" build-dep -y "${packages[@]}"
fi
mapfile -t build_missing < <(missing_build_deps)
if ((${#build_missing[@]})); then
	echo "$tag: build-dep left missing: ${build_missing[*]}" >&2
	exit 1
fi
