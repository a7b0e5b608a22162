# Debian's source of PKG=VERSION, downloaded once per version into the cache
# and shared by every caller that unpacks it (scripts/lib/debpkg.sh for the
# packages we patch, scripts/qemu-plugin-header.sh for QEMU's plugin API).
# shellcheck shell=bash

# debsrc_fetch PKG VERSION DIR: DIR ends up holding PKG's .dsc and what it
# names, downloaded through the deb-src source of scripts/build-deps.sh.
# Callers running at once wait for one download (DIR.lock). Uses the
# caller's log and die.
debsrc_fetch() {
	local pkg=$1 version=$2 dir=$3 lock
	mkdir -p "$(dirname "$dir")"
	exec {lock}>"$dir.lock"
	flock "$lock"
	if [[ ! -f $dir/${pkg}_${version#*:}.dsc ]]; then
		log "downloading the source of $pkg $version (once per version)"
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		(cd "$dir.tmp" && apt-get source -q --download-only -o APT::Sandbox::User=root "$pkg=$version" >/dev/null) ||
			die "apt-get source $pkg=$version failed (is there a deb-src source? make deps)"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	exec {lock}>&-
}
