#!/bin/sh
# The benchmark's runs, one after another in one boot: make a cgroup with a
# limit, run burstbench in it, print its JSON as one "BENCH-JSON {...}" line
# (what bench/report.sh reads) and one TAP line saying the run produced
# figures. Targets are not judged here; the report states them.
#
# POSIX sh: runs as /tests/bench-suite in the busybox initramfs (make
# bench-kernel) and unchanged in the e2e image (make bench, through
# bench/image-bench.sh), where BENCH_BACKEND=podman runs each case in a
# container instead (see below).
#
# Environment:
#   BURSTCFS_EXPECT  patched|stock: which kernel this is (set by the guest's /init)
#   BENCH_RUNTIME    measured seconds per run (default 15)
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
S1="--threads 2 --cputime 50000 --rate 9.9"
S2="--threads 2 --cputime 15000 --rate 9.5238"

# name | kernels | scenario | quota (us or max) | period | burst | burst_enabled | workload
RUNS="
s1-nolimit   patched,stock 1 max   100000 0     - S1
s1-quota     patched,stock 1 70000 100000 0     - S1
s1-burst     patched,stock 1 70000 100000 40000 - S1
s2-nolimit   patched,stock 2 max   50000  0     - S2
s2-capped    stock         2 10000 50000  10000 - S2
s2-burst     patched       2 10000 50000  30000 - S2
s3-burst-off patched       3 10000 50000  30000 0 S2
"

selected() {
	case ",$2," in *",$kernel,"*) ;; *) return 1 ;; esac
	[ -z "${BENCH_ONLY:-}" ] && return 0
	case " $(echo "$BENCH_ONLY" | tr , ' ') " in *" $1 "*) return 0 ;; esac
	return 1
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
		"$bb" --json --runtime "$runtime" --warmup "$warmup" $5 || rc=$?
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
	timeout -k 10 $((${runtime%.*} + ${warmup%.*} + 120)) \
		podman run --rm --network none --name "bench-$1" $limit --rootfs "$rootfs:O" \
		"$bb" --json --runtime "$runtime" --warmup "$warmup" $5
}

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

total=0
while read -r name kernels scenario quota period burst enabled load; do
	[ -n "$name" ] && selected "$name" "$kernels" && total=$((total + 1))
done <<EOF
$RUNS
EOF
echo "1..$total"
echo "# bench: kernel $(uname -r) ($kernel), $(nproc) CPUs, $backend backend, ${runtime} s + ${warmup} s warm-up per run"

# field KEY JSON: a number from burstbench's JSON.
field() { echo "$2" | sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

n=0 failed=0
while read -r name kernels scenario quota period burst enabled load; do
	if [ -z "$name" ] || ! selected "$name" "$kernels"; then
		continue
	fi
	n=$((n + 1))
	case $load in
	S1) args=$S1 ;;
	S2) args=$S2 ;;
	esac
	[ "$quota" = max ] && q=null || q=$quota
	try=1
	while :; do
		[ "$enabled" = - ] || echo "$enabled" >"$sysctl"
		state=$(cat "$sysctl" 2>/dev/null || echo null)
		out=$("run_$backend" "$name" "$quota" "$period" "$burst" "$args" </dev/null) || out=""
		[ "$enabled" = - ] || echo 1 >"$sysctl"
		case $out in "{"*"}") ;; *) break ;; esac
		over=$(field request_overrun_max_us "$out")
		line="{\"run\":\"$name\",\"scenario\":$scenario,\"kernel\":\"$kernel\",\"release\":\"$(uname -r)\",\"cpus\":$(nproc),\"quota_us\":$q,\"period_us\":$period,\"burst_us\":$burst,\"burst_enabled\":$state,\"load\":\"$load\",\"attempt\":$try,\"result\":$out}"
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
		echo "ok $n - $name: $(field requests "$out") requests, p99 $(field p99 "$out") us (try $try)"
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
