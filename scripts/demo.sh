#!/bin/bash
# The main job, for a person: boot our kernel and Debian's in QEMU and run
# the same bursty service in a CPU-limited cgroup on each, without and with
# burst, printing request latency and throttling side by side.
# Usage: scripts/demo.sh OUR_KERNEL DEBIAN_KERNEL INITRAMFS
set -euo pipefail

ours=$1 debian=$2 initramfs=$3

boot() {
	local kernel=$1 log
	log=$(mktemp)
	timeout --foreground -k 5 300 qemu-system-x86_64 -machine q35 -accel tcg -cpu max \
		-smp 2 -m 512 -kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 panic=-1 loglevel=1 burstcfs.suite=burst-demo burstcfs.expect=none" \
		-display none -monitor none -serial "file:$log" -no-reboot || true
	tr -d '\r' <"$log" | sed -n '/^GUEST-BEGIN/,/^GUEST-RESULT/p' |
		grep -vE '^GUEST-(BEGIN|RESULT|DMESG)' | sed 's/^/    /'
	grep -q '^GUEST-RESULT rc=0' <(tr -d '\r' <"$log") || { echo "demo: guest failed, log: $log" >&2; return 1; }
	rm -f "$log"
}

echo "== Our kernel (Debian 6.1 + kernel/series): burst may exceed quota"
boot "$ours"
echo
echo "== Debian's stock 6.1 kernel: burst is capped at quota"
boot "$debian"
