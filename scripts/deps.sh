#!/bin/bash
# Install, idempotently, every Debian package the build graph needs.
# Usage: scripts/deps.sh [GROUP...]   GROUP: kernel (default)
set -euo pipefail

declare -A groups=(
	[kernel]="linux-source-6.1 build-essential bc bison flex libelf-dev
		libssl-dev cpio zstd xz-utils kmod rsync git ccache quilt
		devscripts dpkg-dev qemu-system-x86 busybox-static perl
		python3 libc6-dev"
)

want=()
for group in "${@:-kernel}"; do
	[[ -n ${groups[$group]+x} ]] || { echo "deps: unknown group '$group'" >&2; exit 2; }
	read -r -a pkgs <<<"$(echo ${groups[$group]})"
	want+=("${pkgs[@]}")
done

missing=()
for pkg in "${want[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[[ $status == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
	echo "deps: all ${#want[@]} packages present"
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing packages (${missing[*]}); run 'make deps' as root" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
