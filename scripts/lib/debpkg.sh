# Build a Debian source package with our quilt series appended to Debian's,
# into a .deb with a local version suffix, cached by its inputs.
# Sourced by scripts/crun-build.sh and scripts/podman-build.sh, which set:
#   pkg       source package name (apt-get source PKG)
#   bin       the binary package we ship (its candidate version is the source's)
#   patchdir  our series: PATCHDIR/series and the patches it names
#   suffix    local version suffix, e.g. +burst1
#   out       where publish copies the results
# and then call, in order: debpkg_setup, debpkg_cached && exit 0,
# debpkg_prepare, debpkg_changelog, debpkg_build, debpkg_store.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$top/scripts/lib/progress.sh"
. "$top/scripts/lib/debsrc.sh"
cache=${BURST_CACHE:-/var/cache/burst-cfs}
maintainer="Seed b38bfef3 maintainers <maintainers@users.noreply.a-seed-b38bfef3.example>"

log() { echo "$bin-build: $*"; }
die() { echo "$bin-build: $*" >&2; exit 1; }

# Sets version, upstream, key, slot, deb_name, work, tree, patches.
# Extra arguments are files whose content also goes into the key.
debpkg_setup() {
	local tool f
	for tool in dpkg-source dpkg-buildpackage quilt apt-get; do
		command -v "$tool" >/dev/null || die "$tool missing (make deps)"
	done
	# One build at a time: two would share the work tree and the cache slot.
	# A caller with a work tree of its own names its own lock (debpkg_lock).
	mkdir -p "$top/build"
	exec 9>"${debpkg_lock:-$top/build/$bin.lock}"
	flock 9

	# The version the archive would install, without a binNMU suffix (+bN
	# is not in the source's changelog): ours is that plus our suffix.
	version=$(apt-cache policy "$bin" | sed -n 's/^ *Candidate: //p')
	[[ -n $version && $version != "(none)" ]] || die "apt knows no $bin package (apt-get update?)"
	version=$(sed 's/+b[0-9]*$//' <<<"$version")
	upstream=${version%-*}
	upstream=${upstream#*:}
	mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patchdir/series")
	((${#patches[@]})) || die "$patchdir/series lists no patch"
	key=$( {
		echo "$pkg $version $suffix"
		for f in "$patchdir"/* "${BASH_SOURCE[0]}" "$@"; do
			echo "$(basename "$f") $(sha256sum <"$f")"
		done
	} | sha256sum | cut -c1-16)
	slot=$cache/debs/$bin-$key
	deb_name=${bin}_${version#*:}${suffix}_amd64.deb
	work=$top/build/$bin/src
	tree=$work/$pkg-$upstream
}

# Copy only what changed: make rebuilds what depends on these by their mtime.
debpkg_copy() {
	cmp -s "$1" "$2" 2>/dev/null || { cp "$1" "$2.tmp" && mv "$2.tmp" "$2"; }
}

# Copies every file of the cache slot to OUT (the .deb also as BIN.deb).
debpkg_publish() {
	local f
	mkdir -p "$out"
	for f in "$slot"/*; do
		[[ $(basename "$f") == done ]] && continue
		debpkg_copy "$f" "$out/$(basename "$f")"
		[[ -x $f ]] && chmod 755 "$out/$(basename "$f")"
	done
	debpkg_copy "$slot/$deb_name" "$out/$bin.deb"
}

debpkg_cached() {
	[[ -f $slot/done ]] || return 1
	debpkg_publish
	log "cached $deb_name (key $key, built in $(sed -n 's/^build-seconds: //p' "$slot/build-info")s)"
}

# Downloads the source once per version, extracts it with Debian's patches
# applied, and pushes ours on top; a patch that does not apply is named.
debpkg_prepare() {
	local srccache=$cache/src/${bin}_$version dsc p
	dsc=$srccache/${pkg}_${version#*:}.dsc
	debsrc_fetch "$pkg" "$version" "$srccache"
	start=$(date +%s)
	rm -rf "$work"
	mkdir -p "$work"
	log "extracting $pkg $version"
	dpkg-source -q -x "$dsc" "$tree" >/dev/null 2>&1 || die "dpkg-source -x $dsc failed"
	for p in "${patches[@]}"; do
		[[ -f $patchdir/$p ]] || die "$patchdir/series names $p, which does not exist"
		cp "$patchdir/$p" "$tree/debian/patches/$p"
		echo "$p" >>"$tree/debian/patches/series"
	done
	for p in "${patches[@]}"; do
		(cd "$tree" && QUILT_PATCHES=debian/patches quilt push -q --fuzz=0 >/dev/null 2>&1) ||
			die "patch does not apply: $(basename "$patchdir")/$p"
	done
	log "applied ${#patches[@]} patches"
}

# Our changelog entry on top of Debian's; arguments are its bullet lines.
debpkg_changelog() {
	{
		echo "$pkg (${version}${suffix}) bookworm; urgency=medium"
		echo
		printf '  %s\n' "$@"
		echo
		echo " -- $maintainer  $(date -R)"
		echo
		cat "$tree/debian/changelog"
	} >"$tree/debian/changelog.new"
	mv "$tree/debian/changelog.new" "$tree/debian/changelog"
}

# A line with the dh step dpkg-buildpackage is in.
debpkg_progress() {
	local step
	step=$(grep -o '^ *\(debian/rules \|\)[a-z_]*dh_[a-z_]*\|^ *dh_[a-z_]*' "$1" | tail -1 | tr -d ' ') || true
	log "$(($(date +%s) - start))s, ${step:-starting}"
}

# nocheck: Debian's test suites want root containers on this host; our
# tests run in a guest instead. Prints a line every 15 s while it runs.
debpkg_build() {
	local buildlog=$top/build/$bin/build.log pid
	log "dpkg-buildpackage ${version}${suffix} (log: build/$bin/build.log)"
	(cd "$tree" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
		dpkg-buildpackage -b -us -uc >"$buildlog" 2>&1) &
	pid=$!
	wait_progress "$pid" 15 debpkg_progress "$buildlog"
	wait "$pid" || { tail -30 "$buildlog" >&2; die "dpkg-buildpackage failed (see build/$bin/build.log)"; }
	seconds=$(($(date +%s) - start))
	deb=$work/$deb_name
	[[ -f $deb ]] || die "dpkg-buildpackage made no $deb_name"
	[[ $(dpkg-deb -f "$deb" Version) == "${version}${suffix}" ]] || die "$deb_name has version $(dpkg-deb -f "$deb" Version)"
}

# The man page MAN (path inside the .deb) must mention PATTERN (grep -E).
# Not grep -q: it would stop reading early and pipefail would then report
# the writer's SIGPIPE as a failure.
debpkg_check_man() {
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$1" | gzip -dc | grep -E "$2" >/dev/null ||
		die "$1 in $deb_name does not document $2"
}

# Stores the .deb and the given extra files in the cache slot, publishes.
debpkg_store() {
	local f
	rm -rf "$slot.tmp"
	mkdir -p "$slot.tmp"
	cp "$deb" "$slot.tmp/"
	for f in "$@"; do
		install -m 755 "$f" "$slot.tmp/"
	done
	{
		echo "package: $deb_name"
		echo "version: ${version}${suffix}"
		echo "source: $pkg $version"
		echo "key: $key"
		echo "patches: ${patches[*]}"
		echo "depends: $(dpkg-deb -f "$deb" Depends)"
		echo "build-seconds: $seconds"
		echo "built: $(date -u +%FT%TZ)"
	} >"$slot.tmp/build-info"
	touch "$slot.tmp/done"
	rm -rf "$slot" && mv "$slot.tmp" "$slot"
	debpkg_publish
	log "built $deb_name in ${seconds}s (cached as $slot)"
}
