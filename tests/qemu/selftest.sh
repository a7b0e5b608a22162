#!/bin/bash
# The harness must fail a guest that hangs, panics or reports no results;
# otherwise a broken kernel could pass `make test`.
# Usage: tests/qemu/selftest.sh KERNEL INITRAMFS
set -euo pipefail
kernel=$1 initramfs=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

# expect_failure DESCRIPTION REASON-REGEX SUITE TIMEOUT [EXTRA_APPEND]
expect_failure() {
	local desc=$1 reason=$2 suite=$3 timeout_s=$4 out rc
	set +e
	out=$(RESULTS_DIR=$scratch EXTRA_APPEND=${5:-} \
		"$here/run-guest.sh" selftest "$kernel" "$initramfs" "$suite" stock "$timeout_s" 2>&1)
	rc=$?
	set -e
	if ((rc != 0)) && grep -qE "$reason" <<<"$out"; then
		echo "ok - $desc"
		passed=$((passed + 1))
	else
		echo "not ok - $desc (exit $rc)"
		sed 's/^/    /' <<<"$out" | tail -15
		failed=$((failed + 1))
	fi
}

# cat reads the console forever: the guest never prints its end marker.
expect_failure "a guest that hangs fails on the timeout" \
	"timed out|never reported" ../bin/cat 20
expect_failure "a guest whose init dies (kernel panic) fails" \
	"never reported" burst-kernel 60 rdinit=/bin/false
expect_failure "a suite that prints no TAP fails" \
	"no TAP plan|exited with status" ../bin/false 60

mkdir -p "$top/build/results"
echo "$passed $failed" >"$top/build/results/harness-selftest.result"
echo "harness selftest: $passed passed, $failed failed"
((failed == 0))
