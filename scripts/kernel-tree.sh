#!/bin/bash
# Prepare a kernel tree: Debian's linux-source-X (the series' "# base:" line)
# with the series applied (kernel/series, or kernel/6.12/series).
#
# The tree is a git repository whose first commit is the pristine tarball, so
# re-applying the series only rewrites the files the patches touch (their
# objects are rebuilt, everything else stays), and each patch becomes a commit
# that the per-patch build check can check out.
# Usage: scripts/kernel-tree.sh [--check] SRC_DIR
#   --check   only verify that every patch applies, in a scratch index: the
#             work tree is left alone (used by `make check` and its tests)
# KERNEL_SERIES overrides the series file (patches are found beside it).
set -euo pipefail

check_only=
if [[ ${1:-} == --check ]]; then
	check_only=1
	shift
fi
src=$1
top=$(cd "$(dirname "$0")/.." && pwd)
series=$(realpath "${KERNEL_SERIES:-$top/kernel/series}")
base=$(sed -n 's/^# base: *\(linux-source-[0-9][0-9.]*\)[[:space:]]*$/\1/p' "$series" | head -1)
[[ $base ]] || { echo "kernel-tree: $series has no '# base: linux-source-X.Y' line" >&2; exit 1; }
tarball=/usr/src/$base.tar.xz
patch_dir=$(dirname "$series")
git=(git -C "$src" -c user.name=burst-cfs-build -c user.email=build@localhost
     -c advice.detachedHead=false -c gc.auto=0)
# Fixed dates make the commit ids, and with them the kernel release string
# (6.1.192-g<id>), depend only on the tarball and the patches: every clone
# builds the same release and reuses the same ccache entries.
export GIT_COMMITTER_DATE="@$(stat -c %Y "$tarball") +0000"
export GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE

[[ -r $tarball ]] || { echo "kernel-tree: $tarball missing (make deps)" >&2; exit 1; }

# Rewriting the tree under a running build corrupts it: one user at a time.
# A check of an extracted tree writes only to a scratch index, so it shares
# the lock with the builds (an hour-long node kernel build need not hold up
# `make check`).
tar_id="v2 $(stat -c %s-%Y "$tarball")"
lock_mode=()
[[ -z $check_only || ! -f $src/.pristine-id || $(cat "$src/.pristine-id") != "$tar_id" ]] || lock_mode=(-s)
mkdir -p "$(dirname "$src")"
exec 9>"$src.lock"
flock -n "${lock_mode[@]}" 9 ||
	{ echo "kernel-tree: waiting for the kernel builds or the tree preparation using $src to end"; flock "${lock_mode[@]}" 9; }

if [[ ! -f $src/.pristine-id || $(cat "$src/.pristine-id") != "$tar_id" ]]; then
	echo "kernel-tree: extracting $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	"${git[@]}" init -q
	"${git[@]}" add -A -f .
	"${git[@]}" commit -q -m "$base $(dpkg-query -W -f='${Version}' "$base")"
	"${git[@]}" tag pristine
	echo "$tar_id" >"$src/.pristine-id"
fi

mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series")
((${#patches[@]})) || { echo "kernel-tree: $series lists no patches" >&2; exit 1; }

# Apply the whole series to a scratch index first, so a patch that does not
# apply is named before anything in the work tree changes.
index=$(mktemp)
trap 'rm -f "$index"' EXIT
GIT_INDEX_FILE=$index "${git[@]}" read-tree pristine
for patch in "${patches[@]}"; do
	if ! out=$(GIT_INDEX_FILE=$index "${git[@]}" apply --cached "$patch_dir/$patch" 2>&1); then
		echo "kernel-tree: patch does not apply: $patch_dir/$patch" >&2
		echo "$out" | head -20 | sed 's/^/    /' >&2
		exit 1
	fi
done
if [[ -n $check_only ]]; then
	echo "kernel-tree: all ${#patches[@]} patches of $series apply to pristine $base"
	exit 0
fi

"${git[@]}" am --abort >/dev/null 2>&1 || true
"${git[@]}" checkout -q --detach pristine
"${git[@]}" reset -q --hard pristine
for patch in "${patches[@]}"; do
	"${git[@]}" am -q --committer-date-is-author-date "$patch_dir/$patch" >/dev/null
	echo "kernel-tree: applied $patch"
done
echo "kernel-tree: ${#patches[@]} patches applied at $("${git[@]}" rev-parse --short HEAD)"
