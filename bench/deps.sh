#!/bin/bash
# Install, idempotently, the Debian packages the benchmark needs beyond
# scripts/deps.sh's: gnuplot (no X) for the plot.
set -euo pipefail

pkgs=(gnuplot-nox python3)
missing=()
for pkg in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[[ $status == installed ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
	echo "bench-deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "bench-deps: missing packages (${missing[*]}); run 'make bench-deps' as root" >&2
	exit 1
fi
echo "bench-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
