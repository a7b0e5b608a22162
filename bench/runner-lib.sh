# Helpers for timing guests under TCG, sourced by bench/run-latency.sh and
# bench/run-cost.sh: timing is only meaningful when our guest has the host's
# CPUs to itself. The sourcing script sets ours_pattern and top.
# shellcheck shell=bash

# The run settings both setups pass to bench/suite.sh, and the kernel
# command-line words that carry them into the guest. With BENCH_MIN_REQUESTS
# (bench/run-latency.sh sets it) the suite sizes each run's window to hold
# that many requests, and BENCH_RUNTIME does not apply.
runtime=${BENCH_RUNTIME:-15} warmup=${BENCH_WARMUP:-2} attempts=${BENCH_ATTEMPTS:-2}
# shellcheck disable=SC2034 # used by the sourcing script
append="BENCH_WARMUP=$warmup BENCH_ATTEMPTS=$attempts"
if [[ -n ${BENCH_MIN_REQUESTS:-} ]]; then
	append+=" BENCH_MIN_REQUESTS=$BENCH_MIN_REQUESTS"
else
	append+=" BENCH_RUNTIME=$runtime"
fi
append+="${BENCH_STALL_US:+ BENCH_STALL_US=$BENCH_STALL_US}${BENCH_ONLY:+ BENCH_ONLY=$BENCH_ONLY}"

# The initramfs guest, as bench_fields describes it (tests/qemu/run-guest.sh
# boots it with 512 MiB).
# shellcheck disable=SC2034 # used by the sourcing script
initramfs_guest="TCG (single-threaded), 2 vCPUs, 512 MiB, the initramfs guest (bare cgroups)"

# bench_fields GUEST: sets the array of report.py --append arguments that
# say when, from what commit and on what host and guest (QEMU's version,
# then GUEST) a run file was made (its "bench" line; bench/run-latency.sh
# and bench/run-cost.sh). Needs top.
bench_fields() {
	# shellcheck disable=SC2034 # used by the sourcing script
	bench_fields=(--str date="$(date -u '+%Y-%m-%d %H:%M UTC')"
		--str commit="$(git -C "$top" describe --always --dirty 2>/dev/null || echo 'no git')"
		--num host_cpus="$(nproc)"
		--str host_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		--str loadavg_before="$(cut -d' ' -f1-3 /proc/loadavg)"
		--str guest="$(qemu-system-x86_64 --version | head -1 | sed 's/ (.*//'), $1")
}

# record_end: the raw file's last line, after the last boot; sets elapsed.
# Needs the sourcing script's record, start and boots_ms.
record_end() {
	elapsed=$(( $(date +%s) - start ))
	record --str type=end --str loadavg_after="$(cut -d' ' -f1-3 /proc/loadavg)" \
		--num boots_s=$(( boots_ms / 1000 )) --num elapsed_s="$elapsed"
}

# How long some host task waited for a CPU (PSI), in microseconds so far.
cpu_wait_us() { sed -n 's/^some .*total=\([0-9]*\)/\1/p' /proc/pressure/cpu 2>/dev/null || echo 0; }
# QEMU guests on this host other than ours (whose command line has
# $ours_pattern).
others() {
	local pid n=0
	for pid in $(pgrep -x qemu-system-x86 || true); do
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$ours_pattern" || n=$((n + 1))
	done
	echo "$n"
}
# Wait for the other guests, for up to BENCH_QUIET_WAIT seconds.
wait_quiet() {
	local waited=0 limit=${BENCH_QUIET_WAIT:-600} n
	while n=$(others); ((n > 0 && waited < limit)); do
		((waited % 60)) || echo "bench: waiting for $n other QEMU guest(s) to finish (${waited}s of ${limit}s)"
		sleep 10
		waited=$((waited + 10))
	done
	((n == 0)) || echo "bench: warning: $n other QEMU guest(s) still running; figures will be noisy" >&2
}
# Record in FILE the most other guests seen at once, every 2 s, until killed.
watch_others() {
	local most=0 n
	echo 0 >"$1"
	while :; do
		n=$(others)
		((n <= most)) || { most=$n; echo "$most" >"$1"; }
		sleep 2
	done
}

# kernel_identity BZIMAGE: sets kernel_release, the version string the
# bzImage's boot header carries ("6.1.N-... (user@host) #BUILD SMP ..."), and
# kernel_config, the sha256 (16 hex digits) of BZIMAGE.config, the .config
# scripts/kernel-build.sh built it from, or "" when there is none (Debian's
# packaged kernel).
kernel_identity() {
	# shellcheck disable=SC2034 # used by the sourcing script
	kernel_release=$(python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
# The boot protocol's kernel_version: an offset, less 0x200, at 0x20e.
at = struct.unpack_from("<H", data, 0x20e)[0] + 0x200
print(data[at:data.index(b"\0", at)].decode())
PY
	) || { echo "bench: no version string in $1's boot header" >&2; return 1; }
	# shellcheck disable=SC2034 # used by the sourcing script
	kernel_config=""
	# shellcheck disable=SC2034
	[[ ! -r $1.config ]] || kernel_config=$(sha256sum <"$1.config" | cut -c1-16)
}

# fresh_raw KIND: empties OUTDIR ($out) for this run and names its raw
# file, $out/KIND-DATE.jsonl (UTC, to the minute), in raw.
fresh_raw() {
	rm -rf "$out"
	mkdir -p "$out"
	# shellcheck disable=SC2034 # used by the sourcing script
	raw=$out/$1-$(date -u +%Y-%m-%d-%H%M).jsonl
}

# identify_kernels TAG NAME...: for each NAME, of the bzImage image[NAME],
# sets release[NAME] and kconfig[NAME] (kernel_identity) and sha[NAME] (its
# sha256, 16 hex digits); exits naming a missing bzImage. The caller
# declares the four associative arrays.
identify_kernels() {
	local tag=$1 k
	shift
	for k in "$@"; do
		[[ -r ${image[$k]} ]] || { echo "$tag: no $k kernel at ${image[$k]}" >&2; exit 1; }
		kernel_identity "${image[$k]}"
		# shellcheck disable=SC2034 # the caller's arrays
		release[$k]=$kernel_release kconfig[$k]=$kernel_config
		# shellcheck disable=SC2034
		sha[$k]=$(sha256sum "${image[$k]}" | cut -c1-16)
	done
}

# kernel_matches LOG VERSION_STRING: every result line of the boot's LOG
# names the release and build (uname -r, uname -v) of the bzImage whose
# kernel_release is VERSION_STRING, or this fails saying which it named.
kernel_matches() {
	local want_r=${2%% *} want_v="#${2#*#}" got
	got=$(sed -n 's/^BENCH-[A-Z]* .*"release":"\([^"]*\)","version":"\([^"]*\)".*/\1 \2/p' "$1" | sort -u)
	if [[ -z $got || $got != "$want_r $want_v" ]]; then
		echo "bench: $1: the guest ran '${got:-nothing}', not the bzImage's '$want_r $want_v'" >&2
		return 1
	fi
}
