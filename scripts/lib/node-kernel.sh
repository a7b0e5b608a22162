# What the node kernel is (docs/install.md, "The node kernel"), shared by
# scripts/node-kernel-config.sh and scripts/node-kernel.sh. Sourced in the
# build root after scripts/lib/kbuild.sh (src, obj, kmake, cache). Sets:
#   node_flavour      Debian's flavour whose configuration it starts from
#                     (NODE_FLAVOUR: cloud-amd64, the default, or amd64)
#   node_release      `uname -r`: Debian's ABI and flavour for the same
#                     linux-source, plus -burst (6.1.0-57-cloud-amd64-burst)
#   node_config_xz    Debian's configuration for the flavour (linux-config-6.1)
#   node_kmake        kmake with that release
# and node_version_init (scripts/node-kernel.sh, the packages) sets:
#   node_revision     N, the series' revision (scripts/lib/node-version.sh)
#   node_series_hash  12 hex digits of the series' content
#   node_pkgversion   linux-source-6.1's version plus +burstN
# and adds to node_kmake the build version and stamp of uname -v
# ("#3+burst27 SMP PREEMPT_DYNAMIC series HASH"), which burstctl check reads.
# The release sorts just above Debian's kernel of the same ABI and below
# Debian's next ABI, both for GRUB (grub-mkconfig compares releases with
# dpkg --compare-versions) and for linux-base's linux-version (the
# /vmlinuz symlinks): a node boots ours until Debian publishes a newer ABI,
# and ours again once it is rebuilt on that linux-source.
# shellcheck shell=bash

node_flavour=${NODE_FLAVOUR:-cloud-amd64}
case $node_flavour in
cloud-amd64 | amd64) ;;
*) echo "node-kernel: NODE_FLAVOUR '$node_flavour': must be cloud-amd64 or amd64" >&2; exit 2 ;;
esac
node_source_version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
node_config_version=$(dpkg-query -W -f='${Version}' linux-config-6.1 2>/dev/null) ||
	{ echo "node-kernel: linux-config-6.1 is not installed (make deps)" >&2; exit 1; }
[[ $node_config_version == "$node_source_version" ]] ||
	{ echo "node-kernel: linux-config-6.1 $node_config_version is not linux-source-6.1's $node_source_version: make deps installs both from one archive" >&2; exit 1; }
node_config_xz=/usr/src/linux-config-6.1/config.amd64_none_$node_flavour.xz
[[ -f $node_config_xz ]] || { echo "node-kernel: no $node_config_xz in linux-config-6.1" >&2; exit 1; }

# Debian's ABI for this linux-source: its linux-image-FLAVOUR of the same
# version depends on linux-image-ABI-FLAVOUR.
node_abi=$(apt-cache show "linux-image-$node_flavour=$node_source_version" 2>/dev/null |
	sed -n "s/^Depends:.*linux-image-\(6\.1\.0-[0-9]*\)-$node_flavour .*/\1/p" | head -1)
[[ -n $node_abi ]] ||
	{ echo "node-kernel: the archive has no linux-image-$node_flavour $node_source_version to take Debian's ABI from (apt-get update in the build root?)" >&2; exit 1; }
node_release=$node_abi-$node_flavour-burst
node_kmake=(make -C "$src" O="$obj" -j"$(nproc)" KERNELRELEASE="$node_release")

. "$(dirname "${BASH_SOURCE[0]}")/node-version.sh"
node_version_init() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	node_revision=$(node_series_revision "$top")
	node_series_hash=$(node_series_hash "$top")
	node_pkgversion=$node_source_version+burst$node_revision
	# bindeb-pkg's own make passes the package version's Debian revision
	# as KBUILD_BUILD_VERSION: the same here, or it would rebuild. The
	# stamp replaces the build date (Debian's kernels put "Debian VERSION
	# (DATE)" there); uname -v holds 64 characters.
	export KBUILD_BUILD_VERSION_TIMESTAMP="series $node_series_hash"
	node_kmake+=(KBUILD_BUILD_VERSION="${node_pkgversion##*-}")
}
