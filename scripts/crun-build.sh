#!/bin/bash
# Build Debian's crun with our quilt series (crun-patches/) into a .deb with
# a local version suffix, or take it from the cache when nothing changed.
# Usage: scripts/crun-build.sh OUTDIR
#   OUTDIR/crun.deb                   the package (also under its own name)
#   OUTDIR/tests_libcrun_cpu_burst    the unit tests built with it
#   OUTDIR/build-info                 version, cache key, inputs
# The cache, /var/cache/burst-cfs/debs/crun-KEY/, is keyed by the Debian
# source version, every file in crun-patches/, this script and lib/debpkg.sh.
set -euo pipefail

pkg=crun bin=crun suffix=+burst1 out=$1
. "$(dirname "$0")/lib/debpkg.sh"
patchdir=$top/crun-patches

debpkg_setup "$0"
debpkg_cached && exit 0
debpkg_prepare

# The runtime-spec schema Debian builds with must have linux.resources.cpu.burst.
schema=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema/config-linux.json
grep -q '"burst"' "$schema" ||
	die "$schema has no cpu burst: golang-github-opencontainers-specs-dev is too old"

debpkg_changelog \
	"* CPU burst: linux.resources.cpu.burst written on cgroup v1 and v2," \
	"  crun update --cpu-burst, the run.oci.cpu.burst annotation" \
	"  (burst-cfs, crun-patches/)."
debpkg_build

header=$tree/libocispec/src/ocispec/runtime_spec_schema_config_linux.h
grep -q 'burst_present' "$header" ||
	die "the generated $header has no burst_present: libocispec no longer parses linux.resources.cpu.burst"
debpkg_check_man ./usr/share/man/man1/crun.1.gz 'cpu(\\)?-burst'
[[ -x $tree/tests/tests_libcrun_cpu_burst ]] || die "the unit tests were not built"

debpkg_store "$tree/tests/tests_libcrun_cpu_burst"
