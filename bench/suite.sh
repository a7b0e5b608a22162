#!/bin/sh
# The benchmark's runs, one after another in one boot: make a cgroup with a
# limit, run burstbench in it, print its JSON as one "BENCH-JSON {...}" line
# (what bench/report.py reads) and one TAP line saying the run produced
# figures. Targets are not judged here; the report states them. A run with
# fewer requests than BENCH_MIN_REQUESTS is "not ok": the percentiles the
# report promises would rest on too few samples.
#
# POSIX sh: runs as /tests/bench-suite in the busybox initramfs (make
# bench-kernel) and unchanged in the e2e image (make bench, through
# bench/image-bench.sh), where BENCH_BACKEND=podman runs each case in a
# container instead (see below).
#
# Usage: suite.sh          run the cases for this kernel
#        suite.sh --plan   print "PLAN NAME SCENARIO MEASURED_S ARGS..." per
#                          case (ARGS: burstbench's) and exit, touching nothing
#                          (bench/run-latency.sh's time estimate and
#                          bench/test_report.py read it)
#
# Environment:
#   BURSTCFS_EXPECT  patched|stock: what the kernel supports (set by the guest's
#                    /init). A kernel without the series, mainline built with
#                    our config as much as Debian's, is stock: it refuses a
#                    burst above quota and has no sysctls, so it runs the
#                    stock cases
#   BENCH_KERNEL     which kernel this is, for the report: ours, mainline or
#                    stock (default ours when patched, stock when stock)
#   BENCH_MIN_REQUESTS  when set, each run measures the shortest window that
#                    holds this many requests at its workload's rate
#                    (BENCH_RUNTIME is then not used), and a run that
#                    completed fewer is "not ok"
#   BENCH_RUNTIME    measured seconds per run without BENCH_MIN_REQUESTS (default 15)
#   BENCH_WARMUP     warm-up seconds per run (default 2)
#   BENCH_ONLY       run names to run, separated by commas or spaces (default:
#                    all for this kernel); like BENCH_RUNTIME it can come from the
#                    guest's kernel command line (run-guest.sh's EXTRA_APPEND)
#   BENCH_BACKEND    cgroup (default): a child of BENCH_CGROOT (default /sys/fs/cgroup);
#                    podman: podman run --rootfs BENCH_ROOTFS (through an
#                    overlay) with --cpu-quota, --cpu-period and --cpu-burst
#   BENCH_ATTEMPTS   tries per run (default 2), see below
#   BENCH_STALL_US   a try is a host stall's when burstbench says a request
#                    was charged more than this beyond its CPU time (default 20000)
#   BURSTBENCH       the burstbench binary (default: next to this script;
#                    podman backend: its path inside BENCH_ROOTFS)
#
# Under TCG a vCPU the host deschedules is charged the stall as CPU time of
# the task it ran, and a 10 ms / 50 ms group that is charged 80 ms it never
# used is throttled for seconds. A try in which a request was charged more
# than BENCH_STALL_US beyond its CPU time is printed as "BENCH-DISCARD" and
# run again, up to BENCH_ATTEMPTS tries; the last try counts whatever it
# shows. The report lists the discarded tries. The criterion is the host's
# interference, never the latency measured.
set -eu

kernel=${BURSTCFS_EXPECT:-patched}
case $kernel in patched) label=ours ;; *) label=stock ;; esac
label=${BENCH_KERNEL:-$label}
min_requests=${BENCH_MIN_REQUESTS:-0}
runtime=${BENCH_RUNTIME:-15}
warmup=${BENCH_WARMUP:-2}
attempts=${BENCH_ATTEMPTS:-2}
stall_us=${BENCH_STALL_US:-20000}
backend=${BENCH_BACKEND:-cgroup}
cgroot=${BENCH_CGROOT:-/sys/fs/cgroup}
bb=${BURSTBENCH:-$(dirname "$0")/burstbench}
sysctl=/proc/sys/kernel/sched_cfs_bw_burst_enabled

# The workloads, scaled to 2 vCPUs (docs/benchmarks.md explains the shapes):
# batches of 2 requests, one per vCPU, so an unlimited group never queues.
# S1: 2 x 50 ms = 100 ms CPU every 202 ms: 0.495 CPU on average, 5/7 of a
#     70 ms / 100 ms quota; a batch needs 100 ms > quota, and quota + burst
#     (40 ms, the seed's 4/7 of quota) = 110 ms covers it.
# S2: 2 x 15 ms = 30 ms CPU every 210 ms: 5/7 of a 10 ms / 50 ms quota; a
#     batch needs 3 x quota.
# The rates follow from the shapes (the period sets the batch interval), so
# more requests per run cost measured time, never a higher rate.
# threads (= requests per batch) | CPU per request, us | requests per second
S1="2 50000 9.9"
S2="2 15000 9.5238"

