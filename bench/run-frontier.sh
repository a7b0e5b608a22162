#!/bin/bash
# The frontier (make bench-frontier): where a burst above quota wins, ties or
# loses against the best a kernel without the series can be set to, at the
# same long-run share. bench/frontier-suite.sh runs in the initramfs guest
# on our kernel (recordings, burstctl advise's burst, and the capped control
# at 100 ms) and on mainline built with the same config (every period of the
# sweep with burst = quota, and the pod at 100 ms), in rounds (under -icount
# the order of the boots cannot matter: none of them sees the host). Every
# result goes into docs/bench-raw/frontier-DATE.jsonl,
# and docs/benchmarks-frontier.md and .png are computed from that file
# alone (bench/frontier.py --from).
#
# The guests run under QEMU's -icount (shift FRONTIER_SHIFT, sleep=off) on
# one vCPU: guest time follows the instructions the guest executes, so the
# host's load cannot move a figure and two boots run side by side, one per
# host CPU; idle guest time is skipped. What this cannot show is said on the
# page (docs/benchmarks-frontier.md, "Limits").
#
# Usage: bench/run-frontier.sh OUR_KERNEL MAINLINE_KERNEL GUEST_CONFIG INITRAMFS OUTDIR
# Environment: FRONTIER_REPS (rounds, default 2; each round its own seed of
# the heavy-tailed sizes and its own phases), FRONTIER_REQUESTS (per run,
# default 400),
# FRONTIER_LOADS (a trial: these loads only), FRONTIER_SHIFT (default 2:
# 4 ns of guest time per instruction), BENCH_DOCS (default docs/). A trial
# (FRONTIER_LOADS, or fewer than 2 rounds) leaves docs/ untouched.
set -euo pipefail

(($# == 5)) || { echo "usage: bench/run-frontier.sh OUR MAINLINE GUEST_CONFIG INITRAMFS OUTDIR" >&2; exit 2; }
ours=$1 mainline=$2 guest_config=$3 initramfs=$4 out=$(realpath -m "$5")
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
frontier=$top/bench/frontier.py
reps=${FRONTIER_REPS:-2}
requests=${FRONTIER_REQUESTS:-400}
shift_=${FRONTIER_SHIFT:-2}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-frontier: FRONTIER_REPS=$reps is not a count of rounds" >&2; exit 2; }
[[ $requests =~ ^[1-9][0-9]*$ ]] || { echo "bench-frontier: FRONTIER_REQUESTS=$requests is not a count" >&2; exit 2; }
[[ $shift_ =~ ^[0-9]$ ]] || { echo "bench-frontier: FRONTIER_SHIFT=$shift_ is not a shift from 0 to 9" >&2; exit 2; }
trial=0
[[ -z ${FRONTIER_LOADS:-} ]] && ((reps >= 2)) || trial=1

# name | kernel | expect | the suite's part. Two at a time, in this order:
# the first holds 45 runs, ours and the second 30 + 18, the pod's 3 runs
# go last: the two host CPUs finish together.
BOOTS="
mainline-x mainline stock   mainline-10,20,50,100,200
ours       ours     patched ours
mainline-y mainline stock   mainline-500,1000
mainline-p mainline stock   pod-mainline
"
declare -A image=([ours]=$ours [mainline]=$mainline)
declare -A release sha kconfig
. "$top/bench/runner-lib.sh"
identify_kernels bench-frontier ours mainline
. "$top/scripts/lib/kconfig-base.sh"
guest_cfg=$(kconfig_describe "$top" "$guest_config")

fresh_raw frontier
icount="shift=$shift_,align=off,sleep=off"
python3 "$frontier" --header "$raw" date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	commit="$(git -C "$top" describe --always --dirty 2>/dev/null || echo 'no git')" \
	host_cpus="$(nproc)" host_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
	guest="$(qemu-system-x86_64 --version | head -1 | sed 's/ (.*//'), TCG (single-threaded), -icount $icount, 1 vCPU, 512 MiB, the initramfs guest (bare cgroups)" \
	config="$guest_cfg" ours_release="${release[ours]}" mainline_release="${release[mainline]}" \
	ours_sha256="${sha[ours]}" mainline_sha256="${sha[mainline]}" \
	ours_config_sha256="${kconfig[ours]}" mainline_config_sha256="${kconfig[mainline]}" \
	reps="$reps" requests="$requests" loads="${FRONTIER_LOADS:-}"

# boot REP NAME KERNEL EXPECT PART: one guest; its results appended to the raw file.
boot() {
	local rep=$1 name=$2 k=$3 expect=$4 part=$5 log t0 rc=0
	log=frontier-$rep-$name
	t0=$(date +%s)
	RESULTS_DIR=$out EXTRA_QEMU="-icount $icount" \
		EXTRA_APPEND="FRONTIER_PART=$part FRONTIER_SEED=$rep FRONTIER_REQUESTS=$requests${FRONTIER_LOADS:+ FRONTIER_LOADS=$FRONTIER_LOADS}" \
		"$top/tests/qemu/run-guest.sh" "$log" "${image[$k]}" "$initramfs" frontier-suite "$expect" 14400 1 \
		>"$out/$log.runner" 2>&1 || rc=$?
	echo "bench-frontier: round $rep, $name ($part) on $k: rc $rc, $(( $(date +%s) - t0 )) s"
	return "$rc"
}

start=$(date +%s)
echo "bench-frontier: $reps rounds of $(grep -c . <<<"$BOOTS") boots, two at a time (-icount: the host's load does not reach the figures)"
for rep in $(seq 1 "$reps"); do
	order=$(grep . <<<"$BOOTS")
	pids=()
	while read -r name k expect part; do
		# Two at a time: wait for a slot.
		while (($(jobs -rp | wc -l) >= $(nproc))); do
			wait -n || true
		done
		boot "$rep" "$name" "$k" "$expect" "$part" &
		pids+=($!)
	done <<<"$order"
	failed=0
	for p in "${pids[@]}"; do
		wait "$p" || failed=1
	done
	while read -r name k expect part; do
		log=$out/frontier-$rep-$name.log.txt
		[[ -r $log ]] || { echo "bench-frontier: no log of round $rep's $name" >&2; exit 1; }
		python3 "$frontier" --collect "$raw" "$log" rep="$rep" boot="$name" kernel="$k" \
			release="${release[$k]}"
	done <<<"$order"
	((failed == 0)) || { echo "bench-frontier: a boot of round $rep failed; its log is in $out; no page written" >&2; exit 1; }
done
elapsed=$(( $(date +%s) - start ))
python3 "$frontier" --footer "$raw" elapsed_s="$elapsed"

render() { python3 "$frontier" --from "$1" --md "$2" --png "$3" ${BURSTCTL:+--burstctl "$BURSTCTL"}; }
if ((trial)); then
	render "$raw" "$out/benchmarks-frontier.md" "$out/benchmarks-frontier.png"
	echo "bench-frontier: a trial: $raw and $out/benchmarks-frontier.md, docs/ untouched"
else
	mkdir -p "$docs/bench-raw"
	cp "$raw" "$docs/bench-raw/"
	render "$docs/bench-raw/$(basename "$raw")" "$docs/benchmarks-frontier.md" "$docs/benchmarks-frontier.png"
	echo "bench-frontier: raw data in $docs/bench-raw/$(basename "$raw") (commit it with the page)"
fi
echo "bench-frontier: ${elapsed}s in all; logs in $out"
