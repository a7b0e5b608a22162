#!/bin/bash
# What the series costs (make bench-cost): bench/cost-suite.sh on our kernel
# and on mainline built with the same config, booted in rounds: ours,
# mainline, mainline again, the order reversed every other round (COST_REPS
# rounds, 5 by default). The second
# mainline boot runs what the first does: mainline against itself, its
# spread is the noise floor the ours/mainline ratios are read against. Every
# result, with the kernel, its image and the boot's host pressure, goes into
# docs/bench-raw/cost-DATE.jsonl, and docs/benchmarks-cost.md and .png are
# computed from that file alone (bench/cost.py --from).
#
# Usage: bench/run-cost.sh OUR_KERNEL MAINLINE_KERNEL GUEST_CONFIG INITRAMFS OUTDIR
# Environment: COST_REPS (rounds, default 5; fewer is a trial: its page stays
# in OUTDIR), BENCH_QUIET_WAIT (bench/runner-lib.sh), BENCH_DOCS (docs/),
# and the suite's COST_* settings, passed to the guests.
#
# A boot whose path windows the emulator disturbed (bench/cost.py's rule:
# too few windows whose CPU rate alone agreed before and after) is booted
# again, at most twice, with the reason printed and kept in the raw file;
# its figures are not counted; so is a boot whose CPU ran alone below 90 %
# of the fastest counted boot's rate (cost.py's SPEED_MIN). A third
# disturbed boot counts, marked kept, and the page says so. Each kernel is described by the .config it
# was built with (OUR_KERNEL.config, scripts/kernel-build.sh), and the
# release and build the guest reports must be the bzImage's own.
#
# Time, on this 2-core host under single-threaded TCG, a boot costs about
# 12 s beyond its runs: the paths 3 x 13 windows of 1.1 s, 43 s; the
# configuration operations 3 s; the fleet 3 sizes x (setup, 2 s to start,
# 2 s warm-up, 6 s), about 12 s each, per burst (ours runs two). A round:
# ours 12 + 46 + 72, mainline 12 + 46 + 36 twice = 318 s; 5 rounds about
# 27 min.
set -euo pipefail

ours=$1 mainline=$2 guest_config=$3 initramfs=$4 out=$5
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
report=$top/bench/report.py
cost=$top/bench/cost.py
reps=${COST_REPS:-5}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-cost: COST_REPS=$reps is not a count of rounds" >&2; exit 2; }
. "$top/bench/runner-lib.sh"
ours_pattern=$initramfs

boots=(ours mainline mainline-aa)
declare -A image=([ours]=$ours [mainline]=$mainline [mainline-aa]=$mainline)
declare -A expect=([ours]=patched [mainline]=stock [mainline-aa]=stock)
declare -A est=([ours]=130 [mainline]=94 [mainline-aa]=94)
declare -A kconfig release sha
identify_kernels bench-cost ours mainline
kconfig[mainline-aa]=${kconfig[mainline]} release[mainline-aa]=${release[mainline]} sha[mainline-aa]=${sha[mainline]}
settings=""
for v in COST_PATH_PAIRS COST_PATH_WINDOW_MS COST_CONFIG_OPS COST_FLEET_SIZES COST_FLEET_S; do
	[[ -z ${!v:-} ]] || settings+=" $v=${!v// /,}"
done
. "$top/scripts/lib/kconfig-base.sh"
guest_cfg=$(kconfig_describe "$top" "$guest_config")

fresh_raw cost
record() { python3 "$report" --append "$raw" "$@"; }
left_s=$(( reps * (est[ours] + est[mainline] + est[mainline-aa]) ))
# One vCPU: under single-threaded TCG vCPUs take turns on one host thread,
# and the paths' meter (bench/costbench.c) must have its CPU's turns alone.
bench_fields "TCG (single-threaded), 1 vCPU, 512 MiB, the initramfs guest (bare cgroups)"
record --str type=bench --num format=1 --str generator="make bench-cost" "${bench_fields[@]}" \
	--num repetitions="$reps" --str settings="${settings# }"

