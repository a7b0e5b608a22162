# The verdict on one guest boot, shared by both runners: the initramfs
# guests (tests/qemu/run-guest.sh) and the image boots
# (tests/e2e/run-image.sh). Sourced; bash.
#
# A boot passes only when its suite printed a TAP plan, exactly that many
# results, none "not ok", reached its end marker with status 0 within the
# time limit, and the kernel complained about nothing. The kernel's
# complaints are looked for both on the console and in the kernel log the
# guest dumps at the end (lines starting with KLOG_PREFIX): the boots use
# loglevel=4, which keeps a WARN, a lockdep report or a KASAN/UBSAN report
# printed at warning level off the console.

# What counts as a kernel complaint. "WARNING:" covers WARN() and lockdep's
# reports, "BUG:" KASAN's, KCSAN's and the sleep-in-atomic checks.
KERNEL_COMPLAINT_RE='Kernel panic|Oops|WARNING:|BUG:|KASAN:|UBSAN:|rcu: INFO|possible circular locking|inconsistent lock state|sleeping function called from invalid context'
# The prefix of the kernel log lines a guest dumps after its suite.
KLOG_PREFIX='KLOG '

# verdict OUT RUNNER_RC TIMEOUT_S MARKER CONSOLE...
#   OUT       the suite's output: TAP, then "MARKER rc=N", with the kernel
#             log dumped as KLOG lines before the marker
#   RUNNER_RC the exit status of the boot (timeout's 124/137: it timed out)
#   MARKER    the suite's end marker, e.g. GUEST-RESULT
#   CONSOLE   files with the console output (may be OUT itself)
# Sets: passed, failed, problems (an array; empty when the boot passed),
# complaints (the offending kernel lines).
verdict() {
	local out=$1 runner_rc=$2 timeout_s=$3 marker=$4 planned guest_rc
	shift 4
	passed=$(grep -caE '^ok ' "$out" || true)
	failed=$(grep -caE '^not ok ' "$out" || true)
	planned=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' "$out" | tail -1)
	problems=()
	((runner_rc == 124 || runner_rc == 137)) && problems+=("guest timed out after ${timeout_s}s")
	grep -qa "^$marker " "$out" || problems+=("guest never reported (no $marker marker)")
	guest_rc=$(sed -n "s/^$marker rc=\([0-9]*\).*/\1/p" "$out" | tail -1)
	[[ -z $guest_rc || $guest_rc == 0 ]] || problems+=("suite exited with status $guest_rc")
	[[ -n $planned ]] || problems+=("no TAP plan line")
	[[ -z $planned || $planned == $((passed + failed)) ]] ||
		problems+=("plan says $planned tests, $((passed + failed)) reported")
	((failed == 0)) || problems+=("$failed tests failed")
	complaints=$( { grep -haE "$KERNEL_COMPLAINT_RE" "$@" | grep -avE "^$KLOG_PREFIX"
			grep -haE "^$KLOG_PREFIX" "$out" | grep -aE "$KERNEL_COMPLAINT_RE"; } | sort -u || true)
	[[ -z $complaints ]] ||
		problems+=("kernel reported a warning, BUG, KASAN or UBSAN report, stall or lockdep splat")
}

# verdict_report NAME ELAPSED_S: the problems and the kernel's complaints,
# on stderr.
verdict_report() {
	local name=$1 elapsed=$2
	echo "$name: FAILED after ${elapsed}s: ${problems[*]/%/;}" >&2
	[[ -z $complaints ]] || head -20 <<<"$complaints" | sed "s/^/$name: kernel: /" >&2
}

# verdict_took OUTPUT: how long a boot took, from its runner's last line.
verdict_took() { grep -oE 'FAILED after [0-9]+s|[0-9]+s boot-to-result' <<<"$1" | tail -1; }
