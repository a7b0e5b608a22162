#!/bin/bash
# The image runner (tests/e2e/run-image.sh) must fail a boot whose suite
# reports fewer tests than planned, a "not ok", or a kernel warning that
# only the kernel log shows (loglevel=4 keeps it off the console); one that
# ends without its end marker; one that hangs half-way (the stall watchdog);
# one that never reaches its suite before the timeout; and it must pass a
# clean one whose quiet spells are each shorter than the stall limit.
# Each case is a real boot of the e2e image on KERNEL, whose suite
# misbehaves as burstcfs.e2e.selftest= asks (tests/e2e/suite.sh); the
# boots run at once (they check verdicts, not timing).
# Usage: tests/e2e/selftest.sh KERNEL IMAGE
set -euo pipefail
kernel=$1 image=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/lib/verdict.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
kept=${RESULTS_DIR:-$top/build/results}/image-selftest
rm -rf "$kept"
# The hang case: its suite prints its test, then nothing; the watchdog
# ends it this long after. The pass case runs with the same limit and
# falls quiet three times for 10 s. The timeout case: the watchdog off and
# a timeout shorter than the boot (the suite started 110-150 s after the
# boot with five boots sharing the cores), so the timeout and nothing else
# ends it, before its suite (hang's, in case it ever got that far) starts.
STALL_S=20 TIMEOUT_S=60

modes=(pass mixed nomarker hang timeout)
declare -A desc reason suite timeout stall
desc[pass]="a clean suite with quiet spells shorter than the stall limit passes"
desc[mixed]="a boot with a short count, a 'not ok' and a kernel warning off the console fails on each"
desc[nomarker]="a suite that ends without its end marker fails"
desc[hang]="a suite that hangs half-way fails when the stall watchdog stops it"
desc[timeout]="a boot that does not report in time fails on the timeout"
reason[nomarker]="never reported"
reason[hang]="guest stalled: no suite output for ${STALL_S}s"
reason[timeout]="guest timed out after ${TIMEOUT_S}s"
# The boots that reach their suite start only it and what it needs
# (systemd.unit=): the verdicts do not depend on the rest of multi-user
# (the burst user's manager, networking, podman's units), which made five
# boots at once take 110-150 s to their suite. The timeout case boots it
# all, to stay longer than its timeout.
declare -A unit
for mode in "${modes[@]}"; do
	suite[$mode]=$mode timeout[$mode]=300 stall[$mode]=300 unit[$mode]=systemd.unit=burst-e2e.service
done
unit[timeout]=
suite[timeout]=hang timeout[timeout]=$TIMEOUT_S stall[timeout]=0
stall[hang]=$STALL_S stall[pass]=$STALL_S

echo "image selftest: ${#modes[@]} boots of $(basename "$image") on $(basename "$kernel") at once"
start=$SECONDS
for mode in "${modes[@]}"; do
	( set +e
	  RESULTS_DIR=$scratch EXTRA_APPEND="burstcfs.e2e.selftest=${suite[$mode]} ${unit[$mode]}" E2E_STALL_S=${stall[$mode]} \
		"$here/run-image.sh" "selftest-$mode" "$kernel" none "$image" patched "${timeout[$mode]}" \
		>"$scratch/$mode.out" 2>&1
	  echo $? >"$scratch/$mode.rc" ) &
done
wait

passed=0 failed=0
for mode in "${modes[@]}"; do
	out=$(cat "$scratch/$mode.out") rc=$(cat "$scratch/$mode.rc")
	case $mode in
	pass)
		((rc == 0)) && grep -q '1 passed, 0 failed' <<<"$out" &&
			grep -q '^selftest-pass: # quiet spell 3 of 3 over' <<<"$out" ;;
	mixed)
		((rc != 0)) && grep -q 'plan says 3 tests, 2 reported' <<<"$out" &&
			grep -q '1 tests failed' <<<"$out" &&
			grep -q 'kernel: KLOG .*WARNING: CPU: 0 PID: 1 at burst-e2e-selftest' <<<"$out" &&
			! grep -q 'at burst-e2e-selftest: injected' "$scratch/selftest-mixed.console.log.txt" ;;
	timeout)
		((rc != 0)) && grep -q "${reason[$mode]}" <<<"$out" && ! grep -q 'stalled' <<<"$out" ;;
	hang)
		# Stopped after a silence of at least the limit, once its test was out.
		silence=$(sed -n 's/.*stalled: no suite output for \([0-9]*\)s (limit.*/\1/p' <<<"$out" | tail -1)
		((rc != 0)) && grep -q "${reason[$mode]}" <<<"$out" &&
			((${silence:-0} >= STALL_S)) && grep -q "^selftest-$mode: ok 1 - one" <<<"$out" ;;
	*)
		# The suite started (it printed its test) before it went wrong.
		((rc != 0)) && grep -q "${reason[$mode]}" <<<"$out" &&
			grep -q "^selftest-$mode: ok 1 - one" <<<"$out" ;;
	esac && { echo "ok - ${desc[$mode]} ($(verdict_took "$out"))"; passed=$((passed + 1)); continue; }
	echo "not ok - ${desc[$mode]} (exit $rc)"
	# The runner's own lines say why; the console's tail follows them.
	grep -v '^    ' <<<"$out" | tail -8 | sed 's/^/    /'
	sed 's/^/    /' <<<"$out" | tail -20
	# Its logs outlive the scratch directory, to be read afterwards.
	mkdir -p "$kept"
	cp -r "$scratch/$mode.out" "$scratch/selftest-$mode".* "$kept/" 2>/dev/null || true
	echo "    (its logs: ${kept#"$top"/})"
	failed=$((failed + 1))
done

mkdir -p "$top/build/results"
echo "$passed $failed" >"$top/build/results/image-selftest.result"
echo "image selftest: $passed passed, $failed failed, $((SECONDS - start)) s"
((failed == 0))
