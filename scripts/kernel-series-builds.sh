#!/bin/bash
# Build the kernel at every patch of the series, oldest first, so each patch
# is known to build on its own (bisectability).
# Usage: scripts/kernel-series-builds.sh KERNEL_SRC OBJ_DIR FRAGMENT...
# KERNEL_SRC must have the series applied by scripts/kernel-tree.sh (one
# commit per patch on top of the 'pristine' tag); it is not modified: the
# builds run in a git worktree beside it.
set -euo pipefail

src=$(realpath "$1")
obj=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$src-bisect
git=(git -C "$src" -c advice.detachedHead=false)

. "$top/scripts/lib/worktree.sh"
kernel_worktree "$src" "$tree"
mapfile -t commits < <("${git[@]}" rev-list --reverse pristine..HEAD)
((${#commits[@]})) || { echo "series-builds: no patches applied in $src" >&2; exit 1; }

n=0
for commit in "${commits[@]}"; do
	n=$((n + 1))
	subject=$("${git[@]}" log -1 --format=%s "$commit")
	echo "series-builds: [$n/${#commits[@]}] $subject"
	git -C "$tree" -c advice.detachedHead=false checkout -q --detach "$commit"
	start=$(date +%s)
	if ! "$top/scripts/kernel-build.sh" "$tree" "$obj" "$obj/bzImage" "$@" >"$obj.log" 2>&1; then
		echo "series-builds: build FAILED at patch $n: $subject" >&2
		tail -30 "$obj.log" >&2
		exit 1
	fi
	echo "series-builds: [$n/${#commits[@]}] builds ($(( $(date +%s) - start )) s)"
done
echo "series-builds: all ${#commits[@]} patches build"
