#!/bin/bash
# Prove that the guest suite has teeth: boot it, expecting our kernel, on
# the kernel built from every prefix of the series (prefix 0 is Debian's
# tree alone, with our config), then check that each prefix fails exactly
# the checks tagged with a feature it lacks (tests/kernel/pool.h,
# kernel/series); scripts/judge-prefixes.py does the comparison.
# Usage: scripts/series-prefixes.sh KERNEL_SRC INITRAMFS RESULTS_DIR FRAGMENT...
# KERNEL_SRC must have the series applied by scripts/kernel-tree.sh; the
# builds run in a git worktree of it, DIR/prefix/src, one object tree for
# all, DIR/prefix/obj-guest: the sources are ../src from it, as for the
# guest kernel, so ccache answers for every file a prefix does not change.
# KERNEL_SERIES names the series file (default kernel/series), whose
# feature tags judge the runs.
set -euo pipefail

src=$(realpath "$1")
initramfs=$(realpath "$2")
out=$(realpath -m "$3")
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
series=$(realpath "${KERNEL_SERIES:-$top/kernel/series}")
tree=$(dirname "$src")/prefix/src
obj=$(dirname "$src")/prefix/obj-guest
git=(git -C "$src" -c advice.detachedHead=false)

. "$top/scripts/lib/worktree.sh"
kernel_worktree "$src" "$tree"
mapfile -t commits < <("${git[@]}" rev-list --reverse pristine..HEAD)
((${#commits[@]})) || { echo "series-prefixes: no patches applied in $src" >&2; exit 1; }
mkdir -p "$out"

total=$((${#commits[@]} + 1))
start_all=$(date +%s)
for ((k = 0; k < total; k++)); do
	if ((k == 0)); then
		commit=pristine
		subject="Debian's $("${git[@]}" log -1 --format=%s pristine | cut -d' ' -f1), no patch"
	else
		commit=${commits[k - 1]}
		subject=$("${git[@]}" log -1 --format=%s "$commit")
	fi
	echo "$subject" >"$out/prefix-$k.subject"
	image=$out/prefix-$k.bzImage
	# A kernel built before from the same tree and config is reused: a
	# change to the suite alone boots the prefixes again without a build.
	key="$("${git[@]}" rev-parse "$commit^{tree}") $(cat "$@" | sha256sum | cut -c1-16)"
	if [[ -f $image && $(cat "$out/prefix-$k.key" 2>/dev/null) == "$key" ]]; then
		echo "series-prefixes: [$k/$((total - 1))] $subject: kernel built before, reused"
	# A patch that changes only Documentation/ builds the kernel before it.
	elif ((k > 0)) && ! "${git[@]}" diff --name-only "$commit^" "$commit" | grep -qv '^Documentation/'; then
		echo "series-prefixes: [$k/$((total - 1))] $subject: documentation only, same kernel as prefix $((k - 1))"
		cp "$out/prefix-$((k - 1)).bzImage" "$image"
	else
		echo "series-prefixes: [$k/$((total - 1))] building: $subject"
		git -C "$tree" -c advice.detachedHead=false checkout -q --detach "$commit"
		t0=$(date +%s)
		if ! "$top/scripts/kernel-build.sh" "$tree" "$obj" "$image" "$@" >"$out/prefix-$k.build.log" 2>&1; then
			echo "series-prefixes: build FAILED at prefix $k: $subject" >&2
			tail -30 "$out/prefix-$k.build.log" >&2
			exit 1
		fi
		echo "series-prefixes: [$k/$((total - 1))] built in $(( $(date +%s) - t0 )) s"
	fi
	echo "$key" >"$out/prefix-$k.key"
	# The suite is expected to fail on most prefixes: judged below, not here.
	RESULTS_DIR=$out "$top/tests/qemu/run-guest.sh" "prefix-$k" "$image" "$initramfs" \
		burst-kernel patched 1200 >"$out/prefix-$k.run.log" 2>&1 || true
	grep -E 'boot-to-result|FAILED after' "$out/prefix-$k.run.log" | sed 's/^/    /' || true
done
echo "series-prefixes: $total kernels built and booted in $(( ($(date +%s) - start_all) / 60 )) min"
"$top/scripts/judge-prefixes.py" "$series" "$out" "$total"
