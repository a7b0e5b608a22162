#!/bin/bash
# The harness must fail a guest that hangs, panics, reports no results, a
# wrong count, a failed test, no end marker, or a kernel warning that never
# reached the console; and it must pass a clean one. Otherwise a broken
# kernel could pass `make test`. Each case boots the stock kernel with the
# test initramfs (tests/qemu/selftest-suite misbehaves as asked).
# Usage: tests/qemu/selftest.sh KERNEL INITRAMFS
set -euo pipefail
kernel=$1 initramfs=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/lib/verdict.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Every case boots in the background, as many at once as there are cores
# (they check verdicts, not timing); the results are judged in order.
declare -a descs reasons
n=0
# boot_case DESCRIPTION REASON-REGEX|pass SUITE TIMEOUT [EXTRA_APPEND]
boot_case() {
	local i=$n
	descs[i]=$1 reasons[i]=$2
	n=$((n + 1))
	while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
	mkdir -p "$scratch/$i"
	( set +e
	  RESULTS_DIR=$scratch/$i EXTRA_APPEND=${5:-} \
		"$here/run-guest.sh" selftest "$kernel" "$initramfs" "$3" stock "$4" >"$scratch/$i/out" 2>&1
	  echo $? >"$scratch/$i/rc" ) &
}

# The control: without it a runner that fails everything would pass.
boot_case "a clean suite passes" pass selftest-suite 60 burstcfs.selftest=pass
# cat reads the console forever: the guest never prints its end marker.
boot_case "a guest that hangs fails on the timeout" \
	"timed out" ../bin/cat 20
boot_case "a guest whose init dies (kernel panic) fails" \
	"never reported" burst-kernel 60 rdinit=/bin/false
boot_case "a suite that prints no TAP fails" \
	"no TAP plan|exited with status" ../bin/false 60
boot_case "a suite that reports fewer tests than its plan fails" \
	"plan says 3 tests, 2 reported" selftest-suite 60 burstcfs.selftest=plan
boot_case "a 'not ok' fails the run though the suite exits 0" \
	"1 tests failed" selftest-suite 60 burstcfs.selftest=notok
boot_case "a guest that powers off before its end marker fails" \
	"never reported" selftest-suite 60 burstcfs.selftest=nomarker
# The warning is logged at KERN_WARNING: at loglevel=4 only the kernel log
# the init dumps at the end shows it.
warn_case=$n
boot_case "a kernel warning that never reached the console fails the run" \
	"kernel: KLOG .*WARNING: CPU: 0 PID: 1 at selftest-suite" selftest-suite 60 burstcfs.selftest=warn
wait

passed=0 failed=0
for ((i = 0; i < n; i++)); do
	out=$(cat "$scratch/$i/out") rc=$(cat "$scratch/$i/rc")
	if [[ ${reasons[i]} == pass ]]; then
		((rc == 0)) && grep -q '1 passed, 0 failed' <<<"$out"
	else
		((rc != 0)) && grep -qE "${reasons[i]}" <<<"$out"
	fi && { echo "ok - ${descs[i]} ($(verdict_took "$out"))"; passed=$((passed + 1)); continue; }
	echo "not ok - ${descs[i]} (exit $rc)"
	sed 's/^/    /' <<<"$out" | tail -15
	failed=$((failed + 1))
done
if grep -v '^KLOG ' "$scratch/$warn_case/selftest.log.txt" | grep -q 'at selftest-suite: injected'; then
	echo "not ok - the injected warning reached the console: the case proves nothing about the dump"
	failed=$((failed + 1))
fi

mkdir -p "$top/build/results"
echo "$passed $failed" >"$top/build/results/harness-selftest.result"
echo "harness selftest: $passed passed, $failed failed"
((failed == 0))
