#!/bin/bash
# Stage the CRI pieces of the e2e image into an extra tree: the CRI client
# with Python stubs generated from tools/cri/cri.proto (never committed), and
# the two OCI image archives the CRI cases import into containerd: the
# sandbox ("pause") image, a bare static busybox sleeping, and the workload
# image, the e2e workload's root filesystem.
# Usage: tools/cri/stage.sh EXTRA_TREE WORKLOAD_ROOTFS
# Needs python3-grpc-tools (scripts/image-deps.sh). Debian's python3 is used
# by path: another python3 first in PATH lacks Debian's modules.
set -euo pipefail

extra=$1 workload_rootfs=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
# The names containerd knows the images by: the sandbox image is named in
# mkosi.extra/etc/containerd/config.toml, the workload in tests/e2e/cri-cases.sh.
pause_ref=localhost/burst-e2e/pause:1
workload_ref=localhost/burst-e2e/workload:1

"$python" -c 'import grpc_tools.protoc' 2>/dev/null ||
	{ echo "cri-stage: $python has no grpc_tools (install python3-grpc-tools: scripts/image-deps.sh)" >&2; exit 1; }

lib=$extra/usr/lib/burst-e2e/cri
share=$extra/usr/share/burst-e2e/cri
mkdir -p "$lib" "$share"
"$python" -m grpc_tools.protoc -I"$here" --python_out="$lib" --grpc_python_out="$lib" "$here/cri.proto"
install -m 755 "$here/cri-client" "$lib/cri-client"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$top/scripts/image-rootfs.sh" "$scratch/pause-rootfs" >/dev/null
"$python" "$here/oci-image" "$share/pause.tar" "$pause_ref" "$scratch/pause-rootfs" /bin/sleep 2147483647
"$python" "$here/oci-image" "$share/workload.tar" "$workload_ref" "$workload_rootfs"
