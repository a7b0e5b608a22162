#!/bin/bash
# The latency runner without QEMU (make check-bench-runner): bench/run-latency.sh
# in a scratch copy of the tree whose tests/qemu/run-guest.sh runs the real
# bench/suite.sh on the host, as the guest's /init would, with a stand-in
# burstbench (requests counted by burstbench's rule, fixed latencies) and a
# directory for a cgroup tree. What it checks is the runner's own work: the
# boot order, the raw file and what each line carries, a boot booted again,
# a failed boot keeping its evidence and leaving docs/ alone, a trial
# staying out of docs/, and the page recomputed from the raw file alone.
# Prints TAP; exits non-zero when a check fails.
# The checks are strings for eval (ok below), single-quoted on purpose:
# shellcheck disable=SC2016
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree
mkdir -p "$tmp/again" "$tree/bench" "$tree/tests/qemu" "$tree/tests/e2e" "$tree/kernel/config" "$tree/docs" "$tmp/bin" "$tmp/guest-bin"
cp "$top/bench/run-latency.sh" "$top/bench/runner-lib.sh" "$top/bench/report.py" \
	"$top/bench/benchmarks.md.in" "$top/bench/setup-kernel.md" "$top/bench/setup-image.md" "$tree/bench/"
mkdir -p "$tree/scripts/lib"
cp "$top/scripts/lib/kconfig-base.sh" "$tree/scripts/lib/"
cp "$top/kernel/series" "$tree/kernel/"
echo 'CONFIG_CFS_BANDWIDTH=y' >"$tree/kernel/config/guest.config"
# The suite with its sysctl where the stand-in guest puts it (present on ours only).
sed 's|^sysctl=/proc/sys/kernel/sched_cfs_bw_burst_enabled$|sysctl=${FAKE_SYSCTL:-/nonexistent}|' \
	"$top/bench/suite.sh" >"$tree/bench/suite.sh"
# Stand-in bzImages: a boot header whose version string names the kernel
# (bench/runner-lib.sh's kernel_identity reads it), and the .config that
# scripts/kernel-build.sh leaves beside ours and mainline.
for k in ours mainline stock; do
	python3 - "$tmp/bzImage-$k" "6.1.0-$k (t@t) #1 SMP $k" <<'PY'
import struct, sys
version = sys.argv[2].encode() + b"\0"
data = bytearray(0x300) + version
struct.pack_into("<H", data, 0x20e, 0x300 - 0x200)
open(sys.argv[1], "wb").write(data)
PY
	[[ $k == stock ]] || echo "CONFIG_CFS_BANDWIDTH=y # $k" >"$tmp/bzImage-$k.config"
done
echo initramfs >"$tmp/initramfs"
echo image >"$tmp/image.raw"
echo initrd >"$tmp/initrd-stock"

n=0 failed=0
# ok CHECK WHAT: CHECK is eval'ed, so its $ expand when it runs.
ok() {
	n=$((n + 1))
	if eval "$1"; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
grep -q 'FAKE_SYSCTL' "$tree/bench/suite.sh" || { echo "Bail out! the suite's sysctl line moved"; exit 1; }

# Python itself, not a version manager's shim in front of it: the stand-in
# boots start it a dozen times each.
py=$(python3 -c 'import sys; print(sys.executable)')
ln -s "$py" "$tmp/bin/python3"

# No other QEMU guests unless a boot asks for one (FAKE_OTHER: this test's
# own process, whose command line lacks the initramfs); a QEMU that answers
# --version.
cat >"$tmp/bin/pgrep" <<EOF
#!/bin/sh
[ -e "$tmp/other" ] && echo $$
exit 0
EOF
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
echo "QEMU emulator version 0.0 (stand-in)"
EOF
# In the guest: uname says the kernel booted (FAKE_KERNEL); cgroupfs removes
# a group with its interface files.
cat >"$tmp/guest-bin/uname" <<'EOF'
#!/bin/sh
case $1 in -r) echo "6.1.0-$FAKE_KERNEL" ;; -v) echo "#1 SMP $FAKE_KERNEL" ;; *) echo Linux ;; esac
EOF
cat >"$tmp/guest-bin/rmdir" <<'EOF'
#!/bin/sh
exec rm -r "$@"
EOF

