#!/bin/bash
# Configure and build a bzImage out of tree.
# Usage: scripts/kernel-build.sh SRC_DIR OBJ_DIR OUT_BZIMAGE FRAGMENT...
#
# Base: x86_64_defconfig + kvm_guest.config, then each FRAGMENT merged in
# order. Every option a fragment sets is checked in the final .config, so an
# option Kconfig silently drops (missing dependency, renamed symbol) fails the
# build by name instead of surfacing later as a mysterious guest failure.
set -euo pipefail

src=$(realpath "$1")
obj=$(realpath -m "$2")
out=$3
shift 3
fragments=()
for fragment; do fragments+=("$(realpath "$fragment")"); done

cache=${BURST_CACHE:-/var/cache/burst-cfs}
export CCACHE_DIR=$cache/ccache
export CCACHE_BASEDIR=$(realpath -m "$src/..")
export CCACHE_NOHASHDIR=1
export CCACHE_COMPRESS=1
export PATH=/usr/lib/ccache:$PATH
mkdir -p "$obj" "$CCACHE_DIR"
ccache --max-size=8G >/dev/null

# Two makes in one object tree corrupt it, and so does re-applying the series
# under a build: hold the source tree's lock (scripts/kernel-tree.sh) too.
exec 9>"$src.lock"
flock 9

# A bzImage built before from the same tree (the git tree of the patched
# source, with nothing uncommitted), the same config inputs, this script
# and the same compiler is reused: a fresh clone then skips kbuild's
# minutes of linking and objtool that ccache cannot save.
kernels=$cache/kernels
key=
if tree=$(git -C "$src" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null) &&
   [[ -z $(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
	key=$( { echo "$tree"; gcc --version | head -1; cat "${fragments[@]}" "$0"; } | sha256sum | cut -c1-16)
	if [[ -f $kernels/bzImage-$key ]]; then
		mkdir -p "$(dirname "$out")"
		cp "$kernels/bzImage-$key" "$out"
		echo "kernel-build: $out from $kernels/bzImage-$key (built before from tree $tree, same config and compiler)"
		exit 0
	fi
fi

kmake=(make -C "$src" O="$obj" -j"$(nproc)")

cat "$src/arch/x86/configs/x86_64_defconfig" \
    "$src/kernel/configs/kvm_guest.config" "${fragments[@]}" >"$obj/.config.wanted"
if ! cmp -s "$obj/.config.wanted" "$obj/.config.inputs" 2>/dev/null || [[ ! -f $obj/.config ]]; then
	echo "kernel-build: configuring $obj"
	"${kmake[@]}" -s x86_64_defconfig
	# merge_config.sh keeps its temporary files in the current directory:
	# run it in the object tree so an interrupted build leaves none in the clone.
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$src/kernel/configs/kvm_guest.config" "${fragments[@]}" >"$obj/merge.log")
	"${kmake[@]}" -s olddefconfig
	cp "$obj/.config.wanted" "$obj/.config.inputs"
fi

dropped=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" || dropped+=("$line (have: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo unset))")
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$obj/.config" || dropped+=("$line (have: $(grep "^$sym=" "$obj/.config"))")
		;;
	esac
done < <(cat "${fragments[@]}")
if ((${#dropped[@]})); then
	echo "kernel-build: Kconfig did not honour these fragment options:" >&2
	printf '  %s\n' "${dropped[@]}" >&2
	rm -f "$obj/.config.inputs"
	exit 1
fi

echo "kernel-build: building bzImage in $obj (ccache: $CCACHE_DIR)"
start=$(date +%s)
# A heartbeat instead of kbuild's thousands of lines: a cold build takes
# a quarter of an hour on two cores.
(while sleep 30; do
	echo "kernel-build: $(( $(date +%s) - start )) s, $(grep -c '^  CC ' "$obj/build.log" 2>/dev/null) files compiled"
done) &
heartbeat=$!
trap 'kill $heartbeat 2>/dev/null || true' EXIT
set +e
"${kmake[@]}" bzImage >"$obj/build.log" 2>&1
rc=$?
set -e
kill $heartbeat 2>/dev/null || true
grep -E 'warning:|error:' "$obj/build.log" | head -20 || true
((rc == 0)) || { echo "kernel-build: make failed, tail of $obj/build.log:" >&2; tail -30 "$obj/build.log" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
cp "$obj/arch/x86/boot/bzImage" "$out"
if [[ -n $key ]]; then
	mkdir -p "$kernels"
	cp "$out" "$kernels/bzImage-$key.tmp.$$"
	mv "$kernels/bzImage-$key.tmp.$$" "$kernels/bzImage-$key"
fi
echo "kernel-build: $out ($(make -s -C "$src" O="$obj" kernelrelease)) in $(( $(date +%s) - start )) s"
