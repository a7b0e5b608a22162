#!/bin/bash
# One boot of the node image (make node-image: the e2e image with our kernel
# installed from our repository) on its own installed kernel, which mkosi
# copied out of the image and boots directly; the e2e suite's smoke subset.
# Passes when that subset passes (tests/e2e/run-image.sh judges it) and the
# guest ran the repository's kernel, crun and podman.
# Usage: tests/e2e/run-node.sh IMAGE INITRD REPO_DIR CASES [TIMEOUT_S]
#   INITRD the node kernel's disk drivers (scripts/node-kernel-boot.sh)
#   CASES  comma-separated tests/e2e/suite.sh case names
set -euo pipefail

image=$1 initrd=$2 repo=$3 cases=$4 timeout_s=${5:-900}
top=$(cd "$(dirname "$0")/../.." && pwd)
results=${RESULTS_DIR:-$top/build/results}
name=node-smoke

# What the repository holds (scripts/repo-build.sh's PACKAGES: name version sha256).
kernel_pkg=$(awk '$1 ~ /^linux-image-/ { print $1 }' "$repo/PACKAGES")
[[ -n $kernel_pkg ]] || { echo "run-node: $repo/PACKAGES has no linux-image package" >&2; exit 1; }
release=${kernel_pkg#linux-image-}
version_of() { awk -v p="$1" '$1 == p { print $2 }' "$repo/PACKAGES"; }

start=$(date +%s)
EXTRA_APPEND="burstcfs.e2e.only=$cases" \
	"$top/tests/e2e/run-image.sh" "$name" installed "$initrd" "$image" patched "$timeout_s"

# The suite's header: "# burst-cfs e2e: kernel REL, ..." and
# "# podman version ..., crun version ..., crun package V, podman package V, ...".
header=$(grep -a '^# burst-cfs e2e: kernel\|^# podman version\|^# kernel package\|^# burstctl package' "$results/$name.tap.txt")
problems=()
grep -q "kernel $release," <<<"$header" ||
	problems+=("the guest did not run $release: $(head -1 <<<"$header")")
grep -qx "# kernel package $(version_of "$kernel_pkg")" <<<"$header" ||
	problems+=("the running kernel is not the installed $kernel_pkg $(version_of "$kernel_pkg"): $(grep '^# kernel package' <<<"$header")")
for pkg in crun podman; do
	grep -q "$pkg package $(version_of "$pkg")," <<<"$header" ||
		problems+=("the guest's $pkg is not the repository's $(version_of "$pkg")")
done
grep -qx "# burstctl package $(version_of burstctl)" <<<"$header" ||
	problems+=("the guest's burstctl is not the repository's $(version_of burstctl): $(grep '^# burstctl package' <<<"$header")")
if ((${#problems[@]})); then
	printf 'run-node: %s\n' "${problems[@]}" >&2
	exit 1
fi
echo "run-node: $name: $release ($(version_of "$kernel_pkg")) booted from the image, crun $(version_of crun), podman $(version_of podman), burstctl $(version_of burstctl), $(( $(date +%s) - start ))s"