# burstbench: as many requests as it would measure (the batches due in
# [warm-up, warm-up + run time), in whole ns), FAKE_SHORT's boot 400.
cat >"$tmp/burstbench" <<'EOF'
#!/bin/sh
shift
short=0
[ -n "${FAKE_SHORT:-}" ] && [ "${FAKE_NAME:-}" = "$FAKE_SHORT" ] && short=1
awk -v short=$short -v args="$*" 'BEGIN {
	n = split(args, a, " ")
	for (i = 1; i < n; i += 2) o[a[i]] = a[i + 1]
	b = o["--threads"]; w = o["--warmup"]; r = o["--runtime"]
	iv = int(b / o["--rate"] * 1e9 + 0.5)
	warm = int((int(w * 1e9) + iv - 1) / iv)
	all = int((int((w + r) * 1e9) + iv - 1) / iv)
	req = short ? 400 : b * ((all > warm ? all : warm + 1) - warm)
	printf "{\"threads\":%d,\"batch\":%d,\"rate\":%s,\"cputime_us\":%d,\"runtime_s\":%s,", b, b, o["--rate"], o["--cputime"], r
	printf "\"warmup_s\":%s,\"requests\":%d,\"unfinished\":0,\"rps\":%s,\"rps_elapsed_s\":%s,", w, req, o["--rate"], r
	printf "\"latency_us\":{\"p50\":1000.0,\"p75\":2000.0,\"p90\":3000.0,\"p95\":4000.0,\"p99\":5000.0,"
	printf "\"p99.5\":6000.0,\"p99.9\":7000.0,\"min\":100.0,\"max\":8000.0,\"mean\":1500.0},\"cgroup\":\"\",\"limit\":null,"
	printf "\"cpu_stat\":{\"usage_usec\":1000000,\"nr_periods\":100,\"nr_throttled\":1,\"throttled_usec\":1000,"
	printf "\"nr_bursts\":1,\"burst_usec\":1000},\"elapsed_us\":%d,\"process_cpu_us\":1,\"requests_cpu_us\":1,", r * 1e6
	printf "\"request_overrun_max_us\":1000,\"bound_usec\":2000000}\n"
}'
EOF

