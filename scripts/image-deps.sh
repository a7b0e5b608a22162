#!/bin/bash
# Install, idempotently, what `make image` and `make e2e` need besides
# mkosi: the tools the image build and the runners use around it, QEMU, and
# what builds the workload container. mkosi 24 itself, with the systemd 254
# from bookworm-backports that it needs, lives in the mkosi root
# (scripts/root-create.sh, made by `make deps` on the host; scripts/mkosi
# runs it there), so no systemd moves where anything else runs. One line
# per step; apt's output in build/logs/deps.log.
set -euo pipefail

tag=image-deps
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/apt.sh"
mkosi_root=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")/roots/mkosi

# gnupg signs our repository (make repo), tmux drives `make vm` in
# `make test-vm`, sfdisk (fdisk) and debugfs (e2fsprogs) read the image;
# grpc_tools.protoc imports pkg_resources, which python3-grpc-tools does
# not depend on.
want=(reprepro qemu-system-x86 busybox-static gcc libc6-dev e2fsprogs fdisk
	kmod zstd cpio debian-archive-keyring apt dpkg-dev file gnupg tmux
	python3-grpc-tools python3-pkg-resources)

[[ -f $mkosi_root/.burst-root ]] ||
	{ echo "$tag: no mkosi root at $mkosi_root: run 'make deps' on the host" >&2; exit 1; }
mkosi_version=$(dpkg-query --admindir="$mkosi_root/var/lib/dpkg" -W -f='${Version}' mkosi 2>/dev/null || true)
dpkg --compare-versions "${mkosi_version:-0}" ge 20 ||
	{ echo "$tag: the mkosi root at $mkosi_root has mkosi '${mkosi_version:-none}', not 24: 'make deps-remove deps' makes it again" >&2; exit 1; }
apt_install "the e2e image (tools around mkosi, QEMU, the workload container)" -- "${want[@]}"
echo "$tag: mkosi $mkosi_version ready in $mkosi_root"
