#!/bin/bash
# The node kernel's configuration: Debian's own for the flavour
# (scripts/lib/node-kernel.sh) with the fragment merged over it, then checked
# as a container host: scripts/node-kernel-check.sh. Fast (no compile), so
# `make check` runs it.
# Usage: scripts/node-kernel-config.sh SRC_DIR OBJ_DIR FRAGMENT
#   writes OBJ_DIR/.config, OBJ_DIR/release (`uname -r` of the kernel it
#   configures) and OBJ_DIR/check-config.txt
set -euo pipefail

src=$(realpath "$1")
obj=$(realpath -m "$2")
fragment=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
tag=node-kernel-config
. "$here/lib/kbuild.sh"
. "$here/lib/kconfig-check.sh"
. "$here/lib/node-kernel.sh"
kbuild_lock

# Kconfig asks pahole its version: BTF of modules needs 1.19 or later.
command -v pahole >/dev/null ||
	{ echo "$tag: pahole missing: the fragment keeps BTF, which pahole makes (make deps installs dwarves)" >&2; exit 1; }
xz -dc "$node_config_xz" >"$obj/.config.debian"
# What the configuration is made from, pahole's version included.
{ cat "$obj/.config.debian" "$fragment"; pahole --version; } >"$obj/.config.wanted"
if ! cmp -s "$obj/.config.wanted" "$obj/.config.inputs" 2>/dev/null || [[ ! -f $obj/.config ]]; then
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config.debian" "$fragment" >"$obj/merge.log")
	# Kconfig says so when the fragment changes a choice (debug info): meant.
	"${node_kmake[@]}" -s olddefconfig 2>&1 | { grep -v 'changes choice state' || true; }
	cp "$obj/.config.wanted" "$obj/.config.inputs"
fi
mapfile -t dropped < <(kconfig_dropped "$obj/.config" "$fragment")
if ((${#dropped[@]})); then
	echo "$tag: Kconfig did not honour these options of $(basename "$fragment"):" >&2
	printf '  %s\n' "${dropped[@]}" >&2
	rm -f "$obj/.config.inputs"
	exit 1
fi
echo "$node_release" >"$obj/release"
echo "$tag: $obj/.config: Debian's $node_flavour configuration of linux-source-6.1 $node_source_version + $(basename "$fragment"), release $node_release"
"$here/node-kernel-check.sh" "$obj/.config" >"$obj/check-config.txt" ||
	{ cat "$obj/check-config.txt" >&2; exit 1; }
tail -1 "$obj/check-config.txt"
