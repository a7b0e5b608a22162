#!/bin/bash
# The main job, for a person: boot our kernel and Debian's in QEMU and run
# the same bursty service in a CPU-limited cgroup on each, without and with
# burst, printing request latency and throttling side by side. The two
# boots run at once on two cores, each on one (single-threaded TCG), as the
# suites' pairs do. The guests' kernel logs (tests/qemu/init's KLOG lines)
# go to files it names, not to the terminal.
# Usage: scripts/demo.sh OUR_KERNEL DEBIAN_KERNEL INITRAMFS
set -euo pipefail

ours=$1 debian=$2 initramfs=$3
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/guest-report.sh"
out=${RESULTS_DIR:-$top/build/results}/demo-kernel
mkdir -p "$out"

boot() { # NAME KERNEL
	rm -f "$out/$1.console.log"
	timeout --foreground -k 5 300 qemu-system-x86_64 -machine q35 -accel tcg -cpu max \
		-smp 2 -m 512 -kernel "$2" -initrd "$initramfs" \
		-append "console=ttyS0 panic=-1 loglevel=1 burstcfs.suite=burst-demo burstcfs.expect=none" \
		-display none -monitor none -serial "file:$out/$1.console.log" -no-reboot </dev/null >/dev/null 2>&1 || true
}
show() { # NAME HEADING
	echo "$2"
	guest_report "$out/$1.console.log" "$out/$1.kernel.log" | sed 's/^/    /'
	echo "    (the guest's kernel log: ${out#"$top"/}/$1.kernel.log)"
	guest_passed "$out/$1.console.log" ||
		{ echo "demo: the $1 guest failed; its console: $out/$1.console.log" >&2; return 1; }
}

echo "demo: booting our kernel and Debian's, $( (($(nproc) > 1)) && echo "side by side" || echo "in turn"), about a minute under TCG"
if (($(nproc) > 1)); then
	boot ours "$ours" &
	boot debian "$debian"
	wait
else
	boot ours "$ours"
	boot debian "$debian"
fi
rc=0
show ours "== Our kernel (Debian 6.1 + kernel/series): burst may exceed quota" || rc=1
echo
show debian "== Debian's stock 6.1 kernel: burst is capped at quota" || rc=1
exit $rc
