#!/bin/bash
# Boot the e2e image under TCG with a given kernel (direct kernel boot), let
# burst-e2e.service run the suite, judge its TAP.
# Usage: tests/e2e/run-image.sh NAME KERNEL INITRD|none IMAGE EXPECT [TIMEOUT_S]
#   NAME    label for logs and results: RESULTS_DIR/NAME.{console.log,tap,result}
#   INITRD  'none' for our kernel (everything built in); the stock kernel
#           needs build/image/initrd-stock.cpio.gz (virtio modules)
#   EXPECT  'patched' or 'stock': which semantics the suite asserts
# Environment: RESULTS_DIR (default build/results), EXTRA_APPEND (more kernel
# command line), E2E_MEM (MiB, default 2048), E2E_SMP (default 2).
#
# tests/e2e/boot-image.sh boots it with `mkosi qemu` (Ephemeral=yes: a pristine first boot each
# time). The suite writes TAP to the second serial port (ttyS1 -> NAME.tap);
# kernel and systemd use the first (ttyS0 -> NAME.console.log).
# Fails when the guest times out or never prints "E2E-RESULT", when any test
# is "not ok", when the plan and the results disagree, or when the kernel
# printed a warning, BUG or panic.
set -euo pipefail

name=$1 kernel=$2 initrd=$3 image=$4 expect=$5
timeout_s=${6:-900}
top=$(cd "$(dirname "$0")/../.." && pwd)
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

# The transcript.
sed "s/^/$name: /" "$tap.txt"

passed=$(grep -caE '^ok ' "$tap.txt" || true)
failed=$(grep -caE '^not ok ' "$tap.txt" || true)
planned=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' "$tap.txt" | tail -1)
problems=()
((qemu_rc == 124 || qemu_rc == 137)) && problems+=("guest timed out after ${timeout_s}s")
grep -qa '^E2E-RESULT ' "$tap.txt" || problems+=("guest never reported (no E2E-RESULT marker)")
guest_rc=$(sed -n 's/^E2E-RESULT rc=\([0-9]*\).*/\1/p' "$tap.txt" | tail -1)
[[ -z $guest_rc || $guest_rc == 0 ]] || problems+=("suite reported status $guest_rc")
[[ -n $planned ]] || problems+=("no TAP plan line")
[[ -z $planned || $planned == $((passed + failed)) ]] || problems+=("plan says $planned tests, $((passed + failed)) reported")
((failed == 0)) || problems+=("$failed tests failed")
if grep -qaE 'Kernel panic|WARNING:|BUG:|rcu: INFO' "$console.txt"; then
	problems+=("kernel reported a warning, BUG, stall or panic")
fi

echo "$passed $failed" >"$results/$name.result"
if ((${#problems[@]})); then
	echo "run-image: $name: FAILED after ${elapsed}s: ${problems[*]/%/;}" >&2
	grep -aE '^not ok' "$tap.txt" | sed "s/^/run-image: $name: /" >&2 || true
	echo "run-image: $name: last 40 lines of $console:" >&2
	tail -40 "$console.txt" | sed 's/^/    /' >&2
	# A guest that never reported counts as one failure even with no TAP.
	((failed > 0)) || echo "$passed 1" >"$results/$name.result"
	exit 1
fi
echo "run-image: $name: $passed passed, 0 failed, ${elapsed}s boot-to-result"
