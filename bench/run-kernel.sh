#!/bin/bash
# The benchmark on the initramfs guest (make bench-kernel): our kernel, the
# same tree without the series built with the same config ("mainline", the
# comparator that differs from ours by the series alone) and Debian's
# packaged kernel, booted in rounds: ours, mainline, stock, ours, mainline,
# stock, ... (BENCH_REPS rounds, 3 by default), so a host that drifts over
# the half hour drifts under every kernel alike. Each boot runs every case
# for its kernel once (bench/suite.sh as /tests/bench-suite: bare cgroups,
# no podman, no systemd). Every run's JSON, with the kernel, its image and
# config, the repetition and the boot's host pressure, goes into one
# JSON-lines file, docs/bench-raw/kernel-DATE.jsonl, and
# docs/benchmarks-kernel.md and .png are computed from that file alone
# (bench/report.py --from), so anyone can compute them again from it.
# `make bench` runs the same cases under podman in the e2e image
# (bench/run-image.sh).
#
# Usage: bench/run-kernel.sh OUR_KERNEL MAINLINE_KERNEL STOCK_KERNEL GUEST_CONFIG INITRAMFS OUTDIR
#   GUEST_CONFIG  the fragment ours and mainline were built with, recorded
#                 with every run of theirs
# Environment: BENCH_REPS (rounds, default 3), BENCH_WARMUP (seconds per run,
# default 2), BENCH_ONLY (run names, comma-separated), BENCH_ATTEMPTS,
# BENCH_STALL_US (see bench/suite.sh), BENCH_QUIET_WAIT (seconds to wait,
# before each boot, for other QEMU guests on this host to finish; default
# 600), BENCH_DOCS (default docs/). A run with BENCH_ONLY or fewer than 3
# rounds is a trial: its raw file and page stay in OUTDIR, docs/ untouched.
#
# Timing under TCG is only meaningful when our guest has the host's CPUs to
# itself: before each boot this waits for other QEMU guests to finish, and
# a boot during which another guest ran is booted once more.
#
# Time, on this 2-core host under single-threaded TCG. The last run with
# the former settings (docs/benchmarks-kernel.md at ac2078a: 2 boots, 11
# runs of 15 s measured after 2 s warm-up) took 210 s, so a run costs its
# warm-up and window and little more, and a boot (210 - 11 x 17) / 2 =
# 11.5 s: booting, powering off, run-guest.sh's 15 s polling. A run now
# holds 500 requests (what p99 needs, bench/report.py): 250.5 batch
# intervals (bench/suite.sh's measure_s), 50.6 s at scenario 1's 9.9
# requests/s and 52.6 s at scenario 2's 9.52, each after 2 s warm-up:
#   ours      3 x 52.6 + 4 x 54.6 = 376 s   (s1-nolimit, -quota, -burst;
#                                            s2-nolimit, -capped, -burst, s3)
#   mainline  54.6 s; stock 54.6 s          (s2-capped)
#   a round   376 + 2 x 54.6 + 3 x 11.5 = 520 s
#   3 rounds  1560 s = 26 min on a quiet host, plus about 55 s for each try
#             run again after a host stall, and any wait for other guests.
# The script computes the same from the suite's plan and prints it, and
# the time left before each boot.
set -euo pipefail

ours=$1 mainline=$2 stock=$3 guest_config=$4 initramfs=$5 out=$6
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
report=$top/bench/report.py
reps=${BENCH_REPS:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-kernel: BENCH_REPS=$reps is not a count of rounds" >&2; exit 2; }
# The runs' floor is what the highest percentile the ratios use needs, by
# the report's own rule: the report and the runs cannot disagree on it.
# Exported for the suite's plan below; the guests get it on their command line.
BENCH_MIN_REQUESTS=$(python3 "$report" --min-samples p99)
export BENCH_MIN_REQUESTS
. "$top/bench/runner-lib.sh"
# Per boot, beyond its runs (see the time estimate above).
boot_s=12

kernels=(ours mainline stock)
declare -A image=([ours]=$ours [mainline]=$mainline [stock]=$stock)
# What each kernel supports: mainline lacks the series as Debian's does.
declare -A expect=([ours]=patched [mainline]=stock [stock]=stock)
for k in "${kernels[@]}"; do
	[[ -r ${image[$k]} ]] || { echo "bench-kernel: no $k kernel at ${image[$k]}" >&2; exit 1; }
done
source_version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '?')
. "$top/scripts/lib/kconfig-base.sh"
guest_cfg=$(kconfig_describe "$top" "$guest_config")
declare -A config=([ours]=$guest_cfg [mainline]=$guest_cfg
	[stock]="Debian's own, packaged with it (config-RELEASE in its linux-image package)")
declare -A tree=([ours]="linux-source-6.1 $source_version + kernel/series ($(grep -c '^0' "$top/kernel/series" || true) patches)"
	[mainline]="linux-source-6.1 $source_version, without the series"
	[stock]="Debian's linux-image package of the same version")
declare -A sha
for k in "${kernels[@]}"; do sha[$k]=$(sha256sum "${image[$k]}" | cut -d' ' -f1); done