echo "bench-cost: $reps rounds of ${boots[*]}: $(( reps * ${#boots[@]} )) boots, about $(( (left_s + 30) / 60 )) min on a quiet host"
start=$(date +%s) boots_ms=0 nboot=0 best_rate=""
for rep in $(seq 1 "$reps"); do
	# The boot order alternates across rounds: the A/A boot is not always last.
	order=("${boots[@]}")
	((rep % 2)) || mapfile -t order < <(printf '%s\n' "${boots[@]}" | tac)
	for k in "${order[@]}"; do
		nboot=$((nboot + 1))
		for try in 1 2 3; do
			wait_quiet
			echo "bench-cost: boot $nboot of $(( reps * ${#boots[@]} )): $k, round $rep of $reps$( ((try == 1)) || echo ", boot $try"); $(( ($(date +%s) - start) / 60 )) min in, about $(( (left_s + 30) / 60 )) min to go"
			name=cost-$rep-$k-$try
			watch_others "$out/others-$name" &
			watcher=$!
			t0=$(date +%s%N) w0=$(cpu_wait_us)
			rc=0
			RESULTS_DIR=$out EXTRA_APPEND="BENCH_KERNEL=$k$settings" \
				"$top/tests/qemu/run-guest.sh" "$name" "${image[$k]}" "$initramfs" \
				cost-suite "${expect[$k]}" 900 1 || rc=$?
			w1=$(cpu_wait_us) t1=$(date +%s%N)
			kill "$watcher"
			wait "$watcher" 2>/dev/null || true
			boots_ms=$(( boots_ms + (t1 - t0) / 1000000 ))
			host=(--num rep="$rep" --str kernel="$k"
				--num host_cpu_pressure_pct=$(( (w1 - w0) * 100 / ((t1 - t0) / 1000) ))
				--num other_guests="$(cat "$out/others-$name")")
			boot=(--str type=boot "${host[@]}" --num seconds=$(( (t1 - t0) / 1000000000 )) --num rc="$rc")
			if ((rc != 0)); then
				record "${boot[@]}"
				echo "bench-cost: the $k boot of round $rep failed (rc=$rc); the results so far are in $raw; no page written" >&2
				exit "$rc"
			fi
			kernel_matches "$out/$name.log.txt" "${release[$k]}"
			why=$(python3 "$cost" --disturbed "$out/$name.log.txt" ${best_rate:+--best-rate "$best_rate"}) || exit 1
			if [[ -n $why ]]; then
				if ((try < 3)); then
					echo "bench-cost: the $k boot of round $rep was disturbed: $why; booting it again"
					record "${boot[@]}" --str disturbed="$why"
					continue
				fi
				echo "bench-cost: the $k boot of round $rep was disturbed at its third boot too: $why; counting it, and the page says so"
				boot+=(--str disturbed="$why" --num kept=1)
			fi
			record "${boot[@]}"
			rate=$(python3 "$cost" --rate "$out/$name.log.txt")
			best_rate=$(python3 -c 'import sys; print(max(float(v) for v in sys.argv[1:] if v))' "$rate" "${best_rate:-}")
			record "${host[@]}" --str image="$(basename "${image[$k]}")" \
				--str image_sha256="${sha[$k]}" \
				--str config="$guest_cfg" --str config_sha256="${kconfig[$k]}" "$out/$name.log.txt"
			break
		done
		left_s=$(( left_s > est[$k] ? left_s - est[$k] : 0 ))
	done
done
record_end

render() { python3 "$cost" --from "$1" --md "$2" --png "$3"; }
if ((reps < 5)); then
	render "$raw" "$out/benchmarks-cost.md" "$out/benchmarks-cost.png"
	echo "bench-cost: a trial (fewer than 5 rounds): $raw and $out/benchmarks-cost.md, docs/ untouched"
else
	mkdir -p "$docs/bench-raw"
	cp "$raw" "$docs/bench-raw/"
	render "$docs/bench-raw/$(basename "$raw")" "$docs/benchmarks-cost.md" "$docs/benchmarks-cost.png"
	echo "bench-cost: raw data in $docs/bench-raw/$(basename "$raw") (commit it with the page)"
fi
echo "bench-cost: $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
