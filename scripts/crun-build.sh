#!/bin/bash
# Build Debian's crun with our quilt series (crun-patches/) into a .deb with
# a local version suffix, or take it from the cache when nothing changed.
# Usage: scripts/crun-build.sh OUTDIR
#   OUTDIR/crun.deb                   the package (also under its own name)
#   OUTDIR/tests_libcrun_cpu_burst    the unit tests built with it
#   OUTDIR/build-info                 version, cache key, inputs
# The cache, /var/cache/burst-cfs/debs/crun-KEY/, is keyed by the Debian
# source version, every file in crun-patches/ and this script.
set -euo pipefail

out=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BURST_CACHE:-/var/cache/burst-cfs}
suffix=+burst1
maintainer="Seed b38bfef3 maintainers <maintainers@users.noreply.a-seed-b38bfef3.example>"

log() { echo "crun-build: $*"; }
die() { echo "crun-build: $*" >&2; exit 1; }

for tool in dpkg-source dpkg-buildpackage quilt apt-get; do
	command -v "$tool" >/dev/null || die "$tool missing (make deps)"
done

# One build at a time: two would share build/crun/src and the cache slot.
mkdir -p "$top/build"
exec 9>"$top/build/crun.lock"
flock 9

# The source version is the one the archive would install: our package then
# replaces exactly it, and sorts above it.
version=$(apt-cache policy crun | sed -n 's/^ *Candidate: //p')
[[ -n $version && $version != "(none)" ]] || die "apt knows no crun package (apt-get update?)"
upstream=${version%-*}
upstream=${upstream#*:}

key=$( {
	echo "$version $suffix"
	for f in "$top"/crun-patches/*; do
		echo "$(basename "$f") $(sha256sum <"$f")"
	done
	sha256sum <"$0"
} | sha256sum | cut -c1-16)
slot=$cache/debs/crun-$key
deb_name=crun_${version}${suffix}_amd64.deb

# Copy only what changed: make rebuilds what depends on these by their mtime.
copy() {
	cmp -s "$1" "$2" 2>/dev/null || { cp "$1" "$2.tmp" && mv "$2.tmp" "$2"; }
}

publish() {
	mkdir -p "$out"
	copy "$slot/$deb_name" "$out/$deb_name"
	copy "$slot/$deb_name" "$out/crun.deb"
	copy "$slot/tests_libcrun_cpu_burst" "$out/tests_libcrun_cpu_burst"
	chmod 755 "$out/tests_libcrun_cpu_burst"
	copy "$slot/build-info" "$out/build-info"
}

if [[ -f $slot/done ]]; then
	publish
	log "cached $deb_name (key $key, built in $(sed -n 's/^build-seconds: //p' "$slot/build-info")s)"
	exit 0
fi

# --- the source, downloaded once per version --------------------------------
srccache=$cache/src/crun_$version
dsc=$srccache/crun_${version#*:}.dsc
if [[ ! -f $dsc ]]; then
	log "downloading the source of crun $version"
	mkdir -p "$srccache.tmp"
	(cd "$srccache.tmp" && apt-get source -q --download-only -o APT::Sandbox::User=root "crun=$version" >/dev/null) ||
		die "apt-get source crun=$version failed (is there a deb-src source? make deps)"
	rm -rf "$srccache" && mv "$srccache.tmp" "$srccache"
fi

start=$(date +%s)
work=$top/build/crun/src
rm -rf "$work"
mkdir -p "$work"
log "extracting crun $version"
dpkg-source -q -x "$dsc" "$work/crun-$upstream" >/dev/null 2>&1 ||
	die "dpkg-source -x $dsc failed"
tree=$work/crun-$upstream

# --- our series, appended to Debian's ----------------------------------------
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/crun-patches/series")
((${#patches[@]})) || die "crun-patches/series lists no patch"
for p in "${patches[@]}"; do
	[[ -f $top/crun-patches/$p ]] || die "crun-patches/series names $p, which does not exist"
	cp "$top/crun-patches/$p" "$tree/debian/patches/$p"
	echo "$p" >>"$tree/debian/patches/series"
done
for p in "${patches[@]}"; do
	(cd "$tree" && QUILT_PATCHES=debian/patches quilt push -q --fuzz=0 >/dev/null 2>&1) ||
		die "patch does not apply: crun-patches/$p"
done
log "applied ${#patches[@]} patches"

# The runtime-spec schema Debian builds with must have linux.resources.cpu.burst.
schema=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema/config-linux.json
grep -q '"burst"' "$schema" ||
	die "$schema has no cpu burst: golang-github-opencontainers-specs-dev is too old"

# --- the version: a local suffix over Debian's -------------------------------
{
	echo "crun (${version}${suffix}) bookworm; urgency=medium"
	echo
	echo "  * CPU burst: linux.resources.cpu.burst written on cgroup v1 and v2,"
	echo "    crun update --cpu-burst, the run.oci.cpu.burst annotation"
	echo "    (burst-cfs, crun-patches/)."
	echo
	echo " -- $maintainer  $(date -R)"
	echo
	cat "$tree/debian/changelog"
} >"$tree/debian/changelog.new"
mv "$tree/debian/changelog.new" "$tree/debian/changelog"

# --- the build -----------------------------------------------------------------
# nocheck: Debian's dh_auto_test would run crun's container tests as root on
# this host; they run in a guest instead.
buildlog=$top/build/crun/build.log
log "dpkg-buildpackage ${version}${suffix} (log: build/crun/build.log)"
(cd "$tree" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
	dpkg-buildpackage -b -us -uc >"$buildlog" 2>&1) &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 15
	kill -0 "$pid" 2>/dev/null || break
	step=$(grep -o '^ *\(debian/rules \|\)[a-z_]*dh_[a-z_]*\|^ *dh_[a-z_]*' "$buildlog" | tail -1 | tr -d ' ')
	log "$(($(date +%s) - start))s, ${step:-starting}"
done
wait "$pid" || { tail -30 "$buildlog" >&2; die "dpkg-buildpackage failed (see build/crun/build.log)"; }
seconds=$(($(date +%s) - start))

# --- checks on what was built ----------------------------------------------------
header=$tree/libocispec/src/ocispec/runtime_spec_schema_config_linux.h
grep -q 'burst_present' "$header" ||
	die "the generated $header has no burst_present: libocispec no longer parses linux.resources.cpu.burst"
deb=$work/$deb_name
[[ -f $deb ]] || die "dpkg-buildpackage made no $deb_name"
[[ $(dpkg-deb -f "$deb" Version) == "${version}${suffix}" ]] || die "$deb_name has version $(dpkg-deb -f "$deb" Version)"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/man/man1/crun.1.gz | gzip -dc | grep -qE 'cpu(\\)?-burst' ||
	die "the man page in $deb_name does not document --cpu-burst"
[[ -x $tree/tests/tests_libcrun_cpu_burst ]] || die "the unit tests were not built"

# --- into the cache ----------------------------------------------------------------
mkdir -p "$slot.tmp"
cp "$deb" "$slot.tmp/"
install -m 755 "$tree/tests/tests_libcrun_cpu_burst" "$slot.tmp/"
{
	echo "package: $deb_name"
	echo "version: ${version}${suffix}"
	echo "source: crun $version"
	echo "key: $key"
	echo "patches: ${patches[*]}"
	echo "depends: $(dpkg-deb -f "$deb" Depends)"
	echo "build-seconds: $seconds"
	echo "built: $(date -u +%FT%TZ)"
} >"$slot.tmp/build-info"
touch "$slot.tmp/done"
rm -rf "$slot" && mv "$slot.tmp" "$slot"
publish
log "built $deb_name in ${seconds}s (cached as $slot)"
