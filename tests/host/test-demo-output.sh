#!/bin/bash
# What `make demo` shows a person: scripts/lib/guest-report.sh keeps a
# guest's kernel log out of the demo (into a file), and
# tests/demo/check-shape.sh, which `make test` runs on the real demo,
# fails on a kernel log line, a harness marker or a missing row.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib/guest-report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"
shape_passes() { "$top/tests/demo/check-shape.sh" <"$1" >"$tmp/shape.out" 2>&1; }
shape_fails_on() { # FILE TEXT: fails, and names TEXT in a "not ok" line
	! shape_passes "$1" && grep -qF -- "- $2" "$tmp/shape.out"
}

# A console as tests/qemu/init writes it: CRLF, the suite, the kernel log, the marker.
printf '%s\r\n' "SeaBIOS noise" "GUEST-BEGIN kernel=6.1 suite=burst-demo expect=none cpus=2" \
	"quota 10 ms / period 100 ms (10% of a CPU); a request of 30 ms CPU every 400 ms (7% average)" \
	"request latency (ms)              p50      p90      max  throttled" \
	"no burst                          201      205      209         26" \
	"burst = quota (10 ms)              92       95       99          9" \
	"burst = 3 x quota (30 ms)          30       31       33          0" \
	"quota 20ms/100ms, burst 20ms       30       31       33          0" \
	"(the last row: the same 20% share and 40 ms pool with burst = quota, on a 100 ms period)" \
	"KLOG [    0.000000] Linux version 6.1.192" "KLOG [    1.234567] cgroup: something" \
	"GUEST-RESULT rc=0" >"$tmp/console.log"
report=$(guest_report "$tmp/console.log" "$tmp/kernel.log")
ok "the report keeps the suite's 7 lines" test "$(wc -l <<<"$report")" -eq 7
ok "the report has no KLOG line and no marker" eval '! grep -qE "KLOG|GUEST-" <<<"$report"'
ok "the kernel log file has the 2 KLOG lines, unprefixed" \
	eval 'test "$(wc -l <"$tmp/kernel.log")" -eq 2 && grep -q "^\[    0.000000\] Linux" "$tmp/kernel.log"'
ok "guest_passed: rc=0 passes" guest_passed "$tmp/console.log"
sed 's/rc=0/rc=1/' "$tmp/console.log" >"$tmp/failed.log"
ok "guest_passed: rc=1 fails" eval '! guest_passed "$tmp/failed.log"'

# A whole demo output as scripts/demo.sh and scripts/image-demo.sh print it.
{
	for heading in "== Our kernel (Debian 6.1 + kernel/series): burst may exceed quota" \
		"== Debian's stock 6.1 kernel: burst is capped at quota"; do
		echo "$heading"
		sed 's/^/    /' <<<"$report"
		echo "    (the guest's kernel log: build/results/demo-kernel/ours.kernel.log)"
	done
	echo "image-demo: booting bzImage-guest (patched), about 2 minutes under TCG"
	echo "kernel           container                             burst throttled   throttled   delay p50   delay max"
	echo "                                                               periods          ms          ms          ms"
	echo "ours (burst-cfs) no limit                                  -         0         0.0         0.9        15.3"
	echo "ours (burst-cfs) quota 10ms/100ms                          -        26      1589.7       196.8       199.3"
	echo "ours (burst-cfs) quota + burst 40ms                    40 ms         0         0.0         0.8         1.9"
	echo "ours (burst-cfs) quota 25ms/250ms + burst 25ms         25 ms         0         0.0         0.9         2.1"
	echo "ours (burst-cfs) quota + advised burst                 22 ms         0         0.0         1.2         2.5"
	echo "Debian stock     no limit                                  -         0         0.0         0.9        20.9"
	echo "Debian stock     quota 10ms/100ms                          -        28      1876.3       207.6       210.6"
	echo "Debian stock     quota + burst 40ms                    40 ms  refused: crun: cannot set the CPU burst to 40000us"
	echo "Debian stock     quota + burst 10ms (stock max)        10 ms         9       543.1        91.4        93.5"
	echo "Debian stock     quota 25ms/250ms + burst 25ms         25 ms         0         0.0         0.9         2.3"
	echo "Debian stock     quota + advised burst                 59 ms  refused: crun: cannot set the CPU burst to 59090us"
} >"$tmp/demo.txt"
ok "check-shape passes a whole demo" shape_passes "$tmp/demo.txt"
sed '/^== Debian/a\    [    1.234567] cgroup: something' "$tmp/demo.txt" >"$tmp/klog.txt"
ok "check-shape fails on a kernel log line" shape_fails_on "$tmp/klog.txt" "no kernel log line (KLOG or a dmesg timestamp)"
awk '/^== Debian/ { d = 1 } !(d && /^    no burst/)' "$tmp/demo.txt" >"$tmp/norow.txt"
ok "check-shape fails on a missing bare row" shape_fails_on "$tmp/norow.txt" "Debian's stock, bare cgroup: the row 'no burst'"
grep -v '^ours (burst-cfs) quota + advised' "$tmp/demo.txt" >"$tmp/nocontainer.txt"
ok "check-shape fails on a missing container row" shape_fails_on "$tmp/nocontainer.txt" "ours (burst-cfs), container: the row 'quota + advised burst'"
