#!/bin/bash
# The latency benchmark, in rounds: our kernel, the same tree without the
# series built with the same config ("mainline", the comparator that differs
# from ours by the series alone) and Debian's packaged kernel, booted in
# rounds: ours, mainline, stock, then stock, mainline, ours, ... (BENCH_REPS
# rounds, 3 by default, the order reversed every other round), so a host
# that drifts over the half hour drifts under every kernel alike. Each boot runs every case for its kernel once
# (bench/suite.sh), in one of two setups:
#   kernel  make bench-kernel: the initramfs guest, /tests/bench-suite in
#           bare cgroups, no podman, no systemd; every case
#   image   make bench: the e2e image under podman (burst-bench.service,
#           bench/image-bench.sh), so the limits reach the kernel the way a
#           user's do (podman, crun, cpu.max, cpu.max.burst); scenario 2's
#           runs, where the kernels differ (s2-capped on every kernel,
#           s2-burst on ours, s2-stretched on mainline), since an image boot and a container each
#           cost what several runs would (see the time below)
# Every run's JSON, with the kernel, its image and config, the repetition
# and the boot's host pressure, goes into one JSON-lines file,
# docs/bench-raw/SETUP-DATE.jsonl, and the page (docs/benchmarks-kernel.md
# and .png; docs/benchmarks.md and .png for the image) is computed from that
# file alone (bench/report.py --from), so anyone can compute it again.
#
# Usage: bench/run-latency.sh kernel OUR MAINLINE STOCK GUEST_CONFIG INITRAMFS OUTDIR
#        bench/run-latency.sh image OUR MAINLINE STOCK GUEST_CONFIG IMAGE STOCK_INITRD OUTDIR
#   OUR, MAINLINE, STOCK  the kernels' bzImages; the image boots ours and
#                 mainline with no initrd (everything is built in) and
#                 Debian's with STOCK_INITRD (scripts/image-stock.sh)
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
# Time, on this 2-core host under single-threaded TCG. A run holds 500
# requests (what p99 needs, bench/report.py): 250.5 batch intervals
# (bench/suite.sh's measure_s), 50.6 s at scenario 1's 9.9 requests/s and
# 52.6 s at scenario 2's 9.52, each after 2 s warm-up.
#   kernel  a boot is 11.5 s beyond its runs (booting, powering off,
#           run-guest.sh's 15 s polling: the last 15 s runs at the former
#           settings took 210 s for 2 boots and 11 runs of 17 s):
#             ours 3 x 52.6 + 4 x 54.6 = 376 s (s1-nolimit, -quota, -burst;
#             s2-nolimit, -capped, -burst, s3); mainline 2 x 54.6 s
#             (s2-capped, s2-stretched); stock 54.6 s (s2-capped); a round
#             376 + 3 x 54.6 + 3 x 11.5 = 574 s; 3 rounds 1722 s = 29 min
#   image   a boot is about 60 s beyond its runs (systemd, the unit, power
#           off) and a run 10 s more (podman starting the container):
#             ours 2 x 64.6 s (s2-capped, s2-burst); mainline 2 x 64.6 s
#             (s2-capped, s2-stretched); stock 64.6 s; a round
#             5 x 64.6 + 3 x 60 = 503 s; 3 rounds 1509 s = 25 min
#           (the pages give each run's own count and time, from its raw file)
# plus about 55 s for each try run again after a host stall, and any wait
# for other guests. The script computes the same from the suite's plan and
# prints it, and the time left before each boot.
set -euo pipefail

