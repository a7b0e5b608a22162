# The kernel build environment shared by scripts/kernel-build.sh (the
# guests' bzImages) and scripts/node-kernel*.sh (the node kernel's
# packages): the same ccache, the same locks, the same cache key, and the
# same release and build version on every make of one object tree.
# Sourced after setting src (source tree) and obj (object tree). Sets:
#   kmake              make -C src O=obj -jN LOCALVERSION=... KBUILD_BUILD_VERSION=...
#   kernel_pkgversion  the tree's linux-source version plus +burst1
# shellcheck shell=bash

cache=${BURST_CACHE:-/var/cache/burst-cfs}
export CCACHE_DIR=$cache/ccache
CCACHE_BASEDIR=$(realpath -m "$src/..")
export CCACHE_BASEDIR
export CCACHE_NOHASHDIR=1
export CCACHE_COMPRESS=1
export PATH=/usr/lib/ccache:$PATH
mkdir -p "$obj" "$CCACHE_DIR"
ccache --max-size=8G >/dev/null

# kbuild_lock: two makes in one object tree corrupt it, and so does
# re-applying the series under a build. Until the script ends, hold the
# object tree's lock, and the source tree's lock shared: builds in other
# object trees only read the source, so kernels can build side by side
# (make -j2 kernel kernel-debug), while scripts/kernel-tree.sh takes it
# alone to rewrite the tree.
kbuild_lock() {
	exec 8>"$obj.lock" 9>"$src.lock"
	flock 8
	flock -s 9
}

# kbuild_key FRAGMENT...: what a kernel built here depends on, as 16 hex
# digits: the git tree of the patched source (empty output when it has
# uncommitted changes: nothing is reused then), the compiler, the config
# fragments, and the scripts that build and package it. The bzImage cache
# (scripts/kernel-build.sh) and the package cache (scripts/kernel-deb.sh)
# are keyed by it.
kbuild_key() {
	local tree lib
	lib=$(dirname "${BASH_SOURCE[0]}")
	tree=$(git -C "$src" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null) || return 0
	# --no-optional-locks: builds beside each other check the same tree.
	[[ -z $(git -C "$src" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null) ]] || return 0
	{ echo "$tree"; gcc --version | head -1; cat "$@" "$lib/kbuild.sh" "$lib/kconfig-base.sh" "$lib/../kernel-build.sh"; } |
		sha256sum | cut -c1-16
}

# What the kernel says it is: `uname -r` is 6.1.N-burst-cfs-g<commit of the
# series' last patch> (CONFIG_LOCALVERSION_AUTO adds the commit). Its build
# number in `uname -v` is the revision of Debian's linux-source version plus
# our suffix (3+burst1), as the node kernel's package has it.
kernel_localversion=-burst-cfs
# Reproducible: no build date, user or host of this machine in `uname -v`,
# so every clone builds the same tree into the same bzImage.
KBUILD_BUILD_TIMESTAMP=$(git -C "$src" log -1 --format=%cD 2>/dev/null || echo 'Thu, 1 Jan 1970 00:00:00 +0000')
export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER=burst-cfs KBUILD_BUILD_HOST=burst-cfs
# The tree's first commit (scripts/kernel-tree.sh) names the package and
# version it was extracted from: "linux-source-6.12 6.12.118-1~deb12u1". A
# tree without it (the lock tests' empty one) builds nothing: version 0.
kernel_source=$(git -C "$src" log -1 --format=%s pristine 2>/dev/null || echo "none 0")
kernel_pkgversion=${kernel_source#* }+burst1
# kbuild runs its own -j, and nothing of the make that started this script
# (its jobserver, which it does not pass here, its flags, its variables)
# reaches the kernel's make.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
kmake=(make -C "$src" O="$obj" -j"$(nproc)" LOCALVERSION="$kernel_localversion"
	KBUILD_BUILD_VERSION="${kernel_pkgversion##*-}")

# kbuild_run LOG CMD...: run a kernel make with its output in LOG and, instead
# of kbuild's thousands of lines, a line every 30 s (a cold build takes a
# quarter of an hour on two cores); kbuild's warnings after it; on failure
# the tail of LOG and exit 1. Lines start with $tag. The heartbeat's sleep
# outlives it by up to 30 s, so it must not hold kbuild_lock's locks.
kbuild_run() {
	local log=$1 start=$SECONDS rc=0
	shift
	(while sleep 30; do
		echo "$tag: $((SECONDS - start)) s, $(grep -c '^  CC ' "$log" 2>/dev/null) files compiled"
	done) 8>&- 9>&- &
	kbuild_heartbeat=$!
	trap 'kill $kbuild_heartbeat 2>/dev/null || true' EXIT
	"$@" >"$log" 2>&1 || rc=$?
	kill "$kbuild_heartbeat" 2>/dev/null || true
	grep -E 'warning:|error:' "$log" | head -20 || true
	((rc == 0)) || { echo "$tag: make failed, tail of $log:" >&2; tail -30 "$log" >&2; exit 1; }
}
