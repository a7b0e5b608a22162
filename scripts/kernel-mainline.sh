#!/bin/bash
# Build Debian's linux-source-6.1 without the series, with our guest config:
# the kernel that differs from ours by the series alone ("mainline, same
# config"). Debian's packaged kernel, the other comparator, has a config of
# its own (HZ, preemption, modules), which may explain part of a difference.
# Usage: scripts/kernel-mainline.sh KERNEL_SRC OUT_BZIMAGE FRAGMENT...
#
# KERNEL_SRC is the tree of scripts/kernel-tree.sh; this builds a git
# worktree of it at its 'pristine' commit, DIR/mainline/src beside it, in
# DIR/mainline/obj-guest. From the object tree the sources are then ../src,
# as for our kernel, so ccache (based at the parent of the source tree)
# answers for every file the series does not change. The release string is
# 6.1.N-burst-cfs-g<pristine commit>: that of our kernel with another commit.
set -euo pipefail

src=$(realpath "$1")
out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(dirname "$src")/mainline
tree=$base/src

. "$top/scripts/lib/worktree.sh"
kernel_worktree "$src" "$tree"
git -C "$tree" -c advice.detachedHead=false checkout -q --detach pristine
echo "kernel-mainline: $tree at pristine ($(git -C "$tree" rev-parse --short HEAD)), no patch of the series"
exec "$top/scripts/kernel-build.sh" "$tree" "$base/obj-guest" "$out" "$@"
