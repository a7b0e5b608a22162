#!/bin/bash
# The benchmark on the initramfs guest: boot our kernel, then Debian's, each
# running every bench run for it in one boot (bench/suite.sh as
# /tests/bench-suite, bare cgroups: no podman, no systemd), then turn the
# serial logs into docs/benchmarks-kernel.md and docs/benchmarks-kernel.png
# (bench/report.py). `make bench` runs the same cases under podman in the
# e2e image (bench/run-image.sh).
# Usage: bench/run-kernel.sh OUR_KERNEL STOCK_KERNEL INITRAMFS OUTDIR
# Environment: BENCH_RUNTIME, BENCH_WARMUP (seconds per run; default 15, 2),
# BENCH_ONLY (run names, comma-separated), BENCH_ATTEMPTS, BENCH_STALL_US
# (see bench/suite.sh), BENCH_QUIET_WAIT (seconds to wait, before each boot,
# for other QEMU guests on this host to finish; default 600), BENCH_DOCS
# (default docs/).
#
# Timing under TCG is only meaningful when our guest has the host's CPUs to
# itself: before each boot this waits for other QEMU guests to finish, and
# a boot during which another guest ran is booted once more.
set -euo pipefail

ours=$1 stock=$2 initramfs=$3 out=$4
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
. "$top/bench/runner-lib.sh"
# Up to 7 runs per boot, each try run time + warm-up + a few seconds of
# set-up, plus the boot itself; generous, since a busy host slows TCG down.
timeout_s=$(( 7 * attempts * (${runtime%.*} + ${warmup%.*} + 10) + 180 ))

# Guests this run boots have $initramfs on their command line.
ours_pattern=$initramfs

rm -rf "$out"
mkdir -p "$out"
start=$(date +%s) boots_ms=0
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
notes=()
for kernel in patched stock; do
	[[ $kernel == patched ]] && image=$ours || image=$stock
	for boot in 1 2; do
		wait_quiet
		watch_others "$out/others-$kernel" &
		watcher=$!
		t0=$(date +%s%N) w0=$(cpu_wait_us)
		rc=0
		RESULTS_DIR=$out EXTRA_APPEND=$append \
			"$top/tests/qemu/run-guest.sh" "bench-$kernel" "$image" "$initramfs" \
			bench-suite "$kernel" "$timeout_s" || rc=$?
		w1=$(cpu_wait_us) t1=$(date +%s%N)
		kill "$watcher"
		wait "$watcher" 2>/dev/null || true
		((rc == 0)) || exit "$rc"
		boots_ms=$(( boots_ms + (t1 - t0) / 1000000 ))
		seen=$(cat "$out/others-$kernel")
		note="$kernel boot $boot: host CPU pressure $(( (w1 - w0) * 100 / ((t1 - t0) / 1000) ))%, other QEMU guests alongside: $seen"
		notes+=("$note")
		((seen > 0 && boot == 1)) || break
		echo "bench-kernel: $seen other QEMU guest(s) ran during the $kernel boot; booting it again"
	done
done
elapsed=$(( $(date +%s) - start ))

write_info "$(qemu-system-x86_64 --version | head -1 | sed 's/ (.*//'), TCG (single-threaded), 2 vCPUs, 512 MiB"
python3 "$top/bench/report.py" --template "$top/bench/benchmarks.md.in" \
	--setup "$top/bench/setup-kernel.md" --generator "make bench-kernel" \
	--md "$docs/benchmarks-kernel.md" --png "$docs/benchmarks-kernel.png" --info "$out/info.txt" \
	"$out/bench-patched.log.txt" "$out/bench-stock.log.txt"
echo "bench-kernel: $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
