#!/bin/sh
# The frontier's runs in one boot (make bench-frontier): each load at each
# long-run share, under the settings this boot was given, one burstbench
# run each, printed as "FRONTIER-JSON {...}" (bench/frontier.py reads them)
# with one TAP line per run. Targets are not judged here.
#
# POSIX sh, as /tests/frontier-suite in the busybox initramfs, booted on one
# vCPU under QEMU's -icount (bench/run-frontier.sh): guest time follows the
# instructions executed, so every figure is the same whatever the host does.
#
# Usage: frontier-suite.sh          run this boot's part
#        frontier-suite.sh --plan   print "PLAN LOAD SHARE SETTING QUOTA PERIOD BURST"
#                                   per run (bursts "advise" for ours) and exit
#
# Environment (from the kernel command line):
#   BURSTCFS_EXPECT  patched|stock (the guest's /init)
#   FRONTIER_PART    ours: record each load without a limit, ask burstctl
#                    advise for the burst at each share at 100 ms, run with
#                    it, and run burst = quota at 100 ms (the control);
#                    mainline-P,P...: mainline's settings at these periods
#                    (ms), burst = quota; pod-mainline: the pod load at
#                    100 ms with burst = quota at both levels
#   FRONTIER_LOADS   which loads (default all that the part has)
#   FRONTIER_REQUESTS  measured requests per run (default 400)
#   FRONTIER_SEED    the seed of the heavy-tailed sizes in the runs; the
#                    recording uses another (default 1; the recording 1000 + it)
set -eu

kernel=${BURSTCFS_EXPECT:-patched}
part=${FRONTIER_PART:-ours}
requests=${FRONTIER_REQUESTS:-400}
seed=${FRONTIER_SEED:-1}
warmup=2
bin=$(dirname "$0")
bb=$bin/burstbench
bc=$bin/burstctl
cgroot=/sys/fs/cgroup

# The loads, on one vCPU (docs/benchmarks-frontier.md says why each):
# name | threads | batch | requests per second | burstbench's size options | shares (%)
#  schbench   the seed's shape: 30 ms of CPU every 210 ms (0.143 CPU)
#  heavytail  a request every 100 ms, Pareto sizes of shape 1.5, mean 10 ms,
#             at most 1 s (0.096 CPU): some exceed every pool a share allows
#  rare       2 ms every 50 ms and, every 100th request (5 s), 400 ms: a GC
#             pause or a JVM's start (0.12 CPU); two workers, so the small
#             requests share the CPU with a large one instead of queueing
#  pod        schbench in a container's cgroup under its pod's, both limited,
#             as the kubelet and crun lay out a one-container pod (ours gives
#             the pod the container's burst, crun's pod-level sum)
LOADS="
schbench  1 1 4.7619 -                              15,20,30
heavytail 1 1 10     tail                           12,15,20
rare      2 1 20     large                          15,20,30
pod       1 1 4.7619 -                              15,20,30
"

size_args() { # KIND SEED
	case $1 in
	tail) echo "--cputime 10000 --tail 1.5 --tail-max 1000000 --seed $2" ;;
	large) echo "--cputime 2000 --large 100:400000" ;;
	*) echo "--cputime 30000" ;;
	esac
}

wanted_load() {
	[ -z "${FRONTIER_LOADS:-}" ] && return 0
	case ",$FRONTIER_LOADS," in *",$1,"*) return 0 ;; esac
	return 1
}

# runtime_s RATE BATCH: the window holding $requests measured requests
# (m + 1/2 batch intervals hold m or m + 1 batches whatever the phase).
runtime_s() {
	awk -v n="$requests" -v r="$1" -v b="$2" \
		'BEGIN { m = int((n + b - 1) / b); printf "%.3f\n", (m + 0.5) * b / r }'
}

# The runs of this part: "LOAD SHARE SETTING QUOTA PERIOD BURST" lines,
# BURST "advise" where the recording decides it.
plan() {
	echo "$LOADS" | while read -r load _ _ _ _ shares; do
		[ -n "$load" ] && wanted_load "$load" || continue
		for share in $(echo "$shares" | tr , ' '); do
			q100=$((share * 1000))
			case $part in
			ours)
				echo "$load $share ours-advised $q100 100000 advise"
				echo "$load $share ours-capped $q100 100000 $q100"
				;;
			pod-mainline)
				[ "$load" = pod ] && echo "$load $share mainline-100 $q100 100000 $q100"
				;;
			mainline-*)
				[ "$load" = pod ] && continue
				for p in $(echo "${part#mainline-}" | tr , ' '); do
					q=$((share * p * 10))
					echo "$load $share mainline-$p $q $((p * 1000)) $q"
				done
				;;
			esac
		done
	done
}

if [ "${1:-}" = --plan ]; then
	plan | sed 's/^/PLAN /'
	exit 0
fi

[ -x "$bb" ] || { echo "Bail out! no burstbench at $bb"; exit 1; }
grep -qw cpu "$cgroot/cgroup.controllers" || { echo "Bail out! no cpu controller"; exit 1; }
echo +cpu >"$cgroot/cgroup.subtree_control"
sysctl=/proc/sys/kernel/sched_cfs_bw_burst_enabled
if [ "$kernel" = patched ] && [ ! -e "$sysctl" ]; then
	echo "Bail out! booted as ours, but this kernel has no $sysctl"
	exit 1
elif [ "$kernel" != patched ] && [ -e "$sysctl" ]; then
	echo "Bail out! booted as mainline, but this kernel has $sysctl"
	exit 1
fi

load_line() { echo "$LOADS" | awk -v l="$1" '$1 == l'; }

