#!/bin/bash
# Boot KERNEL with INITRAMFS under TCG, run one guest suite, judge its TAP.
# Usage: tests/qemu/run-guest.sh NAME KERNEL INITRAMFS SUITE EXPECT [TIMEOUT_S] [SMP]
#   NAME    label for logs and results (build/results/NAME.{log,result})
#   SUITE   program under /tests in the initramfs
#   EXPECT  'patched' or 'stock': which semantics the suite must assert
# Environment: RESULTS_DIR (default build/results), EXTRA_APPEND (more kernel
# command line, e.g. for the harness's own tests), EXTRA_QEMU (more QEMU
# arguments, split at spaces: bench/run-icount.sh's -icount and -plugin).
#
# The verdict (tests/lib/verdict.sh): fails when the guest never reaches its
# end marker (hang, panic, timeout), when any test says "not ok", when the
# plan count does not match, when the suite exits non-zero, or when the
# kernel complained (console or the kernel log the init dumps at the end).
# /dev/kvm here cannot run a stock guest, hence TCG.
set -euo pipefail

name=$1 kernel=$2 initramfs=$3 suite=$4 expect=$5
timeout_s=${6:-300}
smp=${7:-2}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/verdict.sh"
. "$top/scripts/lib/progress.sh"
results=${RESULTS_DIR:-$top/build/results}
log=$results/$name.log
mkdir -p "$results"
rm -f "$results/$name.result"

for f in "$kernel" "$initramfs"; do
	[[ -r $f ]] || { echo "run-guest: $f not found" >&2; exit 1; }
done

# Single-threaded TCG: with a host thread per vCPU, a vCPU can keep running
# a stale translation of kernel text another vCPU just patched (a static key
# flipping as the first cgroup with a limit appears) and loop on its int3
# forever; see docs/pipeline.md.
# A stalled CPU panics at once, which prints its backtrace (panic raises the
# console level) and ends the boot instead of idling to the timeout.
stall_panic="sysctl.kernel.panic_on_rcu_stall=1"

# A guest that has not started its suite BOOT_LIMIT_S seconds after boot
# is stuck in early boot, before any test runs: seen with the debug kernel
# under TCG (silent at loglevel=4; at loglevel=8 the last line is
# "Running RCU-tasks wait API self tests", mainline's PROVE_RCU self-test,
# before SMP bring-up), once in a fresh clone's make test on a quiet host.
# It gets one more boot; the first one is reported. A guest reaches its
# suite in 10-40 s alone, 80 s with four boots on two cores.
boot_limit=${BOOT_LIMIT_S:-120}
# Every 15 s: a progress line, and the early-boot check.
guest_progress() {
	echo "run-guest: $name: $(( $(date +%s) - start ))s, $(grep -cE '^(not )?ok ' "$log" 2>/dev/null) results so far"
	if ((attempt == 1 && $(date +%s) - boot_start >= boot_limit)) && ! grep -q '^GUEST-BEGIN' "$log"; then
		stuck=1
		kill "$qemu"
	fi
}
read -ra extra_qemu <<<"${EXTRA_QEMU:-}"
echo "run-guest: $name: booting $(basename "$kernel") (suite $suite, expect $expect, ${smp} vCPUs, timeout ${timeout_s}s)"
start=$(date +%s)
for attempt in 1 2; do
	boot_start=$(date +%s) stuck=
	set +e
	timeout --foreground -k 5 "$timeout_s" \
		qemu-system-x86_64 -machine q35 -accel tcg,thread=single -cpu max -smp "$smp" -m 512 \
		-kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 panic=-1 oops=panic $stall_panic loglevel=4 burstcfs.suite=$suite burstcfs.expect=$expect ${EXTRA_APPEND:-}" \
		-display none -monitor none -serial "file:$log" -no-reboot "${extra_qemu[@]}" &
	qemu=$!
	wait_progress "$qemu" 15 guest_progress
	wait "$qemu"
	qemu_rc=$?
	set -e
	[[ -n $stuck ]] || break
	echo "run-guest: $name: no GUEST-BEGIN ${boot_limit}s after boot: the kernel never finished booting; booting once more (console: $(tr -d '\r' <"$log" | tail -1 | cut -c1-100))"
done
elapsed=$(( $(date +%s) - start ))
tr -d '\r' <"$log" >"$log.txt"

verdict "$log.txt" "$qemu_rc" "$timeout_s" GUEST-RESULT "$log.txt"
grep -E '^(not ok|Bail out)' "$log.txt" | sed "s/^/run-guest: $name: /" || true
echo "$passed $failed" >"$results/$name.result"
if ((${#problems[@]})); then
	verdict_report "run-guest: $name" "$elapsed"
	echo "run-guest: $name: last 40 lines of $log:" >&2
	tail -40 "$log.txt" | sed 's/^/    /' >&2
	# A guest that never reported counts as one failure even with no TAP.
	((failed > 0)) || echo "$passed 1" >"$results/$name.result"
	exit 1
fi
echo "run-guest: $name: $passed passed, 0 failed, ${elapsed}s boot-to-result"
