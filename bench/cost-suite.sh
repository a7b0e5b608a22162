#!/bin/sh
# What bandwidth control costs, in one boot of the initramfs guest
# (make bench-cost, bench/run-cost.sh): bench/costbench.c's modes, each
# result printed as one "BENCH-JSON {...}" line (bench/report.py --append
# reads them) and one TAP line. Figures only: nothing here is judged.
#
#   path   the paths the series changed, one run each (costbench.c says how
#          an operation's cost is measured): refill (throttled and refilled
#          every period), wake (the first slice after the period timer
#          stopped), slack (runtime returned by a runqueue going idle);
#          COST_PATH_PAIRS pairs of COST_PATH_WINDOW_MS windows
#   config one cpu.max, cpu.max.burst and (ours) three-field write and one
#          cpu.stat read, each COST_CONFIG_OPS times
#   fleet  scaling: 10, 100 and 500 limited groups (COST_FLEET_SIZES),
#          each with a process spinning 3 ms of CPU every 2 s (phases
#          spread; 0.75 CPU of demand at 500 groups), quota 1 ms / 100 ms
#          (the kernel's least quota); the guest's CPU time by kind and the
#          groups' throttling over COST_FLEET_S seconds. Every kernel runs
#          it with burst = quota (a 2 ms pool: each 3 ms spin is throttled
#          once); ours also with burst 3 ms, whose pool covers a spin
#
# POSIX sh, run as /tests/cost-suite. Environment (from the guest's kernel
# command line, run-guest.sh's EXTRA_APPEND): BURSTCFS_EXPECT (set by /init),
# BENCH_KERNEL (ours, mainline, mainline-aa or stock: the report's label),
# COST_ONLY (path, config or fleet), COST_PATH_PAIRS (6),
# COST_PATH_WINDOW_MS (1000), COST_CONFIG_OPS (2000), COST_FLEET_SIZES
# ("10 100 500"), COST_FLEET_S (6).
set -eu

kernel=${BURSTCFS_EXPECT:-patched}
case $kernel in patched) label=ours ;; *) label=stock ;; esac
label=${BENCH_KERNEL:-$label}
pairs=${COST_PATH_PAIRS:-6}
window_ms=${COST_PATH_WINDOW_MS:-1000}
config_ops=${COST_CONFIG_OPS:-2000}
paths="refill wake slack"
# The kernel command line carries the sizes comma-separated.
sizes=$(echo "${COST_FLEET_SIZES:-10 100 500}" | tr , " ")
fleet_s=${COST_FLEET_S:-6}
only=${COST_ONLY:-}
cb=$(dirname "$0")/costbench
cgroot=/sys/fs/cgroup
sysctl=/proc/sys/kernel/sched_cfs_bw_burst_enabled

# The fleet's shape (see the top): quota, period, spin and interval, and the
# bursts this kernel runs it with.
quota=1000 period=100000 spin=3000 every=2000 warmup=2
bursts=1000
[ "$kernel" != patched ] || bursts="1000 3000"

[ -x "$cb" ] || { echo "Bail out! no costbench at $cb"; exit 1; }
grep -qw cpu "$cgroot/cgroup.controllers" || { echo "Bail out! no cpu controller in $cgroot"; exit 1; }
# A boot given the wrong bzImage would put one kernel's figures in another's
# column: the sysctl comes with the series and only with it.
if [ "$kernel" = patched ] && [ ! -e "$sysctl" ]; then
	echo "Bail out! $label was booted as a kernel with the series, but it has no $sysctl"
	exit 1
elif [ "$kernel" != patched ] && [ -e "$sysctl" ]; then
	echo "Bail out! $label was booted as a kernel without the series, but it has $sysctl"
	exit 1
fi
echo +cpu >"$cgroot/cgroup.subtree_control"

# wanted MODE: whether this boot runs MODE.
wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }
total=0
! wanted path || for p in $paths; do total=$((total + 1)); done
! wanted config || total=$((total + 1))
! wanted fleet || for b in $bursts; do for n in $sizes; do total=$((total + 1)); done; done
echo "1..$total"
echo "# cost: kernel $(uname -r) ($label, $kernel semantics), $(nproc) CPUs"
# shellcheck disable=SC1003 # tr's '\\' is one backslash
version=$(uname -v | tr -d '"\\')
head="\"kernel\":\"$label\",\"expect\":\"$kernel\",\"release\":\"$(uname -r)\",\"version\":\"$version\",\"cpus\":$(nproc)"

n=0 failed=0
# result NAME DESCRIPTION JSON-FIELDS OUTPUT: the BENCH-JSON and TAP lines.
result() {
	n=$((n + 1))
	case $4 in
	"{"*"}")
		echo "BENCH-JSON {\"run\":\"$1\",$head,$3,\"result\":$4}"
		echo "ok $n - $2"
		;;
	*)
		failed=$((failed + 1))
		echo "not ok $n - $2: costbench gave no result"
		;;
	esac
}

if wanted path; then
	dir=$cgroot/cost-path
	mkdir "$dir"
	for p in $paths; do
		out=$("$cb" path "$p" "$dir" "$pairs" "$window_ms") || out=""
		result "path-$p" "path $p: $(echo "$out" | grep -o '"overhead_ns_per_op":[-0-9.]*' | sed 's/.*://' | paste -sd' ') ns per operation, the CPU's rate drifting $(echo "$out" | grep -o '"rate_drift":[0-9.]*' | sed 's/.*://' | paste -sd' ')" \
			"\"path\":\"$p\"" "$out"
	done
	rmdir "$dir"
fi

if wanted config; then
	dir=$cgroot/cost-config
	mkdir "$dir"
	out=$("$cb" config "$dir" "$config_ops") || out=""
	result config "configuration writes and cpu.stat reads: $(echo "$out" | tr -d '{}"' | sed 's/mode:config,//')" "\"ops\":$config_ops" "$out"
	rmdir "$dir"
fi

if wanted fleet; then
	dir=$cgroot/cost-fleet
	mkdir "$dir"
	for b in $bursts; do
		for size in $sizes; do
			out=$("$cb" fleet "$dir" "$size" "$quota" "$period" "$b" "$spin" "$every" "$warmup" "$fleet_s") || out=""
			result "fleet-$b" "$size groups, burst $b us: $(echo "$out" | sed -n 's/.*"system_pct":\([0-9.]*\).*"softirq_pct":\([0-9.]*\).*"nr_throttled":\([0-9]*\).*/system \1%, softirq \2%, throttled \3/p')" \
				"\"groups\":$size" "$out"
		done
	done
	rmdir "$dir"
fi
[ "$failed" -eq 0 ]
