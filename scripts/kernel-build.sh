#!/bin/bash
# Configure and build a bzImage out of tree.
# Usage: scripts/kernel-build.sh SRC_DIR OBJ_DIR OUT_BZIMAGE FRAGMENT...
#
# Base (scripts/lib/kconfig-base.sh): x86_64_defconfig + kvm_guest.config,
# or tinyconfig for a fragment with a "# kbuild-base: tinyconfig" line, which
# then names everything its guests need; then each FRAGMENT merged in order.
# Every option a fragment sets is checked in the final .config, so an
# option Kconfig silently drops (missing dependency, renamed symbol) fails the
# build by name instead of surfacing later as a mysterious guest failure.
set -euo pipefail

src=$(realpath "$1")
obj=$(realpath -m "$2")
out=$3
shift 3
fragments=()
for fragment; do fragments+=("$(realpath "$fragment")"); done

# ccache, the source tree lock, kmake, the cache key: shared with
# scripts/node-kernel.sh.
. "$(dirname "$0")/lib/kbuild.sh"
. "$(dirname "$0")/lib/kconfig-base.sh"
. "$(dirname "$0")/lib/kconfig-check.sh"
kbuild_lock

# A bzImage built before with the same key (scripts/lib/kbuild.sh) is
# reused: a fresh clone then skips kbuild's minutes of linking and objtool
# that ccache cannot save. Its .config goes with it, as OUT_BZIMAGE.config:
# the benchmarks describe a kernel by the configuration it was built with.
kernels=$cache/kernels
key=$(kbuild_key "${fragments[@]}")
if [[ -n $key && -f $kernels/bzImage-$key && -f $kernels/bzImage-$key.config ]]; then
	mkdir -p "$(dirname "$out")"
	cp "$kernels/bzImage-$key.config" "$out.config"
	cp "$kernels/bzImage-$key" "$out"
	echo "kernel-build: $out from $kernels/bzImage-$key (built before from the same tree, config and compiler)"
	exit 0
fi

base=()
while IFS= read -r config; do
	[[ $config == */* ]] && config=$src/$config
	base+=("$config")
done < <(kconfig_base "${fragments[@]}")
{ [[ ${base[0]} == tinyconfig ]] || cat "$src/arch/x86/configs/x86_64_defconfig" "${base[@]:1}"
  cat "${fragments[@]}"; } >"$obj/.config.wanted"
if ! cmp -s "$obj/.config.wanted" "$obj/.config.inputs" 2>/dev/null || [[ ! -f $obj/.config ]]; then
	echo "kernel-build: configuring $obj (base: ${base[0]})"
	"${kmake[@]}" -s "${base[0]}"
	# merge_config.sh keeps its temporary files in the current directory:
	# run it in the object tree so an interrupted build leaves none in the clone.
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${base[@]:1}" "${fragments[@]}" >"$obj/merge.log")
	"${kmake[@]}" -s olddefconfig
	cp "$obj/.config.wanted" "$obj/.config.inputs"
fi

mapfile -t dropped < <(kconfig_dropped "$obj/.config" "${fragments[@]}")
if ((${#dropped[@]})); then
	echo "kernel-build: Kconfig did not honour these fragment options:" >&2
	printf '  %s\n' "${dropped[@]}" >&2
	rm -f "$obj/.config.inputs"
	exit 1
fi

echo "kernel-build: building bzImage in $obj (ccache: $CCACHE_DIR)"
start=$(date +%s)
# Named: kernels can build side by side (make -j2 kernel kernel-debug).
tag="kernel-build: ${out##*/}"
kbuild_run "$obj/build.log" "${kmake[@]}" bzImage
mkdir -p "$(dirname "$out")"
cp "$obj/.config" "$out.config"
cp "$obj/arch/x86/boot/bzImage" "$out"
if [[ -n $key ]]; then
	mkdir -p "$kernels"
	cp "$out.config" "$kernels/bzImage-$key.config.tmp.$$"
	mv "$kernels/bzImage-$key.config.tmp.$$" "$kernels/bzImage-$key.config"
	cp "$out" "$kernels/bzImage-$key.tmp.$$"
	mv "$kernels/bzImage-$key.tmp.$$" "$kernels/bzImage-$key"
fi
echo "kernel-build: $out ($("${kmake[@]}" -s kernelrelease)) in $(( $(date +%s) - start )) s"
