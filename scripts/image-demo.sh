#!/bin/bash
# Boot the e2e image on our kernel and on Debian's stock kernel in demo mode
# (burstcfs.demo=1: tests/e2e/demo.sh runs a bursty podman container without
# and with burst) and print what a user sees, as one table.
# Usage: scripts/image-demo.sh OUR_KERNEL STOCK_KERNEL STOCK_INITRD IMAGE
set -euo pipefail

ours=$1 stock=$2 stock_initrd=$3 image=$4
top=$(cd "$(dirname "$0")/.." && pwd)
out=${RESULTS_DIR:-$top/build/results}/demo
mkdir -p "$out"

boot() { # NAME KERNEL INITRD EXPECT
	local rc=0
	echo "image-demo: booting $(basename "$2") ($4), about 2 minutes under TCG"
	"$top/tests/e2e/boot-image.sh" "image-demo: $1" "$2" "$3" "$image" \
		"$out/$1.console.log" "$out/$1.out" 600 "burstcfs.demo=1 burstcfs.expect=$4" || rc=$?
	tr -d '\r' <"$out/$1.out" >"$out/$1.txt"
	if ! grep -q '^DEMO-END' "$out/$1.txt"; then
		echo "image-demo: $1: the guest never finished (qemu rc=$rc); last lines of its console:" >&2
		tr -d '\r' <"$out/$1.console.log" | tail -30 | sed 's/^/    /' >&2
		return 1
	fi
}
boot ours "$ours" none patched
boot stock "$stock" "$stock_initrd" stock

echo
echo "What burst does this service need? burstctl record traced it without a limit on our"
echo "kernel; burstctl advise replays the trace through the model of the refill rule, then"
echo "through mainline's rules (burst at most quota, any period) for the same share:"
echo
sed -n 's/^DEMO-ADVISE|/    /p' "$out/ours.txt"
echo
echo "A request every 400 ms needing 30 ms of CPU (0.075 CPU on average), 10 requests,"
echo "in a podman container; delay = time a request waited beyond its own 30 ms of CPU."
echo "quota 25ms/250ms + burst 25ms: what a kernel capped at quota can do for the same"
echo "0.1 CPU and the same 50 ms pool as quota + burst 40ms, with a longer period."
echo
cat "$out/ours.txt" "$out/stock.txt" | awk -F'|' '
	function f(k,   m) { return match($5, " " k "=[-0-9]+") ? substr($5, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "?" }
	BEGIN {
		fmt = "%-16s %-32s %10s %9s %11s %11s %11s\n"
		printf fmt, "kernel", "container", "burst", "throttled", "throttled", "delay p50", "delay max"
		printf fmt, "", "", "", "periods", "ms", "ms", "ms"
	}
	/^DEMO\|/ {
		k = ($2 == "patched") ? "ours (burst-cfs)" : "Debian stock"
		b = ($4 == "-" || $4 == 0) ? "-" : sprintf("%d ms", $4 / 1000)
		if ($5 ~ /^refused/) {
			printf "%-16s %-32s %10s  %s\n", k, $3, b, $5
			next
		}
		printf fmt, k, $3, b, f("nr_throttled"), sprintf("%.1f", f("throttled_usec") / 1000),
			sprintf("%.1f", f("delay_p50_us") / 1000), sprintf("%.1f", f("delay_max_us") / 1000)
	}'