# The guest: the suite as /init (or the image's burst-bench.service) runs
# it, BENCH_* words of the command line in its environment as the kernel
# puts them there. Usage: guest NAME KERNEL EXPECT WORD...; the serial log
# on stdout; fails as the suite does.
cat >"$tmp/guest" <<'EOF'
#!/bin/bash
set -euo pipefail
name=$1 kernel=$2 expect=$3
shift 3
k=${kernel##*bzImage-}
echo "$name $k $expect" >>"$FAKE_DIR/boots"
if [[ $name == "${FAKE_OTHER:-}" && ! -e $FAKE_DIR/other-done ]]; then
	touch "$FAKE_DIR/other" "$FAKE_DIR/other-done"
	sleep 2.5
	rm "$FAKE_DIR/other"
fi
cg=$FAKE_DIR/cg-$name sys=$FAKE_DIR/sys-$name
rm -rf "$cg" "$sys"
mkdir -p "$cg"
echo "cpu memory" >"$cg/cgroup.controllers"
[[ $expect != patched ]] || echo 1 >"$sys"
words=()
for w; do
	[[ $w == BENCH_*=* ]] || continue
	# FAKE_NOFLOOR's boot plays a stale suite that knows no floor.
	[[ $name == "${FAKE_NOFLOOR:-}" && $w == BENCH_MIN_REQUESTS=* ]] || words+=("$w")
done
echo "GUEST-BEGIN kernel=6.1.0-$k expect=$expect cpus=2"
# Nothing of the host's environment: a guest has its command line only.
env -i "${words[@]}" PATH="$FAKE_DIR/guest-bin:$PATH" BURSTCFS_EXPECT="$expect" BENCH_CGROOT="$cg" \
	FAKE_SYSCTL="$sys" FAKE_NAME="$name" FAKE_KERNEL="$k" FAKE_SHORT="${FAKE_SHORT:-}" BURSTBENCH="$FAKE_DIR/burstbench" \
	sh "$FAKE_TREE/bench/suite.sh" 2>/dev/null
EOF
# make bench-kernel's boot (tests/qemu/run-guest.sh NAME KERNEL INITRAMFS SUITE EXPECT TIMEOUT).
cat >"$tree/tests/qemu/run-guest.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
rc=0
# shellcheck disable=SC2086 # the command line's words
"$FAKE_DIR/guest" "$1" "$2" "$5" $EXTRA_APPEND >"$RESULTS_DIR/$1.log.txt" || rc=$?
echo "GUEST-RESULT rc=$rc" >>"$RESULTS_DIR/$1.log.txt"
! grep -q '^not ok' "$RESULTS_DIR/$1.log.txt" && ((rc == 0))
EOF
# make bench's boot (tests/e2e/boot-image.sh LABEL KERNEL INITRD IMAGE CONSOLE
# OUT TIMEOUT APPEND...): lines on the second serial port end in CR LF, the
# initrd is recorded, FAKE_HANG's boot never ends its suite.
cat >"$tree/tests/e2e/boot-image.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
name=$1 kernel=$2 initrd=$3 console=$5 out=$6
shift 7
# shellcheck disable=SC2048,SC2086 # the command line's words
expect=$(printf '%s\n' $* | sed -n 's/^burstcfs.expect=//p')
echo "$name $(basename "$initrd")" >>"$FAKE_DIR/initrds"
echo "console of $name" >"$console"
rc=0
{
	# shellcheck disable=SC2048,SC2086
	"$FAKE_DIR/guest" "$name" "$kernel" "$expect" $* || rc=$?
	[[ $name == "${FAKE_HANG:-}" ]] || echo "BENCH-END rc=$rc"
} | sed 's/$/\r/' >"$out"
[[ $name != "${FAKE_HANG:-}" ]] || exit 124
EOF
chmod +x "$tmp/bin/pgrep" "$tmp/bin/qemu-system-x86_64" "$tmp/guest-bin/rmdir" "$tmp/guest-bin/uname" "$tmp/burstbench" \
	"$tmp/guest" "$tree/tests/qemu/run-guest.sh" "$tree/tests/e2e/boot-image.sh"

bench() {
	PATH=$tmp/bin:$PATH FAKE_DIR=$tmp FAKE_TREE=$tree BENCH_QUIET_WAIT=0 BENCH_DOCS=$tree/docs \
		"$tree/bench/run-latency.sh" kernel "$tmp/bzImage-ours" "$tmp/bzImage-mainline" "$tmp/bzImage-stock" \
		"$tree/kernel/config/guest.config" "$tmp/initramfs" "$tmp/out"
}
bench_image() {
	PATH=$tmp/bin:$PATH FAKE_DIR=$tmp FAKE_TREE=$tree BENCH_QUIET_WAIT=0 BENCH_DOCS=$tree/docs \
		"$tree/bench/run-latency.sh" image "$tmp/bzImage-ours" "$tmp/bzImage-mainline" "$tmp/bzImage-stock" \
		"$tree/kernel/config/guest.config" "$tmp/image.raw" "$tmp/initrd-stock" "$tmp/image-out"
}
# json PYTHON_EXPR: evaluated with L, the raw file's lines, by type.
json() {
	"$py" -c 'import json, sys
L = {}
for line in open(sys.argv[1]):
    x = json.loads(line)
    L.setdefault(x["type"], []).append(x)
sys.exit(0 if eval(sys.argv[2]) else 1)' "$raw" "$1"
}

# A whole run, the mainline boot of round 2 with another guest alongside.
rc=0
FAKE_OTHER=bench-2-mainline bench >"$tmp/run.out" 2>&1 || rc=$?
ok '((rc == 0))' "a whole run succeeds (rc=$rc)"
((rc == 0)) || sed 's/^/# /' "$tmp/run.out"
order=$(cut -d' ' -f1 "$tmp/boots" 2>/dev/null | tr '\n' ' ' || true)
ok '[[ $order == "bench-1-ours bench-1-mainline bench-1-stock bench-2-stock bench-2-mainline bench-2-mainline bench-2-ours bench-3-ours bench-3-mainline bench-3-stock " ]]' \
	"boots interleave ours, mainline, stock for 3 rounds, the order reversed in round 2; the disturbed boot is booted again ($order)"
ok '! grep -vqE "^bench-[0-9]-(ours ours patched|mainline mainline stock|stock stock stock)$" "$tmp/boots"' \
	"each boot gets its own image, mainline and Debian's with stock semantics"
ok 'grep -q "boot 4 of 9: stock, repetition 2 of 3; 0 min in, about [0-9]* min to go" "$tmp/run.out"' \
	"a progress line before each boot, with the time to go"
ok 'grep -q "about 2[0-9] min on a quiet host" "$tmp/run.out"' \
	"the estimate printed at the start is the documented 26 min ($(grep -o 'about [0-9]* min on a quiet host' "$tmp/run.out"))"
mapfile -t raws < <(ls "$tree/docs/bench-raw/"kernel-*.jsonl 2>/dev/null)
ok '((${#raws[@]} == 1))' "one raw file in docs/bench-raw/ (${#raws[@]})"
raw=${raws[0]:-/nonexistent}
ok 'json "[len(L[t]) for t in (\"bench\", \"boot\", \"run\", \"end\")] == [1, 10, 30, 1]"' \
	"the raw file: a bench line, 10 boots, 30 runs, an end"
ok 'json "all(isinstance(r[\"rep\"], int) and r[\"config\"] and len(r[\"image_sha256\"]) == 64 and \"host_cpu_pressure_pct\" in r and \"other_guests\" in r and r[\"result\"][\"requests\"] >= 500 and r[\"min_requests\"] == 500 for r in L[\"run\"])"' \
	"every run line carries its repetition, image, config, host pressure and >= 500 requests"
ok 'json "sorted((r[\"rep\"], r[\"kernel\"]) for r in L[\"run\"] if r[\"run\"] == \"s2-capped\") == sorted((p, k) for p in (1, 2, 3) for k in (\"ours\", \"mainline\", \"stock\"))"' \
	"s2-capped on every kernel in every round"
ok 'json "len({r[\"config\"] for r in L[\"run\"] if r[\"kernel\"] != \"stock\"}) == 1 and \"guest.config (sha256 \" in L[\"run\"][0][\"config\"] and all(r[\"config\"].startswith(\"Debian\") for r in L[\"run\"] if r[\"kernel\"] == \"stock\")"' \
	"ours and mainline record the same guest config, Debian's its own"
ok 'json "[(b[\"rep\"], b[\"kernel\"], b[\"boot_try\"], b[\"counted\"]) for b in L[\"boot\"] if not b[\"counted\"]] == [(2, \"mainline\", 1, 0)] and [(d[\"rep\"], d[\"kernel\"], d[\"why\"][:15]) for d in L[\"discard\"]] == [(2, \"mainline\", \"another QEMU gu\")] * 2"' \
	"the disturbed boot is recorded as not counted, its run as a discard"
ok 'json "L[\"bench\"][0][\"min_requests\"] == 500 and L[\"bench\"][0][\"repetitions\"] == 3"' \
	"the bench line records the floor and the repetitions"
page=$tree/docs/benchmarks-kernel.md
ok '[[ -s $page ]] && grep -q "bench-raw/$(basename "$raw")" "$page" && ! grep -qE "@[A-Z]+@" "$page"' \
	"the page is written, names its raw file and has no placeholder left"
ok 'python3 "$tree/bench/report.py" --from "$raw" --template "$tree/bench/benchmarks.md.in" --setup "$tree/bench/setup-kernel.md" --generator "make bench-kernel" --md "$page.again" --png "$tmp/again/benchmarks-kernel.png" >/dev/null 2>&1 && cmp -s "$page" "$page.again"' \
	"report.py --from the raw file alone gives the same page"
rm -f "$page.again"

# A boot whose run is short of the floor: it fails, keeps its runs, leaves docs/ alone.
cp "$page" "$tmp/page.before"
cp "$raw" "$tmp/raw.before"
# docs_unchanged: the page and docs/bench-raw/ as the whole run left them
# (a later run of the same minute would have the same file name).
docs_unchanged() {
	(cd "$tree/docs/bench-raw" && printf '%s\n' *) | cmp -s - <(basename "$raw") && cmp -s "$raw" "$tmp/raw.before" &&
		cmp -s "$page" "$tmp/page.before"
}
: >"$tmp/boots"
rc=0
FAKE_SHORT=bench-1-mainline bench >"$tmp/short.out" 2>&1 || rc=$?
ok '((rc != 0))' "a run short of the floor fails the benchmark (rc=$rc)"
ok '[[ $(wc -l <"$tmp/boots") == 2 ]]' "and stops at that boot ($(wc -l <"$tmp/boots") boots)"
ok 'docs_unchanged' \
	"docs/ is left as it was"
# shellcheck disable=SC2034 # used in the checks
short=$(ls "$tmp/out/"kernel-*.jsonl 2>/dev/null || echo /nonexistent)
ok '(raw=$short; json "[(r[\"rep\"], r[\"kernel\"], r[\"run\"], r[\"result\"][\"requests\"]) for r in L[\"run\"] if r[\"kernel\"] == \"mainline\"] == [(1, \"mainline\", \"s2-capped\", 400), (1, \"mainline\", \"s2-stretched\", 400)]")' \
	"the short run is kept in the raw file in OUTDIR"
ok '! python3 "$tree/bench/report.py" --from "$short" --template "$tree/bench/benchmarks.md.in" --setup "$tree/bench/setup-kernel.md" --generator x --md "$tmp/x.md" --png "$tmp/x.png" 2>"$tmp/x.err" && grep -q "400 requests, fewer than 500" "$tmp/x.err"' \
	"report.py --from refuses it, naming the run"

# A stale suite, short runs passing in the guest: the report refuses the
# file before anything reaches docs/.
rc=0
FAKE_NOFLOOR=bench-3-stock bench >"$tmp/nofloor.out" 2>&1 || rc=$?
ok '((rc != 0)) && grep -q "142 requests, fewer than 500" "$tmp/nofloor.out" && docs_unchanged' \
	"runs the guest passed but the report refuses fail the benchmark and leave docs/ alone (rc=$rc)"

# A trial (one round of one case): its raw file and page stay in OUTDIR.
rc=0
BENCH_REPS=1 BENCH_ONLY=s2-capped bench >"$tmp/trial.out" 2>&1 || rc=$?
ok '((rc == 0)) && [[ -s $tmp/out/benchmarks-kernel.md ]] && docs_unchanged' \
	"a trial of one round of one case writes its page in OUTDIR and leaves docs/ alone (rc=$rc)"

# make bench: the image setup, scenario 2's runs only, ours and mainline
# with no initrd, Debian's with its own.
: >"$tmp/boots"
: >"$tmp/initrds"
rc=0
bench_image >"$tmp/image.out" 2>&1 || rc=$?
ok '((rc == 0))' "a whole image run succeeds (rc=$rc)"
((rc == 0)) || sed 's/^/# /' "$tmp/image.out"
order=$(cut -d' ' -f1 "$tmp/boots" 2>/dev/null | tr '\n' ' ' || true)
ok '[[ $order == "bench-1-ours bench-1-mainline bench-1-stock bench-2-stock bench-2-mainline bench-2-ours bench-3-ours bench-3-mainline bench-3-stock " ]]' \
	"image boots interleave ours, mainline, stock for 3 rounds, reversed in round 2 ($order)"
ok '[[ $(grep -cE "^bench-[123]-(ours|mainline) none$" "$tmp/initrds") == 6 && $(grep -cE "^bench-[123]-stock initrd-stock$" "$tmp/initrds") == 3 ]]' \
	"ours and mainline boot with no initrd, Debian's with its own"
ok 'grep -q "about 2[0-9] min on a quiet host" "$tmp/image.out"' \
	"the estimate printed at the start is the documented 22 min ($(grep -o 'about [0-9]* min on a quiet host' "$tmp/image.out"))"
mapfile -t raws < <(ls "$tree/docs/bench-raw/"image-*.jsonl 2>/dev/null)
ok '((${#raws[@]} == 1))' "one image raw file in docs/bench-raw/ (${#raws[@]})"
raw=${raws[0]:-/nonexistent}
ok 'json "sorted((r[\"rep\"], r[\"kernel\"], r[\"run\"]) for r in L[\"run\"]) == sorted([(p, k, \"s2-capped\") for p in (1, 2, 3) for k in (\"ours\", \"mainline\", \"stock\")] + [(p, \"ours\", \"s2-burst\") for p in (1, 2, 3)] + [(p, \"mainline\", \"s2-stretched\") for p in (1, 2, 3)])"' \
	"s2-capped on every kernel, s2-burst on ours and s2-stretched on mainline, in every round, nothing else"
ok 'json "L[\"bench\"][0][\"only\"] == \"s2-capped,s2-burst,s2-stretched\" and L[\"bench\"][0][\"setup\"] == \"bench/setup-image.md\" and L[\"bench\"][0][\"generator\"] == \"make bench\" and \"e2e image\" in L[\"bench\"][0][\"guest\"]"' \
	"the bench line names the runs, the setup, the generator and the image"
ipage=$tree/docs/benchmarks.md
ok '[[ -s $ipage ]] && grep -q "bench-raw/$(basename "$raw")" "$ipage" && ! grep -qE "@[A-Z_0-9]+@|^@(IF|ELSE|ENDIF)" "$ipage" && ! grep -q "scenario 1, ours: p99" "$ipage" && ! grep -q "Why scenario 1" "$ipage" && grep -q "^\*\*The result\.\*\* At the same long-run share" "$ipage" && grep -q "(control) scenario 2, mainline at its worst setting" "$ipage" && grep -q "15 counted runs in 9 boots" "$ipage"' \
	"docs/benchmarks.md is written from it: the same-share result first, scenario 2's ratios and text only, its own run count"
ok 'python3 "$tree/bench/report.py" --from "$raw" --template "$tree/bench/benchmarks.md.in" --setup "$tree/bench/setup-image.md" --generator "make bench" --md "$ipage.again" --png "$tmp/again/benchmarks.png" >/dev/null 2>&1 && cmp -s "$ipage" "$ipage.again"' \
	"report.py --from the image's raw file alone gives the same page"
rm -f "$ipage.again"

# An image boot that never ends its suite: the benchmark fails, docs/ stays.
cp "$ipage" "$tmp/ipage.before"
rc=0
FAKE_HANG=bench-2-stock bench_image >"$tmp/hang.out" 2>&1 || rc=$?
ok '((rc != 0)) && grep -q "bench-2-stock did not finish its runs (boot rc=124, no BENCH-END)" "$tmp/hang.out" && cmp -s "$ipage" "$tmp/ipage.before" && [[ $(ls "$tree/docs/bench-raw/"image-*.jsonl | wc -l) == 1 ]]' \
	"an image boot that never finishes fails the benchmark, named, and leaves docs/ alone (rc=$rc)"

echo "1..$n"
echo "run-latency: $((n - failed)) passed, $failed failed"
((failed == 0))