# Kernels without the series run s2-capped only: the case where what they
# allow (burst = quota) meets what ours allows (burst 30 ms) on the same
# group. Scenario 1 (burst within quota) and the no-limit references use
# nothing the series adds, and at 500 requests a run costs about a minute
# under TCG: on ours alone they keep make bench-kernel's three rounds within
# half an hour (bench/run-latency.sh). Ours runs s2-capped too, the control
# that tells the burst setting from the kernel.
# s2-stretched is what a mainline user would pick instead for the same
# long-run share (0.2 CPU) and the same pool as ours' s2-burst (40 ms): the
# period doubled, 20 ms per 100 ms with burst = quota, all mainline allows.
# It runs on mainline (same config) alone: the comparator, not a new case.
# kernels: patched, stock (what the kernel supports) or a BENCH_KERNEL label.
# name | kernels | scenario | quota (us or max) | period | burst | burst_enabled | workload
RUNS="
s1-nolimit   patched       1 max   100000 0     - S1
s1-quota     patched       1 70000 100000 0     - S1
s1-burst     patched       1 70000 100000 40000 - S1
s2-nolimit   patched       2 max   50000  0     - S2
s2-capped    patched,stock 2 10000 50000  10000 - S2
s2-burst     patched       2 10000 50000  30000 - S2
s2-stretched mainline      2 20000 100000 20000 - S2
s3-burst-off patched       3 10000 50000  30000 0 S2
"

selected() {
	case ",$2," in *",$kernel,"* | *",$label,"*) ;; *) return 1 ;; esac
	[ -z "${BENCH_ONLY:-}" ] && return 0
	case " $(echo "$BENCH_ONLY" | tr , ' ') " in *" $1 "*) return 0 ;; esac
	return 1
}

# measure_s THREADS RATE: the measured seconds of a run of this workload.
# burstbench measures the batches due in [warm-up, warm-up + run time); a
# window of m + 1/2 batch intervals holds m or m + 1 of them whatever the
# phase of the warm-up, so m = ceil(min / batch) always reaches the floor.
measure_s() {
	if [ "$min_requests" -gt 0 ]; then
		awk -v n="$min_requests" -v b="$1" -v r="$2" \
			'BEGIN { m = int((n + b - 1) / b); printf "%.3f\n", (m + 0.5) * b / r }'
	else
		echo "$runtime"
	fi
}

# workload S1|S2: sets rt (measured seconds) and args (burstbench's).
workload() {
	# shellcheck disable=SC2086 # the workload is a list of words
	case $1 in
	S1) set -- $S1 ;;
	S2) set -- $S2 ;;
	esac
	rt=$(measure_s "$1" "$3")
	args="--threads $1 --cputime $2 --rate $3 --runtime $rt --warmup $warmup"
}

# run_cgroup NAME QUOTA PERIOD BURST ARGS: burstbench in a fresh child cgroup,
# reporting its own cgroup (the default), as it would inside a container.
run_cgroup() {
	dir=$cgroot/bench-$1
	rmdir "$dir" 2>/dev/null || true
	mkdir "$dir"
	echo "$2 $3" >"$dir/cpu.max"
	echo "$4" >"$dir/cpu.max.burst"
	rc=0
	# shellcheck disable=SC2086 # ARGS is a list of words
	sh -c 'echo 0 >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" \
		"$bb" --json $5 || rc=$?
	rmdir "$dir"
	return $rc
}

# run_podman NAME QUOTA PERIOD BURST ARGS: the same in a podman container;
# burstbench reports the container's cgroup (its own, via the cgroup
# namespace). The overlay (:O) keeps runs from writing into the rootfs.
run_podman() {
	limit=""
	[ "$2" = max ] || limit="--cpu-quota $2 --cpu-period $3 --cpu-burst $4"
	# shellcheck disable=SC2086
	timeout -k 10 $((${rt%.*} + ${warmup%.*} + 120)) \
		podman run --rm --network none --name "bench-$1" $limit --rootfs "$rootfs:O" \
		"$bb" --json $5
}

