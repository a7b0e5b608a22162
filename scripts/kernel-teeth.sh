#!/bin/bash
# Prove that the guest suite catches faults inside the series, which the
# prefix table (scripts/series-prefixes.sh) cannot show: each
# kernel/teeth/*.diff breaks one rule on top of the whole series, and the
# suite, booted on that kernel expecting ours, must fail every check its
# "Must fail:" lines name (a substring of the check's description). Writes
# RESULTS_DIR/teeth.md, the table docs/kernel.md shows.
# Usage: scripts/kernel-teeth.sh KERNEL_SRC INITRAMFS RESULTS_DIR FRAGMENT...
# Environment: TEETH_DIR, the faults' directory for KERNEL_SRC's series
# (default kernel/teeth, the 6.1 series'; kernel/6.12/teeth for 6.12's).
# KERNEL_SRC must have the series applied by scripts/kernel-tree.sh. The
# builds run in a git worktree DIR/teeth/src beside it, in DIR/teeth/obj-guest:
# from there the sources are ../src, as for our kernel, so ccache answers for
# every file a fault does not change (kernel-mainline.sh does the same). A
# kernel built before from the same fault is reused (scripts/kernel-build.sh).
set -euo pipefail

src=$(realpath "$1")
initramfs=$(realpath "$2")
out=$(realpath -m "$3")
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
teeth_dir=$(realpath "${TEETH_DIR:-$top/kernel/teeth}")
compgen -G "$teeth_dir/*.diff" >/dev/null || { echo "kernel-teeth: no faults (*.diff) in $teeth_dir" >&2; exit 2; }
base=$(dirname "$src")/teeth
tree=$base/src
obj=$base/obj-guest
git=(git -C "$tree" -c advice.detachedHead=false -c user.name=burst-cfs-build
     -c user.email=build@localhost)

. "$top/scripts/lib/worktree.sh"
kernel_worktree "$src" "$tree"
series_head=$(git -C "$src" rev-parse HEAD)
mkdir -p "$out"
table=$out/teeth.md
{
	echo "| fault (${teeth_dir#"$top"/}/) | checks failing | the named checks that must fail |"
	echo "| --- | --- | --- |"
} >"$table"

bad=0
for fault in "$teeth_dir"/*.diff; do
	name=$(basename "$fault" .diff)
	# The same fault gives the same commit, tree and cached kernel in every clone.
	worktree_at_series_plus "$src" "$tree" "$fault" "teeth: $name"
	echo "kernel-teeth: $name: building"
	if ! "$top/scripts/kernel-build.sh" "$tree" "$obj" "$out/$name.bzImage" "$@" >"$out/$name.build.log" 2>&1; then
		echo "kernel-teeth: $name: build FAILED" >&2
		tail -30 "$out/$name.build.log" >&2
		exit 1
	fi
	# The suite must fail here: judged below, not by its exit status. A boot
	# that writes nothing must not be judged on the last run's log.
	rm -f "$out/$name".log*
	RESULTS_DIR=$out "$top/tests/qemu/run-guest.sh" "$name" "$out/$name.bzImage" "$initramfs" \
		burst-kernel patched 1200 >"$out/$name.run.log" 2>&1 || true
	log=$out/$name.log.txt
	failing=$(grep -c '^not ok ' "$log" || true)
	fails=$(grep '^not ok ' "$log" || true)
	named=()
	while IFS= read -r want; do
		if [[ $fails == *"$want"* ]]; then
			named+=("caught: $want")
		else
			named+=("MISSED: $want")
			echo "kernel-teeth: $name: no failing check names '$want'" >&2
			bad=1
		fi
	done < <(sed -n 's/^Must fail: //p' "$fault")
	((${#named[@]})) || { echo "kernel-teeth: $fault names no check that must fail" >&2; bad=1; }
	echo "kernel-teeth: $name: $failing checks failed; ${named[*]}"
	grep '^not ok ' "$log" | sed 's/^/    /' || true
	(IFS=';'; echo "| $name | $failing | ${named[*]} |") >>"$table"
done
"${git[@]}" reset -q --hard
"${git[@]}" checkout -q --detach "$series_head"
cat "$table"
exit $bad
