#!/bin/bash
# The install scenario (make test-install): docs/install.md's commands on a
# fresh Debian node, as typed, with its boot loader's choices. The node is a
# copy of the install image (make install-image: Debian's kernel, crun and
# podman, our repository in /srv/burst-cfs), booted three times, each boot
# leaving its changes for the next (tests/node/install-step runs in it):
#   1. Debian's kernel: "Adding it to a node"
#   2. the kernel GRUB would boot next: ours. "Verifying", then the rollback
#   3. the kernel GRUB would boot next: Debian's. The rest of the rollback
# Which kernel GRUB would boot is decided between boots from the image's
# /boot by GRUB's own code (tests/node/debian-boot.sh); that kernel and its
# initrd (made in the guest by the packages' hooks) are what QEMU boots.
# Usage: tests/node/run-install.sh IMAGE_DIR [TIMEOUT_S]
set -euo pipefail

src=$1 timeout_s=${2:-900}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/verdict.sh"
. "$top/tests/node/debian-boot.sh"
. "$top/scripts/lib/image-root.sh"
results=${RESULTS_DIR:-$top/build/results}
node=$top/build/install-node
mkdir -p "$results"
rm -rf "$node"
mkdir -p "$node"
cp --sparse=always "$src/image.raw" "$node/image.raw"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
debian_boot_fetch "$work/grub" >/dev/null

offset=$(image_root_offset "$node/image.raw")
fs="$node/image.raw?offset=$offset"
# The kernels in the node's /boot, by release.
releases() { debugfs -R 'ls -p /boot' "$fs" 2>/dev/null | awk -F/ '$6 ~ /^vmlinuz-/ { sub(/^vmlinuz-/, "", $6); print $6 }'; }
take() { debugfs -R "dump /boot/$1 $work/$2" "$fs" >/dev/null 2>&1 && [[ -s $work/$2 ]]; }

total_passed=0 total_failed=0 failures=()
for step in install verify debian; do
	mapfile -t kernels < <(releases)
	if ((${#kernels[@]} == 0)); then failures+=("$step: no kernel in the node's /boot"); break; fi
	if [[ $step == install ]]; then
		kernel=$(printf '%s\n' "${kernels[@]}" | grep -v -- '-burst$' | head -1)
	else
		kernel=$(grub_default "$work/grub" "${kernels[@]}")
	fi
	echo "run-install: $step: /boot has ${kernels[*]}; GRUB boots $kernel"
	case $step in
	verify) [[ $kernel == *-burst ]] || failures+=("after the install GRUB would boot $kernel, not ours") ;;
	debian) [[ $kernel != *-burst ]] || failures+=("after the rollback GRUB would boot $kernel, not Debian's") ;;
	esac
	take "vmlinuz-$kernel" vmlinuz && take "initrd.img-$kernel" initrd ||
		{ failures+=("$step: cannot read /boot/vmlinuz-$kernel and its initrd from the node"); break; }
	name=install-$step
	console=$results/$name.console.log tap=$results/$name.tap
	set +e
	E2E_PERSISTENT=1 "$top/tests/e2e/boot-image.sh" "run-install: $step" "$work/vmlinuz" "$work/initrd" \
		"$node/image.raw" "$console" "$tap" "$timeout_s" "burstcfs.install=$step"
	rc=$?
	set -e
	tr -d '\r' <"$tap" >"$tap.txt" 2>/dev/null || : >"$tap.txt"
	tr -d '\r' <"$console" >"$console.txt" 2>/dev/null || : >"$console.txt"
	grep -av "^$KLOG_PREFIX" "$tap.txt" | sed "s/^/$name: /" || true
	verdict "$tap.txt" "$rc" "$timeout_s" E2E-RESULT "$console.txt"
	total_passed=$((total_passed + passed)) total_failed=$((total_failed + failed))
	((${#problems[@]} == 0)) || { failures+=("$step: ${problems[*]}"); break; }
done
echo "$total_passed $((total_failed + ${#failures[@]}))" >"$results/install.result"
if ((${#failures[@]})); then
	printf 'run-install: FAILED: %s\n' "${failures[@]}" >&2
	exit 1
fi
echo "run-install: install, verify, roll back: $total_passed checks passed in three boots"