if [ "${1:-}" = --plan ]; then
	while read -r name kernels scenario quota period burst enabled load; do
		if [ -n "$name" ] && selected "$name" "$kernels"; then
			workload "$load"
			echo "PLAN $name $scenario $rt $args"
		fi
	done <<EOF
$RUNS
EOF
	exit 0
fi

if [ "$backend" = podman ]; then
	rootfs=${BENCH_ROOTFS:?BENCH_ROOTFS: a rootfs holding burstbench}
	[ -x "$rootfs$bb" ] || { echo "Bail out! no burstbench at $bb in $rootfs"; exit 1; }
else
	[ -x "$bb" ] || { echo "Bail out! no burstbench at $bb"; exit 1; }
fi
if [ "$backend" = cgroup ]; then
	grep -qw cpu "$cgroot/cgroup.controllers" ||
		{ echo "Bail out! no cpu controller in $cgroot"; exit 1; }
	echo +cpu >"$cgroot/cgroup.subtree_control"
fi
# A boot given the wrong bzImage (ours as mainline, or the other way round)
# would put one kernel's figures in another's column: the sysctl comes with
# the series and only with it.
if [ "$kernel" = patched ] && [ ! -e "$sysctl" ]; then
	echo "Bail out! $label was booted as a kernel with the series, but it has no $sysctl"
	exit 1
elif [ "$kernel" != patched ] && [ -e "$sysctl" ]; then
	echo "Bail out! $label was booted as a kernel without the series, but it has $sysctl"
	exit 1
fi

total=0
while read -r name kernels scenario quota period burst enabled load; do
	[ -n "$name" ] && selected "$name" "$kernels" && total=$((total + 1))
done <<EOF
$RUNS
EOF
echo "1..$total"
if [ "$min_requests" -gt 0 ]; then
	per_run="at least $min_requests requests after ${warmup} s warm-up per run"
else
	per_run="${runtime} s + ${warmup} s warm-up per run"
fi
echo "# bench: kernel $(uname -r) ($label, $kernel semantics), $(nproc) CPUs, $backend backend, $per_run"
# uname -v names the build (Debian's its package version); kept out of JSON's quoting.
# shellcheck disable=SC1003 # tr's '\\' is one backslash
version=$(uname -v | tr -d '"\\')

# field KEY JSON: a number from burstbench's JSON.
field() { echo "$2" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

n=0 failed=0
while read -r name kernels scenario quota period burst enabled load; do
	if [ -z "$name" ] || ! selected "$name" "$kernels"; then
		continue
	fi
	n=$((n + 1))
	workload "$load"
	[ "$quota" = max ] && q=null || q=$quota
	try=1
	while :; do
		[ "$enabled" = - ] || echo "$enabled" >"$sysctl"
		state=$(cat "$sysctl" 2>/dev/null || echo null)
		out=$("run_$backend" "$name" "$quota" "$period" "$burst" "$args" </dev/null) || out=""
		[ "$enabled" = - ] || echo 1 >"$sysctl"
		case $out in "{"*"}") ;; *) break ;; esac
		over=$(field request_overrun_max_us "$out")
		line="{\"run\":\"$name\",\"scenario\":$scenario,\"kernel\":\"$label\",\"expect\":\"$kernel\",\"release\":\"$(uname -r)\",\"version\":\"$version\",\"cpus\":$(nproc),\"quota_us\":$q,\"period_us\":$period,\"burst_us\":$burst,\"burst_enabled\":$state,\"load\":\"$load\",\"min_requests\":$min_requests,\"attempt\":$try,\"result\":$out}"
		if [ "${over:-0}" -le "$stall_us" ] || [ "$try" -ge "$attempts" ]; then
			echo "BENCH-JSON $line"
			break
		fi
		echo "BENCH-DISCARD $line"
		echo "# $name: try $try discarded: a request was charged $over us beyond its CPU time (host stall)"
		try=$((try + 1))
	done
	case $out in
	"{"*"}")
		got=$(field requests "$out")
		if [ "${got:-0}" -lt "$min_requests" ]; then
			failed=$((failed + 1))
			echo "not ok $n - $name: ${got:-no} requests, fewer than the $min_requests a run must have (try $try)"
		else
			echo "ok $n - $name: $got requests, p99 $(field p99 "$out") us (try $try)"
		fi
		;;
	*)
		failed=$((failed + 1))
		echo "not ok $n - $name: burstbench gave no result"
		;;
	esac
done <<EOF
$RUNS
EOF
[ "$failed" -eq 0 ]
