#!/bin/bash
# The e2e suite on our kernel and on Debian's, both boots at once: each boot
# is one single-threaded TCG process, so on a machine with two cores or more
# the two run side by side and `make e2e` takes as long as the longer one.
# With one core, or E2E_PARALLEL=0, they run one after the other.
# Usage: tests/e2e/run-both.sh KERNEL STOCK_KERNEL STOCK_INITRD IMAGE [TIMEOUT_S]
# Side by side each boot is slower (about 14 min instead of 9: the two TCG
# threads share the cores with QEMU's and the host's other work); the pair
# still ends 4 to 5 min sooner than one after the other.
# Each boot's output goes to RESULTS_DIR/NAME.run.log; while they run, a line
# per boot every 30 s says how far it got; at the end both logs are shown,
# ours first. Fails if either boot failed (tests/e2e/run-image.sh judges each).
set -euo pipefail

kernel=$1 stock_kernel=$2 stock_initrd=$3 image=$4 timeout_s=${5:-900}
top=$(cd "$(dirname "$0")/../.." && pwd)
results=${RESULTS_DIR:-$top/build/results}
run=$top/tests/e2e/run-image.sh
. "$top/scripts/lib/progress.sh"
mkdir -p "$results"

if [[ ${E2E_PARALLEL:-1} == 0 ]] || (($(nproc) < 2)); then
	rc=0
	"$run" e2e-patched "$kernel" none "$image" patched "$timeout_s" || rc=1
	"$run" e2e-stock "$stock_kernel" "$stock_initrd" "$image" stock "$timeout_s" || rc=1
	exit "$rc"
fi

names=(e2e-patched e2e-stock)
echo "run-both: booting the image on our kernel and on Debian's at once ($(nproc) cores; E2E_PARALLEL=0 runs them in turn)"
start=$SECONDS
"$run" e2e-patched "$kernel" none "$image" patched "$timeout_s" >"$results/e2e-patched.run.log" 2>&1 &
pids=($!)
"$run" e2e-stock "$stock_kernel" "$stock_initrd" "$image" stock "$timeout_s" >"$results/e2e-stock.run.log" 2>&1 &
pids+=($!)

# A line every 30 s for each boot still running.
both_progress() {
	for i in 0 1; do
		kill -0 "${pids[$i]}" 2>/dev/null || continue
		echo "run-both: $((SECONDS - start)) s: $(grep -a "^run-image: ${names[$i]}: " "$results/${names[$i]}.run.log" | tail -1 | cut -c1-120)"
	done
}
for pid in "${pids[@]}"; do
	wait_progress "$pid" 30 both_progress
done

rc=0
for i in 0 1; do
	wait "${pids[$i]}" || rc=1
	cat "$results/${names[$i]}.run.log"
done
echo "run-both: both boots done in $((SECONDS - start)) s$( ((rc == 0)) || echo ', at least one FAILED')"
exit "$rc"
