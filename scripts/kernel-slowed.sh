#!/bin/bash
# Build our kernel with one deliberate slowdown on top of the series: the
# kernel bench-icount's bound must flag (kernel/slowed/*.diff, each adding
# work to one path and nothing else), as kernel/teeth/ does for the suite.
# Usage: scripts/kernel-slowed.sh KERNEL_SRC DIFF OUT_BZIMAGE FRAGMENT...
#
# KERNEL_SRC must have the series applied by scripts/kernel-tree.sh. The
# build runs in a git worktree DIR/slowed/src beside it, in
# DIR/slowed/obj-guest: from there the sources are ../src, as for our
# kernel, so ccache answers for every file the diff does not change; the
# same diff gives the same commit and the kernel cached from it
# (worktree_at_series_plus).
set -euo pipefail

src=$(realpath "$1")
diff=$(realpath "$2")
out=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(dirname "$src")/slowed
tree=$base/src

. "$top/scripts/lib/worktree.sh"
kernel_worktree "$src" "$tree"
worktree_at_series_plus "$src" "$tree" "$diff" "slowed: $(basename "$diff" .diff)"
echo "kernel-slowed: $tree at the series plus $(basename "$diff")"
exec "$top/scripts/kernel-build.sh" "$tree" "$base/obj-guest" "$out" "$@"
