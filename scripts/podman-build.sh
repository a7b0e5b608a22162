#!/bin/bash
# Build Debian's podman with our quilt series (podman-patches/) into a .deb
# with a local version suffix, or take it from the cache when nothing changed.
# Usage: scripts/podman-build.sh OUTDIR
#   OUTDIR/podman.deb     the package (also under its own name)
#   OUTDIR/go-test.log    the unit tests of podman-patches/, run after the build
#   OUTDIR/build-info     version, cache key, inputs
# The cache, /var/cache/burst-cfs/debs/podman-KEY/, is keyed by the Debian
# source version (libpod), every file in podman-patches/, this script and
# lib/debpkg.sh.
set -euo pipefail

pkg=libpod bin=podman suffix=+burst1 out=$1
. "$(dirname "$0")/lib/debpkg.sh"
patchdir=$top/podman-patches

debpkg_setup "$0"
debpkg_cached && exit 0
debpkg_prepare

# podman links the system's runtime-spec: it must know linux.resources.cpu.burst.
spec=/usr/share/gocode/src/github.com/opencontainers/runtime-spec/specs-go/config.go
grep -q 'Burst \*uint64' "$spec" ||
	die "$spec has no LinuxCPU.Burst: golang-github-opencontainers-specs-dev is too old"

debpkg_changelog \
	"* podman run, create and update --cpu-burst: linux.resources.cpu.burst," \
	"  shown by inspect; update keeps the CPU limits it sets (burst-cfs," \
	"  podman-patches/)."
debpkg_build

for page in run create update container-clone; do
	debpkg_check_man "./usr/share/man/man1/podman-$page.1.gz" 'cpu(\\)?-burst'
done
grep -qa 'cpu-burst' "$tree/_output/bin/podman" ||
	die "the podman built has no --cpu-burst flag"

# The unit tests of our patches, in the tree just built (nocheck skips
# Debian's suite, which wants root containers on the build host). With the
# package build's -trimpath they reuse its compiled packages from GOCACHE:
# about 50 s instead of 80 s here, most of it linking the two test binaries.
tests='CPUBurst|CPUQuotaNone|MergeLinux|CloneKeepsCPU|CgroupCPUDir|OCIRuntimeFailure'
log "go test -trimpath -run '$tests' ./pkg/util ./pkg/specgenutil ./libpod/define"
(cd "$tree/_output/src/github.com/containers/podman" &&
	GOPATH=$tree/_output:/usr/share/gocode GO111MODULE=off GOCACHE=$tree/_output/go-build \
		go test -trimpath -count=1 -v -tags "apparmor,ostree,seccomp,selinux,systemd,libsubid" -run "$tests" \
		./pkg/util/ ./pkg/specgenutil/ ./libpod/define/) >"$work/go-test.log" 2>&1 ||
	{ tail -30 "$work/go-test.log" >&2; die "the unit tests of podman-patches/ failed"; }
passed=$(grep -c -- '--- PASS' "$work/go-test.log" || true)
((passed >= 15)) || die "only $passed unit tests ran (see $work/go-test.log)"
log "unit tests: $passed passed"

debpkg_store "$work/go-test.log"
