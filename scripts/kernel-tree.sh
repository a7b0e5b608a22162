#!/bin/bash
# Prepare build/kernel/src: Debian's linux-source-6.1 with kernel/series applied.
#
# The tree is a git repository whose first commit is the pristine tarball, so
# re-applying the series only rewrites the files the patches touch (their
# objects are rebuilt, everything else stays), and each patch becomes a commit
# that the per-patch build check can check out.
# Usage: scripts/kernel-tree.sh SRC_DIR [UPTO]   (UPTO: apply only the first N patches)
set -euo pipefail

src=$1
upto=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
series=$top/kernel/series
git=(git -C "$src" -c user.name=burst-cfs-build -c user.email=build@localhost
     -c advice.detachedHead=false -c gc.auto=0)

[[ -r $tarball ]] || { echo "kernel-tree: $tarball missing (make deps)" >&2; exit 1; }

# Rewriting the tree under a running build corrupts it: one user at a time.
mkdir -p "$(dirname "$src")"
exec 9>"$src.lock"
flock 9
tar_id=$(stat -c '%s-%Y' "$tarball")

if [[ ! -f $src/.pristine-id || $(cat "$src/.pristine-id") != "$tar_id" ]]; then
	echo "kernel-tree: extracting $tarball"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	"${git[@]}" init -q
	"${git[@]}" add -A -f .
	"${git[@]}" commit -q -m "linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1)"
	"${git[@]}" tag pristine
	echo "$tar_id" >"$src/.pristine-id"
fi

"${git[@]}" am --abort >/dev/null 2>&1 || true
"${git[@]}" checkout -q --detach pristine
"${git[@]}" reset -q --hard pristine

mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series")
[[ -n $upto ]] && patches=("${patches[@]:0:$upto}")
for patch in "${patches[@]}"; do
	if ! "${git[@]}" am -q "$top/kernel/$patch" >/dev/null 2>&1; then
		echo "kernel-tree: patch does not apply: kernel/$patch" >&2
		"${git[@]}" am --show-current-patch=diff >/dev/null 2>&1 || true
		"${git[@]}" apply --check -v "$top/kernel/$patch" 2>&1 | grep -E 'error|rejected' | head -20 >&2 || true
		"${git[@]}" am --abort >/dev/null 2>&1 || true
		exit 1
	fi
	echo "kernel-tree: applied $patch"
done
echo "kernel-tree: ${#patches[@]} patches applied at $("${git[@]}" rev-parse --short HEAD)"
