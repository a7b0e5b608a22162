#!/bin/bash
# What the series costs, in instructions (make bench-icount):
# bench/icount-suite.sh booted under QEMU's -icount with
# bench/icount-plugin.c loaded, on our kernel and on mainline built with the
# same config, twice each (A/A: instruction counts should repeat exactly),
# then once on our kernel slowed on purpose (kernel/slowed/), which the
# bound must fail. Every boot's phases go into docs/bench-raw/icount-DATE.jsonl
# and docs/benchmarks-icount.md is computed from that file alone
# (bench/icount.py --from).
#
# Usage: bench/run-icount.sh OUR_KERNEL MAINLINE_KERNEL SLOWED_KERNEL GUEST_CONFIG INITRAMFS PLUGIN OUTDIR
# Environment: ICOUNT_REPS (boots of ours and of mainline, default 2; 1 is
# a trial whose page stays in OUTDIR, and has no A/A), BENCH_DOCS (docs/),
# and the suite's ICOUNT_* settings, passed to the guests.
#
# Host load changes no figure here (that is the point of -icount), only
# the wall time: 27-280 s a boot on this 2-core host (2026-12-07, beside other
# builds and guests), ours and the slowed kernel the longest: most of it the
# 10,000 groups the switch walks, made on ours and the slowed kernel.
set -euo pipefail

ours=$1 mainline=$2 slowed=$3 guest_config=$4 initramfs=$5 plugin=$6 out=$7
top=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$top/docs}
report=$top/bench/report.py
icount=$top/bench/icount.py
reps=${ICOUNT_REPS:-2}
[[ $reps =~ ^[1-9]$ ]] || { echo "bench-icount: ICOUNT_REPS=$reps is not a count of boots from 1 to 9" >&2; exit 2; }
. "$top/bench/runner-lib.sh"
# shellcheck disable=SC2034 # runner-lib.sh's others() reads it
ours_pattern=$initramfs

declare -A image=([ours]=$ours [mainline]=$mainline [slowed]=$slowed)
declare -A expect=([ours]=patched [mainline]=stock [slowed]=patched)
declare -A kconfig release sha
identify_kernels bench-icount ours mainline slowed
settings=""
for v in ICOUNT_N ICOUNT_CONFIG_N ICOUNT_SWITCH_N ICOUNT_GROUPS; do
	[[ -z ${!v:-} ]] || settings+=" $v=${!v}"
done
. "$top/scripts/lib/kconfig-base.sh"
guest_cfg=$(kconfig_describe "$top" "$guest_config")

fresh_raw icount
record() { python3 "$report" --append "$raw" "$@"; }
# -icount: the guest's clock is its instruction count (shift=0: 1 ns each),
# never waits for the host's (align=off) and skips idle time (sleep=off).
# It needs single-threaded TCG and one vCPU (a fixed shift does not bring
# up a second one). The plugin writes its counts; the symbols come on the
# guest's second serial port.
# What else would differ from boot to boot, each made fixed so that a boot
# repeats the last instruction for instruction (A/A 0): the RTC, which would
# read the host's date (clock=vm: it follows the guest's clock), the CPU's
# random numbers (no RDRAND, RDSEED: QEMU takes them from the host), and
# the kernel's and the programs' address randomisation.
icount_args="-icount shift=0,align=off,sleep=off"
fixed_args="-rtc base=2026-01-01T00:00:00,clock=vm -cpu max,-rdrand,-rdseed"
settings="nokaslr norandmaps$settings"
bench_fields "TCG (single-threaded) with $icount_args $fixed_args, kernel command line nokaslr norandmaps, 1 vCPU, 512 MiB, the initramfs guest (bare cgroups)"
record --str type=bench --num format=1 --str generator="make bench-icount" "${bench_fields[@]}" \
	--num repetitions="$reps" --str settings="$settings"

boots=()
for rep in $(seq 1 "$reps"); do boots+=("ours $rep" "mainline $rep"); done
boots+=("slowed 1")
echo "bench-icount: ${#boots[@]} boots (ours and mainline $reps times each, then the slowed kernel)"
start=$(date +%s) boots_ms=0 nboot=0
for b in "${boots[@]}"; do
	read -r k rep <<<"$b"
	nboot=$((nboot + 1))
	name=icount-$k-$rep
	echo "bench-icount: boot $nboot of ${#boots[@]}: $k, boot $rep; $(( $(date +%s) - start )) s in"
	t0=$(date +%s%N)
	rc=0
	RESULTS_DIR=$out EXTRA_APPEND="$settings" \
		EXTRA_QEMU="$icount_args $fixed_args -serial file:$out/$name.syms -plugin $plugin,out=$out/$name.counts" \
		"$top/tests/qemu/run-guest.sh" "$name" "${image[$k]}" "$initramfs" \
		icount-suite "${expect[$k]}" 900 1 || rc=$?
	t1=$(date +%s%N)
	boots_ms=$(( boots_ms + (t1 - t0) / 1000000 ))
	# What of the .config differs from ours': the page says whether it
	# can change the code (a build root's tool version cannot).
	cdiff=""
	[[ $k == ours ]] || cdiff=$(python3 "$icount" --config-diff "${image[ours]}.config" "${image[$k]}.config")
	boot=(--str type=boot --num round="$rep" --str kernel="$k" --num seconds=$(( (t1 - t0) / 1000000000 ))
		--str config_diff="$cdiff"
		--num rc="$rc" --str release="${release[$k]%% *}" --str image="$(basename "${image[$k]}")"
		--str image_sha256="${sha[$k]}" --str config="$guest_cfg" --str config_sha256="${kconfig[$k]}")
	record "${boot[@]}"
	if ((rc != 0)); then
		echo "bench-icount: the $k boot $rep failed (rc=$rc); the results so far are in $raw; no page written" >&2
		exit "$rc"
	fi
	kernel_matches "$out/$name.log.txt" "${release[$k]}"
	python3 "$icount" --record "$raw" --kernel "$k" --round "$rep" \
		"$out/$name.log.txt" "$out/$name.syms" "$out/$name.counts"
done
record_end

page=$out/benchmarks-icount.md
if ((reps >= 2)); then
	mkdir -p "$docs/bench-raw"
	cp "$raw" "$docs/bench-raw/"
	raw=$docs/bench-raw/$(basename "$raw")
	page=$docs/benchmarks-icount.md
fi
rc=0
python3 "$icount" --from "$raw" --md "$page" || rc=$?
echo "bench-icount: $page from $raw; $(( boots_ms / 1000 ))s in the guests, ${elapsed}s in all; logs in $out"
exit "$rc"
