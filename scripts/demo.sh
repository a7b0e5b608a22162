#!/bin/bash
# The main job, for a person: boot our kernel and Debian's in QEMU and run
# the same bursty service in a CPU-limited cgroup on each, without and with
# burst, printing request latency and throttling side by side. The guests'
# kernel logs (tests/qemu/init's KLOG lines) go to files it names, not to
# the terminal.
# Usage: scripts/demo.sh OUR_KERNEL DEBIAN_KERNEL INITRAMFS
set -euo pipefail

ours=$1 debian=$2 initramfs=$3
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/guest-report.sh"
out=${RESULTS_DIR:-$top/build/results}/demo-kernel
mkdir -p "$out"

boot() { # NAME KERNEL
	local name=$1 kernel=$2 log=$out/$1.console.log
	timeout --foreground -k 5 300 qemu-system-x86_64 -machine q35 -accel tcg -cpu max \
		-smp 2 -m 512 -kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 panic=-1 loglevel=1 burstcfs.suite=burst-demo burstcfs.expect=none" \
		-display none -monitor none -serial "file:$log" -no-reboot || true
	guest_report "$log" "$out/$name.kernel.log" | sed 's/^/    /'
	echo "    (the guest's kernel log: ${out#"$top"/}/$name.kernel.log)"
	guest_passed "$log" || { echo "demo: the $name guest failed; its console: $log" >&2; return 1; }
}

echo "== Our kernel (Debian 6.1 + kernel/series): burst may exceed quota"
boot ours "$ours"
echo
echo "== Debian's stock 6.1 kernel: burst is capped at quota"
boot debian "$debian"