# bb_args LOAD SEED: burstbench's options for LOAD, measuring $requests.
bb_args() {
	set -- $(load_line "$1") "$2"
	echo "--threads $2 --batch $3 --rate $4 $(size_args "$5" "$7") --runtime $(runtime_s "$4" "$3") --warmup $warmup"
}

# limit DIR QUOTA PERIOD BURST: the burst first to 0, so that a capped
# kernel takes a smaller quota; then the limit, then the burst.
limit() {
	echo 0 >"$1/cpu.max.burst"
	echo "$2 $3" >"$1/cpu.max"
	echo "$4" >"$1/cpu.max.burst"
}

# The advised burst of LOAD at SHARE, from ours' recording of it.
advised() { sed -n "s/^$1 $2 \([0-9]*\)$/\1/p" /tmp/advised; }

# record LOAD: run it without a limit under burstctl record, then ask
# advise for each share at 100 ms. The recording's sizes come from another
# seed: yesterday's traffic, not the run's. record ends when the group goes.
# advise starts the pool full (--start full): the runs measure after a
# warm-up under the limit, a service already running, not its first burst.
record() {
	load=$1
	shares=$(load_line "$load" | awk '{ print $6 }')
	dir=$cgroot/rec-$load
	mkdir "$dir"
	"$bc" record "$dir" --duration 3600s --interval 10ms -o "/tmp/rec-$load.csv" 2>/tmp/rec.err &
	rec=$!
	# shellcheck disable=SC2046 # a list of options
	sh -c 'echo 0 >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" \
		"$bb" --json $(bb_args "$load" $((1000 + seed))) >/tmp/rec.json || true
	rmdir "$dir"
	wait "$rec" || true
	echo "FRONTIER-TRACE $load: $(grep -vc '^#' "/tmp/rec-$load.csv") rows; $(tail -1 /tmp/rec.err)"
	for share in $(echo "$shares" | tr , ' '); do
		out=$("$bc" advise "/tmp/rec-$load.csv" --quota $((share * 1000)) --period 100000 --start full --json 2>/dev/null) || true
		b=$(echo "$out" | sed -n 's/.*"burst_us":\([0-9]*\),"quota_without_burst_us".*/\1/p')
		# No burst meets the goal: the most advise's table tries, four quotas.
		[ -n "$b" ] || b=$((4 * share * 1000))
		echo "$load $share $b" >>/tmp/advised
		echo "FRONTIER-ADVISE {\"load\":\"$load\",\"share_pct\":$share,\"burst_us\":$b,\"advice\":${out:-null}}"
		"$bc" advise "/tmp/rec-$load.csv" --quota $((share * 1000)) --period 100000 --start full 2>&1 |
			sed "s/^/# advise $load $share%: /"
	done
}

# run LOAD SHARE SETTING QUOTA PERIOD BURST
run() {
	dir=$cgroot/f-$1
	mkdir "$dir"
	target=$dir
	limit "$dir" "$4" "$5" "$6"
	if [ "$1" = pod ]; then
		# The pod level carries the quota the kubelet gives it and, on
		# ours, the sum of its one container's burst (crun's pod level).
		echo +cpu >"$dir/cgroup.subtree_control"
		target=$dir/c
		mkdir "$target"
		limit "$target" "$4" "$5" "$6"
	fi
	# Under -icount a boot repeats itself to the instruction: a start at a
	# phase of the period that depends on the seed and the run makes each
	# round a new sample, not a copy of the last.
	sleep "0.$(printf %03d $(((seed * 7919 + n * 104729) % 1000)))"
	# shellcheck disable=SC2046
	out=$(sh -c 'echo 0 >"$1/cgroup.procs" && shift && exec "$@"' sh "$target" \
		"$bb" --json --latencies $(bb_args "$1" "$seed")) || out=""
	pod_stat=null
	if [ "$1" = pod ]; then
		pod_stat="\"$(grep -E '^(nr_periods|nr_throttled|throttled_usec) ' "$dir/cpu.stat" | tr '\n' ' ')\""
		rmdir "$target"
	fi
	rmdir "$dir"
	case $out in "{"*"}") ;; *) return 1 ;; esac
	echo "FRONTIER-JSON {\"load\":\"$1\",\"share_pct\":$2,\"setting\":\"$3\",\"kernel\":\"$part\",\"release\":\"$(uname -r)\",\"quota_us\":$4,\"period_us\":$5,\"burst_us\":$6,\"pod_cpu_stat\":$pod_stat,\"seed\":$seed,\"result\":$out}"
}

plan >/tmp/plan
total=$(wc -l </tmp/plan)
echo "1..$total"
echo "# frontier: kernel $(uname -r), part $part, $(nproc) CPU, $requests requests per run, seed $seed"
: >/tmp/advised
if grep -q ' advise$' /tmp/plan; then
	# The pod's container runs schbench: it takes schbench's advice.
	for load in $(awk '$6 == "advise" { print ($1 == "pod" ? "schbench" : $1) }' /tmp/plan | sort -u); do
		record "$load"
	done
fi
n=0 failed=0
while read -r load share setting quota period burst; do
	n=$((n + 1))
	if [ "$burst" = advise ]; then
		from=$load
		[ "$load" = pod ] && from=schbench
		burst=$(advised "$from" "$share")
	fi
	if [ -n "$burst" ] && run "$load" "$share" "$setting" "$quota" "$period" "$burst"; then
		echo "ok $n - $load at $share%: $setting ($quota/$period, burst $burst)"
	else
		echo "not ok $n - $load at $share%: $setting ($quota/$period, burst ${burst:-none}): no result"
		failed=$((failed + 1))
	fi
done </tmp/plan
[ "$failed" -eq 0 ]