setup=${1:-}
shift || true
case $setup in
kernel)
	(($# == 6)) || { echo "usage: bench/run-latency.sh kernel OUR MAINLINE STOCK GUEST_CONFIG INITRAMFS OUTDIR" >&2; exit 2; }
	ours=$1 mainline=$2 stock=$3 guest_config=$4 initramfs=$5 out=$6
	generator="make bench-kernel" page=benchmarks-kernel
	# Per boot and per run, beyond the runs' windows (see the time above).
	boot_s=12 run_s=0
	;;
image)
	(($# == 7)) || { echo "usage: bench/run-latency.sh image OUR MAINLINE STOCK GUEST_CONFIG IMAGE STOCK_INITRD OUTDIR" >&2; exit 2; }
	ours=$1 mainline=$2 stock=$3 guest_config=$4 disk=$5 stock_initrd=$6 out=$7
	generator="make bench" page=benchmarks
	boot_s=60 run_s=10
	[[ -r $disk && -r $stock_initrd ]] || { echo "bench-image: no image at $disk or no initrd at $stock_initrd" >&2; exit 1; }
	;;
*)
	echo "bench/run-latency.sh: setup '$setup': expected kernel or image" >&2
	exit 2
	;;
esac
out=$(realpath -m "$out")
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
report=$top/bench/report.py
reps=${BENCH_REPS:-3}
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-$setup: BENCH_REPS=$reps is not a count of rounds" >&2; exit 2; }
# A selection of runs, or fewer rounds than the page's, is a trial.
trial=0
[[ -z ${BENCH_ONLY:-} ]] && ((reps >= 3)) || trial=1
if [[ $setup == image && -z ${BENCH_ONLY:-} ]]; then
	BENCH_ONLY=s2-capped,s2-burst,s2-stretched
	export BENCH_ONLY
fi
# The runs' floor is what the highest percentile the ratios use needs, by
# the report's own rule: the report and the runs cannot disagree on it.
# Exported for the suite's plan below; the guests get it on their command line.
BENCH_MIN_REQUESTS=$(python3 "$report" --min-samples p99)
export BENCH_MIN_REQUESTS
. "$top/bench/runner-lib.sh"

kernels=(ours mainline stock)
declare -A image=([ours]=$ours [mainline]=$mainline [stock]=$stock)
# What each kernel supports: mainline lacks the series as Debian's does.
declare -A expect=([ours]=patched [mainline]=stock [stock]=stock)
for k in "${kernels[@]}"; do
	[[ -r ${image[$k]} ]] || { echo "bench-$setup: no $k kernel at ${image[$k]}" >&2; exit 1; }
done
source_version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '?')
. "$top/scripts/lib/kconfig-base.sh"
guest_cfg=$(kconfig_describe "$top" "$guest_config")
declare -A config=([ours]=$guest_cfg [mainline]=$guest_cfg
	[stock]="Debian's own, packaged with it (config-RELEASE in its linux-image package)")
declare -A tree=([ours]="linux-source-6.1 $source_version + kernel/series ($(grep -c '^0' "$top/kernel/series" || true) patches)"
	[mainline]="linux-source-6.1 $source_version, without the series"
	[stock]="Debian's linux-image package of the same version")
# Each kernel as built: its bzImage's hash, the version string in its boot
# header (every boot's uname -r and -v are checked against it) and, for
# ours and mainline, the sha256 of the .config it was built with
# (scripts/kernel-build.sh leaves it beside the bzImage).
declare -A sha release kconfig
for k in "${kernels[@]}"; do
	sha[$k]=$(sha256sum "${image[$k]}" | cut -d' ' -f1)
	kernel_identity "${image[$k]}"
	release[$k]=$kernel_release kconfig[$k]=$kernel_config
	if [[ $k != stock && -z ${kconfig[$k]} ]]; then
		echo "bench-$setup: no ${image[$k]}.config beside the $k kernel: build it again (make kernel kernel-mainline)" >&2
		exit 1
	fi
done

# One boot's estimate and time limit, from the suite's own plan for that
# kernel: every run's window plus its warm-up and start, and the boot; the
# limit allows every try, 10 s of set-up each, and three times the boot's
# estimate plus 180 s to boot and power off.
declare -A est timeout_s
runs_total=0
for k in "${kernels[@]}"; do
	plan=$(BURSTCFS_EXPECT=${expect[$k]} BENCH_KERNEL=$k BENCH_WARMUP=$warmup sh "$top/bench/suite.sh" --plan)
	read -r "est[$k]" "timeout_s[$k]" n < <(awk -v w="$warmup" -v boot="$boot_s" -v run="$run_s" -v tries="$attempts" '
		{ s += $4 + w + run; t += tries * ($4 + w + run + 10); n++ }
		END { printf "%d %d %d\n", s + boot + 0.5, t + 3 * boot + 180, n }' <<<"$plan")
	((n > 0)) || { echo "bench-$setup: no case runs on $k (BENCH_ONLY=${BENCH_ONLY:-})" >&2; exit 2; }
	runs_total=$((runs_total + n))
done
left_s=$(( reps * (est[ours] + est[mainline] + est[stock]) ))

# Guests this run boots have $initramfs (kernel) or OUTDIR (image: their
# serial ports' files) on their command line.
if [[ $setup == kernel ]]; then
	ours_pattern=$initramfs
else
	ours_pattern=$out/
fi

# boot_guest NAME KERNEL: one boot of KERNEL running its cases; its serial
# output in OUT/NAME.log.txt. Fails when the guest did not finish or a run
# failed.
boot_guest() {
	local name=$1 k=$2 rc=0
	if [[ $setup == kernel ]]; then
		RESULTS_DIR=$out EXTRA_APPEND="$append BENCH_KERNEL=$k" \
			"$top/tests/qemu/run-guest.sh" "$name" "${image[$k]}" "$initramfs" \
			bench-suite "${expect[$k]}" "${timeout_s[$k]}"
		return
	fi
	"$top/tests/e2e/boot-image.sh" "$name" "${image[$k]}" "${initrd[$k]}" "$disk" \
		"$out/$name.console.log" "$out/$name.out" "${timeout_s[$k]}" \
		"burstcfs.bench=1 burstcfs.expect=${expect[$k]} $append BENCH_KERNEL=$k" || rc=$?
	# No .out when mkosi failed before QEMU started: an empty log then.
	{ tr -d '\r' <"$out/$name.out"; } >"$out/$name.log.txt" 2>/dev/null || :
	sed -n 's/^\(ok\|not ok\|# \)/'"$name"': &/p' "$out/$name.log.txt"
	if ! grep -q '^BENCH-END rc=0$' "$out/$name.log.txt"; then
		echo "bench-image: $name did not finish its runs (boot rc=$rc, $(grep '^BENCH-END' "$out/$name.log.txt" || echo 'no BENCH-END')); last lines of its console:" >&2
		tr -d '\r' <"$out/$name.console.log" 2>/dev/null | tail -30 | sed 's/^/    /' >&2
		return 1
	fi
}
declare -A initrd=([ours]=none [mainline]=none [stock]=${stock_initrd:-})

fresh_raw "$setup"
record() { python3 "$report" --append "$raw" "$@"; }
if [[ $setup == kernel ]]; then
	bench_fields "$initramfs_guest"
else
	bench_fields "TCG (${E2E_TCG:-single}-threaded), ${E2E_SMP:-2} vCPUs, ${E2E_MEM:-2048} MiB, the e2e image (mkosi qemu; podman, crun)"
fi
record --str type=bench --num format=1 --str generator="$generator" "${bench_fields[@]}" \
	--str setup="bench/setup-$setup.md" \
	--num repetitions="$reps" --str kernels="$(IFS=,; echo "${kernels[*]}")" \
	--num min_requests="$BENCH_MIN_REQUESTS" --num warmup_s="$warmup" --num attempts="$attempts" \
	--num stall_us="${BENCH_STALL_US:-20000}" --str only="${BENCH_ONLY:-}" --num estimate_s="$left_s"

nboots=$(( reps * ${#kernels[@]} ))
echo "bench-$setup: $reps rounds of ${kernels[*]}: $nboots boots, $(( reps * runs_total )) runs of at least $BENCH_MIN_REQUESTS requests; about $(( (left_s + 30) / 60 )) min on a quiet host"
start=$(date +%s) boots_ms=0 nboot=0
for rep in $(seq 1 "$reps"); do
	# The boot order alternates across rounds: no kernel is always first
	# (a fresh host) or always last.
	order=("${kernels[@]}")
	((rep % 2)) || mapfile -t order < <(printf '%s\n' "${kernels[@]}" | tac)
	for k in "${order[@]}"; do
		nboot=$((nboot + 1))
		for try in 1 2; do
			wait_quiet
			echo "bench-$setup: boot $nboot of $nboots: $k, repetition $rep of $reps$( ((try == 1)) || echo ', booted again'); $(( ($(date +%s) - start) / 60 )) min in, about $(( (left_s + 30) / 60 )) min to go"
			name=bench-$rep-$k
			watch_others "$out/others-$name" &
			watcher=$!
			load=$(cut -d' ' -f1-3 /proc/loadavg)
			t0=$(date +%s%N) w0=$(cpu_wait_us)
			rc=0
			boot_guest "$name" "$k" || rc=$?
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
				kernel_matches "$out/$name.log.txt" "${release[$k]}"
				stack=$(sed -n 's/^# podman version \([^,]*\), podman package \([^,]*\), crun package \(.*\)/podman \2, crun \3/p' "$out/$name.log.txt")
				record "${host[@]}" --str image="$(basename "${image[$k]}")" ${stack:+--str stack="$stack"} \
					--str image_sha256="${sha[$k]}" --str tree="${tree[$k]}" \
					--str config="${config[$k]}" ${kconfig[$k]:+--str config_sha256="${kconfig[$k]}"} \
					"${uncounted[@]}" "$out/$name.log.txt"
			fi
			if ((rc != 0)); then
				echo "bench-$setup: the $k boot of repetition $rep failed (rc=$rc); the runs so far are in $raw; no page written" >&2
				exit "$rc"
			fi
			((counted == 0)) || break
			echo "bench-$setup: $seen other QEMU guest(s) ran during the $k boot; booting it again"
		done
		left_s=$(( left_s > est[$k] ? left_s - est[$k] : 0 ))
	done
done
record_end

# The report checks the file (floor, every repetition, its end) before
# anything reaches docs/: a file it refuses stays in OUTDIR.
render() {
	python3 "$report" --from "$1" --template "$top/bench/benchmarks.md.in" \
		--setup "$top/bench/setup-$setup.md" --generator "$generator" --md "$2" --png "$3"
}
if ((trial)); then
	render "$raw" "$out/$page.md" "$out/$page.png"
	echo "bench-$setup: a trial (BENCH_ONLY or fewer than 3 rounds): $raw and $out/$page.md, docs/ untouched"
else
	render "$raw" "$out/$page.md" "$out/$page.png" >/dev/null
	mkdir -p "$docs/bench-raw"
	cp "$raw" "$docs/bench-raw/"
	render "$docs/bench-raw/$(basename "$raw")" "$docs/$page.md" "$docs/$page.png"
	echo "bench-$setup: raw data in $docs/bench-raw/$(basename "$raw") (commit it with the page)"
fi
echo "bench-$setup: $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