# One boot's estimate and time limit, from the suite's own plan for that
# kernel: every run's window plus its warm-up, and the boot; the limit
# allows every try, 10 s of set-up each, and 180 s to boot.
declare -A est timeout_s
runs_total=0
for k in "${kernels[@]}"; do
	plan=$(BURSTCFS_EXPECT=${expect[$k]} BENCH_WARMUP=$warmup sh "$top/bench/suite.sh" --plan)
	read -r "est[$k]" "timeout_s[$k]" n < <(awk -v w="$warmup" -v boot="$boot_s" -v tries="$attempts" '
		{ s += $4 + w; t += tries * ($4 + w + 10); n++ }
		END { printf "%d %d %d\n", s + boot + 0.5, t + 180, n }' <<<"$plan")
	((n > 0)) || { echo "bench-kernel: no case runs on $k (BENCH_ONLY=${BENCH_ONLY:-})" >&2; exit 2; }
	runs_total=$((runs_total + n))
done
left_s=$(( reps * (est[ours] + est[mainline] + est[stock]) ))

# Guests this run boots have $initramfs on their command line.
ours_pattern=$initramfs

rm -rf "$out"
mkdir -p "$out"
stamp=$(date -u +%Y-%m-%d-%H%M)
raw=$out/kernel-$stamp.jsonl
record() { python3 "$report" --append "$raw" "$@"; }
bench_fields
record --str type=bench --num format=1 --str generator="make bench-kernel" "${bench_fields[@]}" \
	--num repetitions="$reps" --str kernels="$(IFS=,; echo "${kernels[*]}")" \
	--num min_requests="$BENCH_MIN_REQUESTS" --num warmup_s="$warmup" --num attempts="$attempts" \
	--num stall_us="${BENCH_STALL_US:-20000}" --str only="${BENCH_ONLY:-}" --num estimate_s="$left_s"

nboots=$(( reps * ${#kernels[@]} ))
echo "bench-kernel: $reps rounds of ${kernels[*]}: $nboots boots, $(( reps * runs_total )) runs of at least $BENCH_MIN_REQUESTS requests; about $(( (left_s + 30) / 60 )) min on a quiet host"
start=$(date +%s) boots_ms=0 nboot=0
for rep in $(seq 1 "$reps"); do
	for k in "${kernels[@]}"; do
		nboot=$((nboot + 1))
		for try in 1 2; do
			wait_quiet
			echo "bench-kernel: boot $nboot of $nboots: $k, repetition $rep of $reps$( ((try == 1)) || echo ', booted again'); $(( ($(date +%s) - start) / 60 )) min in, about $(( (left_s + 30) / 60 )) min to go"
			name=bench-$rep-$k
			watch_others "$out/others-$name" &
			watcher=$!
			load=$(cut -d' ' -f1-3 /proc/loadavg)
			t0=$(date +%s%N) w0=$(cpu_wait_us)
			rc=0
			RESULTS_DIR=$out EXTRA_APPEND="$append BENCH_KERNEL=$k" \
				"$top/tests/qemu/run-guest.sh" "$name" "${image[$k]}" "$initramfs" \
				bench-suite "${expect[$k]}" "${timeout_s[$k]}" || rc=$?
			w1=$(cpu_wait_us) t1=$(date +%s%N)
			kill "$watcher"
			wait "$watcher" 2>/dev/null || true
			boots_ms=$(( boots_ms + (t1 - t0) / 1000000 ))
			seen=$(cat "$out/others-$name")
			counted=1 uncounted=()
			if ((rc == 0 && seen > 0 && try == 1)); then
				counted=0 uncounted=(--uncounted "another QEMU guest ran alongside; booted again")
			fi
			host=(--num rep="$rep" --str kernel="$k" --num boot_try="$try"
				--num host_cpu_pressure_pct=$(( (w1 - w0) * 100 / ((t1 - t0) / 1000) ))
				--num other_guests="$seen" --str loadavg_at_boot="$load")
			record --str type=boot "${host[@]}" --num counted="$counted" \
				--num seconds=$(( (t1 - t0) / 1000000000 )) --num rc="$rc"
			# A failed boot's runs are kept too: they are the evidence.
			if grep -qs '^BENCH-' "$out/$name.log.txt"; then
				record "${host[@]}" --str image="$(basename "${image[$k]}")" \
					--str image_sha256="${sha[$k]}" --str tree="${tree[$k]}" \
					--str config="${config[$k]}" "${uncounted[@]}" "$out/$name.log.txt"
			fi
			if ((rc != 0)); then
				echo "bench-kernel: the $k boot of repetition $rep failed (rc=$rc); the runs so far are in $raw; no page written" >&2
				exit "$rc"
			fi
			((counted == 0)) || break
			echo "bench-kernel: $seen other QEMU guest(s) ran during the $k boot; booting it again"
		done
		left_s=$(( left_s > est[$k] ? left_s - est[$k] : 0 ))
	done
done
elapsed=$(( $(date +%s) - start ))
record --str type=end --str loadavg_after="$(cut -d' ' -f1-3 /proc/loadavg)" \
	--num boots_s=$(( boots_ms / 1000 )) --num elapsed_s="$elapsed"

# The report checks the file (floor, every repetition, its end) before
# anything reaches docs/: a file it refuses stays in OUTDIR.
render() {
	python3 "$report" --from "$1" --template "$top/bench/benchmarks.md.in" \
		--setup "$top/bench/setup-kernel.md" --generator "make bench-kernel" --md "$2" --png "$3"
}
render "$raw" "$out/benchmarks-kernel.md" "$out/benchmarks-kernel.png" >/dev/null
if [[ -n ${BENCH_ONLY:-} ]] || ((reps < 3)); then
	render "$raw" "$out/benchmarks-kernel.md" "$out/benchmarks-kernel.png"
	echo "bench-kernel: a trial (BENCH_ONLY or fewer than 3 rounds): $raw and $out/benchmarks-kernel.md, docs/ untouched"
else
	mkdir -p "$docs/bench-raw"
	cp "$raw" "$docs/bench-raw/"
	render "$docs/bench-raw/$(basename "$raw")" "$docs/benchmarks-kernel.md" "$docs/benchmarks-kernel.png"
	echo "bench-kernel: raw data in $docs/bench-raw/$(basename "$raw") (commit it with the page)"
fi
echo "bench-kernel: $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
