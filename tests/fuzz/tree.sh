#!/bin/bash
# The patched crun source tree the fuzz harnesses compile (mk/fuzz.mk).
# Usage: tests/fuzz/tree.sh OUTDIR
#   OUTDIR/tree     the tree: Debian's crun with crun-patches/ on top,
#                   configured (config.h) and with libocispec generated from
#                   the runtime-spec schema Debian ships (the one with
#                   linux.resources.cpu.burst), as the package build does
#   OUTDIR/sources  the C files of libcrun and of libocispec's runtime-spec
#                   parser, relative to the tree
#   OUTDIR/libs     the libraries libcrun links (configure's FOUND_LIBS)
#   OUTDIR/tree.stamp  touched only when the tree was made again
# scripts/crun-build.sh leaves its tree only when it builds, not on a cache
# hit, so this makes one of its own, with the same functions
# (scripts/lib/debpkg.sh), again only when their inputs change: the Debian
# source version, crun-patches/, the schema and this script.
set -euo pipefail

out=$(mkdir -p "$1" && cd "$1" && pwd)
schema_root=/usr/share/gocode/src/github.com/opencontainers
schema=$schema_root/runtime-spec/schema

# What debpkg.sh reads (it sets key, version, upstream, patches, top).
# Our lock, not crun-build.sh's: the trees are separate, and the download
# they share has a lock of its own, so make check builds both at once.
# shellcheck disable=SC2034
pkg=crun bin=crun suffix=+burst1 debpkg_lock=$out.lock
# shellcheck source=scripts/lib/debpkg.sh
. "$(dirname "$0")/../../scripts/lib/debpkg.sh"
# shellcheck disable=SC2034
patchdir=$top/crun-patches
log() { echo "fuzz-tree: $*"; }
die() { echo "fuzz-tree: $*" >&2; exit 1; }

[[ -f $schema/config-linux.json ]] || die "$schema is missing (make deps-crun)"
debpkg_setup "$0" "$schema/config-linux.json"
if [[ -f $out/tree.stamp && $(cat "$out/key" 2>/dev/null) == "$key" && -d $out/tree/ ]]; then
	log "up to date (key $key)"
	exit 0
fi

# Our own work directory: build/crun/src belongs to crun-build.sh.
work=$out/src
tree=$work/$pkg-$upstream
rm -f "$out/tree.stamp" "$out/key"
debpkg_prepare

log "configuring (log: ${out#"$top"/}/configure.log)"
# --no-recursion: libocispec's own configure only makes a config.h that
# nothing we compile needs.
(cd "$tree" && nice ./configure --no-recursion CC=clang >"$out/configure.log" 2>&1) ||
	{ tail -20 "$out/configure.log" >&2; die "configure failed (make deps-crun?)"; }

# Debian's rules replace libocispec's bundled runtime-spec, which has no
# cpu.burst, by the system's before libocispec generates its parser; this
# generates from the system's schema directly, into the same files.
python3 "$tree/libocispec/src/ocispec/generate.py" --gen-ref --root="$schema_root" \
	--out="$tree/libocispec/src/ocispec" "$schema" >"$out/generate.log" 2>&1 ||
	{ tail -20 "$out/generate.log" >&2; die "libocispec's generate.py failed"; }
grep -q burst_present "$tree/libocispec/src/ocispec/runtime_spec_schema_config_linux.h" ||
	die "the generated runtime_spec_schema_config_linux.h has no burst_present"

# libcrun's files as the patched Makefile.am lists them (it has cpu-burst.c).
{
	sed -n '/^libcrun_SOURCES *=/,/[^\\]$/p' "$tree/Makefile.am" |
		sed -e 's/^libcrun_SOURCES *=//' -e 's/\\$//' | tr -s ' \t' '\n' | grep .
	(cd "$tree" && ls libocispec/src/ocispec/runtime_spec_*.c)
	echo libocispec/src/ocispec/json_common.c
	echo libocispec/src/ocispec/read-file.c
} >"$out/sources"
grep -qx src/libcrun/cpu-burst.c "$out/sources" || die "Makefile.am lists no src/libcrun/cpu-burst.c"
sed -n 's/^FOUND_LIBS *= *//p' "$tree/Makefile" >"$out/libs"
[[ -s $out/libs ]] || die "configure left no FOUND_LIBS in $tree/Makefile"

ln -sfn "src/$pkg-$upstream" "$out/tree"
echo "$key" >"$out/key"
touch "$out/tree.stamp"
log "crun $version with ${#patches[@]} patches ready in ${out#"$top"/}/tree"
