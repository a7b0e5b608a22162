#!/bin/bash
# Boot the e2e image under TCG with a given kernel (direct kernel boot), let
# burst-e2e.service run the suite, judge its TAP.
# Usage: tests/e2e/run-image.sh NAME KERNEL INITRD|none IMAGE EXPECT [TIMEOUT_S]
#   NAME    label for logs and results: RESULTS_DIR/NAME.{console.log,tap,result}
#   INITRD  'none' for our kernel (everything built in); the stock kernel
#           needs build/image/initrd-stock.cpio.gz (virtio modules)
#   EXPECT  'patched' or 'stock': which semantics the suite asserts
# Environment: RESULTS_DIR (default build/results), EXTRA_APPEND (more kernel
# command line), E2E_MEM (MiB, default 2048), E2E_SMP (default 2),
# E2E_STALL_S (default 300; 0 turns it off): a suite that has started and then prints
# nothing for this long has hung (the guest froze, or the suite itself); the
# boot stops and fails then, not at TIMEOUT_S. The e2e suite's longest
# silence is about 75 s (the load cases, two boots side by side), and its
# own watchdog speaks up after 180 s in a test that hangs, so a hung test
# is reported by the suite first. E2E_POWEROFF_S (default 120): after its
# E2E-RESULT the guest has this long (or E2E_STALL_S, if longer) to power off.
#
# tests/e2e/boot-image.sh boots it with `mkosi qemu` (Ephemeral=yes: a pristine first boot each
# time). The suite writes TAP to the second serial port (ttyS1 -> NAME.tap);
# kernel and systemd use the first (ttyS0 -> NAME.console.log).
# The verdict (tests/lib/verdict.sh): fails when the guest times out, stalls
# or never prints "E2E-RESULT", when any test is "not ok", when the plan and the
# results disagree, or when the kernel complained, on the console or in the
# kernel log the suite dumps before its end marker.
set -euo pipefail

name=$1 kernel=$2 initrd=$3 image=$4 expect=$5
timeout_s=${6:-900}
export E2E_STALL_S=${E2E_STALL_S:-300}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/verdict.sh"
results=${RESULTS_DIR:-$top/build/results}
console=$results/$name.console.log
tap=$results/$name.tap
mkdir -p "$results"
rm -f "$results/$name.result" "$console" "$tap"

echo "run-image: $name: booting $(basename "$kernel") on $(basename "$image") (expect $expect, ${E2E_SMP:-2} vCPUs, timeout ${timeout_s}s)"
start=$(date +%s)
set +e
"$top/tests/e2e/boot-image.sh" "run-image: $name" "$kernel" "$initrd" "$image" "$console" "$tap" "$timeout_s" \
	"burstcfs.e2e=1 burstcfs.expect=$expect ${EXTRA_APPEND:-}"
qemu_rc=$?
set -e
elapsed=$(( $(date +%s) - start ))
tr -d '\r' <"$tap" >"$tap.txt" 2>/dev/null || : >"$tap.txt"
tr -d '\r' <"$console" >"$console.txt" 2>/dev/null || : >"$console.txt"

# The transcript (the kernel log the suite dumps at the end is for the
# verdict only).
grep -av "^$KLOG_PREFIX" "$tap.txt" | sed "s/^/$name: /" || true

verdict "$tap.txt" "$qemu_rc" "$timeout_s" E2E-RESULT "$console.txt"
# boot-image.sh's stall watchdog stopped it: half-way, or after the end
# marker when the guest did not power off.
if ((qemu_rc == 123)); then
	if grep -qa '^E2E-RESULT ' "$tap.txt"; then
		problems+=("guest did not power off within $((${E2E_POWEROFF_S:-120} > E2E_STALL_S ? ${E2E_POWEROFF_S:-120} : E2E_STALL_S))s of its E2E-RESULT")
	else
		problems+=("guest stalled: no suite output for ${E2E_STALL_S}s")
	fi
fi

echo "$passed $failed" >"$results/$name.result"
if ((${#problems[@]})); then
	verdict_report "run-image: $name" "$elapsed"
	grep -aE '^not ok' "$tap.txt" | sed "s/^/run-image: $name: /" >&2 || true
	echo "run-image: $name: last 40 lines of $console:" >&2
	tail -40 "$console.txt" | sed 's/^/    /' >&2
	# A guest that never reported counts as one failure even with no TAP.
	((failed > 0)) || echo "$passed 1" >"$results/$name.result"
	exit 1
fi
echo "run-image: $name: $passed passed, 0 failed, ${elapsed}s boot-to-result"
