#!/bin/bash
# scripts/kernel-tree.sh names a patch that does not apply and leaves the
# prepared tree untouched.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/build/kernel/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }

cp "$top"/kernel/series "$top"/kernel/*.patch "$tmp/"
desc="the real series applies (--check)"
out=$("$top/scripts/kernel-tree.sh" --check "$src" 2>&1) || true
ok grep -q 'apply to pristine' <<<"$out"

# Break the second patch: alter the first context line of its first hunk.
second=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$tmp/series" | sed -n 2p)
awk '!done && hunk && /^ / { sub(/^ /, " BROKEN"); done = 1 } /^@@/ { hunk = 1 } 1' \
	"$tmp/$second" >"$tmp/broken" && mv "$tmp/broken" "$tmp/$second"
head_before=$(git -C "$src" rev-parse HEAD)
status_before=$(git -C "$src" status --porcelain --untracked-files=no | md5sum)
set +e
# --check: should the breakage ever fail to break, the real tree stays intact.
out=$(KERNEL_SERIES=$tmp/series "$top/scripts/kernel-tree.sh" --check "$src" 2>&1)
rc=$?
set -e
desc="a broken patch fails the series check that precedes every tree preparation"
ok test "$rc" -ne 0
desc="the error names the broken patch ($second)"
ok grep -q "does not apply: .*$second" <<<"$out"
desc="the prepared tree is untouched (same HEAD, same files)"
ok test "$(git -C "$src" rev-parse HEAD)" = "$head_before" -a \
	"$(git -C "$src" status --porcelain --untracked-files=no | md5sum)" = "$status_before"
