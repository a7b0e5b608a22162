#!/bin/bash
# The benchmark in the e2e image under podman (make bench): boot the image
# on our kernel, then on Debian's, each running every bench case for it in
# one boot (burst-bench.service → bench/image-bench.sh → bench/suite.sh with
# the podman backend), then turn the logs into docs/benchmarks.md and
# docs/benchmarks.png (bench/report.py). Not a test: it prints figures and
# fails only when a guest gives none.
# Usage: bench/run-image.sh OUR_KERNEL STOCK_KERNEL STOCK_INITRD IMAGE OUTDIR
# Environment: BENCH_RUNTIME, BENCH_WARMUP, BENCH_ONLY, BENCH_ATTEMPTS,
# BENCH_STALL_US (see bench/suite.sh), BENCH_QUIET_WAIT (bench/runner-lib.sh),
# BENCH_DOCS (default docs/).
set -euo pipefail

ours=$1 stock=$2 stock_initrd=$3 image=$4 out=$5
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
. "$top/bench/runner-lib.sh"
# Up to 7 runs per boot, each try run time + warm-up + container start-up
# (≈10 s under TCG), plus the boot itself (≈90 s).
timeout_s=$(( 7 * attempts * (${runtime%.*} + ${warmup%.*} + 25) + 300 ))

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
ours_pattern=$out/

start=$(date +%s) boots_ms=0
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
notes=()
for kernel in patched stock; do
	if [[ $kernel == patched ]]; then
		vmlinuz=$ours initrd=none
	else
		vmlinuz=$stock initrd=$stock_initrd
	fi
	for boot in 1 2; do
		wait_quiet
		watch_others "$out/others-$kernel" &
		watcher=$!
		t0=$(date +%s%N) w0=$(cpu_wait_us)
		echo "bench: booting the image on $(basename "$vmlinuz") ($kernel), at most ${timeout_s}s"
		rc=0
		"$top/tests/e2e/boot-image.sh" "bench-$kernel" "$vmlinuz" "$initrd" "$image" \
			"$out/bench-$kernel.console.log" "$out/bench-$kernel.out" "$timeout_s" \
			"burstcfs.bench=1 burstcfs.expect=$kernel $append" || rc=$?
		w1=$(cpu_wait_us) t1=$(date +%s%N)
		kill "$watcher"
		wait "$watcher" 2>/dev/null || true
		tr -d '\r' <"$out/bench-$kernel.out" >"$out/bench-$kernel.log.txt"
		sed -n 's/^\(ok\|not ok\|# \)/bench-'"$kernel"': &/p' "$out/bench-$kernel.log.txt"
		if ! grep -q '^BENCH-END' "$out/bench-$kernel.log.txt"; then
			echo "bench: the $kernel guest never finished (rc=$rc); last lines of its console:" >&2
			tr -d '\r' <"$out/bench-$kernel.console.log" | tail -30 | sed 's/^/    /' >&2
			exit 1
		fi
		boots_ms=$(( boots_ms + (t1 - t0) / 1000000 ))
		seen=$(cat "$out/others-$kernel")
		notes+=("$kernel boot $boot: host CPU pressure $(( (w1 - w0) * 100 / ((t1 - t0) / 1000) ))%, other QEMU guests alongside: $seen")
		((seen > 0 && boot == 1)) || break
		echo "bench: $seen other QEMU guest(s) ran during the $kernel boot; booting it again"
	done
done
elapsed=$(( $(date +%s) - start ))

versions=$(sed -n 's/^# podman version \([^,]*\), podman package \([^,]*\), crun package \(.*\)/podman \2, crun \3/p' "$out/bench-patched.log.txt")
write_info "the e2e image (mkosi qemu), $(qemu-system-x86_64 --version | head -1 | sed 's/ (.*//'), TCG (${E2E_TCG:-single}-threaded), ${E2E_SMP:-2} vCPUs, ${E2E_MEM:-2048} MiB" "; $versions"
python3 "$top/bench/report.py" --template "$top/bench/benchmarks.md.in" \
	--setup "$top/bench/setup-image.md" --generator "make bench" \
	--md "$docs/benchmarks.md" --png "$docs/benchmarks.png" --info "$out/info.txt" \
	"$out/bench-patched.log.txt" "$out/bench-stock.log.txt"
echo "bench: $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
