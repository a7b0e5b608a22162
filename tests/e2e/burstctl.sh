# shellcheck shell=bash disable=SC2154,SC2034
# ($work and $expect come from suite.sh, which runs burstctl_tests.)
# burstctl's end-to-end proof (docs/burstctl.md), sourced by tests/e2e/suite.sh
# (installed beside it as burstctl-cases) and run by its loop, which gives
# pm, say, field, $work, $expect and $ROOTFS_O. A bursty
# container runs without a limit while `burstctl record` traces it;
# `burstctl advise` gives the burst B it needs at quota 10 ms / 100 ms; the
# same workload then runs with --cpu-burst B (no throttled period on our
# kernel) and with a burst well below it (throttled periods within a stated
# tolerance of the model's). Each case runs in a subshell of its own: they
# pass what they found on through files in $work.
#
# Under TCG a vCPU that is not being emulated still sees time pass, and the
# guest charges that time to the task it was running: a request that spins
# until its thread has used 30 ms of CPU may be charged more (30-35 ms
# here, now and then 50-80). So nothing else runs in the guest while
# requests run (burstctl and podman work in the warm-up, the waiting is a
# sleep), and the cases look at what each request really cost: burst-spin
# reports it, with the time the requests were due.

BC=/usr/local/bin/burstctl
# 8 requests of 30 ms of CPU, one every 430 ms: not a multiple of the
# period, so the requests meet it at many phases.
BC_SPIN=(-n 8 -i 430 -c 30)
BC_Q=10000 BC_P=100000
# The burst well below B: B is 20 ms or more for 30 ms requests, and with
# 5 ms the pool (15 ms) is half-way between the sizes at which a 30 ms
# request's throttles change (10, 20, 30 ms), so a millisecond more or less
# of demand or of the kernel's slack moves nothing.
BC_LOW=5000
# Between the model and the kernel, given the same requests at the same
# phase: the kernel's slack the model leaves out (a CPU runs up to a tick
# past an empty pool before it is throttled, an idle CPU keeps up to 1 ms
# of runtime, runtime goes out in 5 ms slices) and the CPU a request costs
# outside its spin (waking, sleeping: under a millisecond). Each can save or
# cost a throttle where the pool just covers or just misses a request.
BC_TOLERANCE=2

# bc_start NAME WARMUP_MS PODMAN_OPTS... -- SPIN_OPTS...: burst-spin,
# detached, its first request WARMUP_MS after it starts; its id in $work/NAME.id.
bc_start() {
	local name=$1 warmup=$2 opts=()
	shift 2
	while (($#)) && [[ $1 != -- ]]; do opts+=("$1"); shift; done
	shift
	pm run -d --name "$name" --network none "${opts[@]}" --rootfs "$ROOTFS_O" \
		burst-spin "${BC_SPIN[@]}" -w "$warmup" "$@" >"$work/$name.id" 2>"$work/err" && return 0
	say "podman run -d ${opts[*]}: $(grep -v '^$' "$work/err" | tail -2 | tr '\n' ' ')"
	return 1
}
# bc_refused NAME PODMAN_OPTS...: podman run must fail with crun's error
# naming the burst and the quota, and leave no container of that name. (The
# suite's expect_rejected looks for any container's cgroup; by now others
# run on purpose.)
bc_refused() {
	local name=$1 left
	shift
	if pm run --rm --name "$name" --network none "$@" --rootfs "$ROOTFS_O" true >/dev/null 2>"$work/err"; then
		say "podman run $*: accepted; should have been refused"
		return 1
	fi
	say "refused: $(grep -v '^$' "$work/err" | tail -1)"
	left=$(pm ps -a --filter "name=^$name\$" --format '{{.ID}}')
	[[ -z $left ]] || { say "container left behind: $left"; pm rm -f "$name" >/dev/null 2>&1; }
	[[ -z $left ]] && grep -qi burst "$work/err" && grep -qi quota "$work/err"
}
# bc_sleep_until T0 MS: sleep until MS milliseconds after T0 (date +%s%N).
bc_sleep_until() {
	local left=$((($1 + $2 * 1000000 - $(date +%s%N)) / 1000000))
	((left > 0)) && sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"
	return 0
}
# bc_end WARMUP_MS: when the last request is done, in ms after the start
# (burst-spin's first request is 200 ms after its warm-up's snapshot).
bc_end() { echo $(($1 + 200 + 7 * 430 + 30 + 500)); }
# bc_finish NAME: wait for the workload, keep its burst-spin line in $work/NAME, remove it.
bc_finish() {
	pm wait "$1" >/dev/null 2>&1
	pm logs "$1" 2>&1 | grep '^burst-spin:' >"$work/$1"
	pm rm -f "$1" >/dev/null 2>&1
	say "$(cat "$work/$1")"
	[[ -s $work/$1 ]] || { say "no burst-spin line"; return 1; }
}
# bc_requests NAME: the CPU each request of the run took, in us, one a line.
bc_requests() { spin_requests "$(cat "$work/$1")"; }
# model_own QUOTA PERIOD BURST FILE...: the model's throttled periods for
# the own requests of the burst-spin runs whose lines are in FILE...: each
# request due at its time (its run's start, plus its index times the
# interval) and costing what it cost, all on one CPU in the order they
# came, at the runs' own phase of the period, the pool full when the first
# is due. The trace goes to FILE.own.csv (the first FILE).
model_own() {
	local quota=$1 period=$2 burst=$3 f line
	shift 3
	for f in "$@"; do
		line=$(cat "$f")
		spin_requests "$line" |
			awk -v s="$(field start_us "$line")" -v iv="$(field interval_ms "$line")" '{ print s + (NR - 1) * iv * 1000, $1 }'
	done | sort -n | awk '
		NR == 1 { t0 = $1; print "# cpus: 1"; print "# monotonic_start_us: " t0; print "time_us,cpu_us"; print "0,0" }
		{ due = $1 - t0; if (due > t) { print due ",0"; t = due } t += $2; print t "," $2 }' >"$1.own.csv"
	$BC simulate "$1.own.csv" --quota "$quota" --period "$period" --burst "$burst" --start full --json |
		sed -n 's/.*"throttled_periods":\([0-9]*\),.*/\1/p'
}
# bc_own NAME BURST: model_own for the run of case NAME at this quota.
bc_own() { model_own "$BC_Q" "$BC_P" "$2" "$work/$1"; }
# bc_load FILE: what an earlier case left in $work/FILE.
bc_load() {
	[[ -s $work/$1 ]] && return 0
	say "no $1: an earlier case failed"
	return 1
}
# bc_status NAME BURST: burstctl status of the workload in its warm-up (by
# its id: no podman call), as the table people read and as JSON, which must
# say the limit podman set and, on our kernel, a pool within
# [0, quota + burst] (n/a on Debian's).
bc_status() {
	local id json pool
	id=$(head -c 12 "$work/$1.id")
	$BC status "$id" -i 200ms >"$work/bc-status" 2>&1 || { say "status: $(cat "$work/bc-status")"; return 1; }
	sed 's/^/  /' "$work/bc-status" >&3
	json=$($BC status "$id" -i 0 --json 2>&1) || { say "status --json: $json"; return 1; }
	grep -q "\"quota_us\":$BC_Q,\"period_us\":$BC_P,\"burst_us\":$2," <<<"$json" ||
		{ say "status --json: not quota $BC_Q, period $BC_P, burst $2: $json"; return 1; }
	pool=$(sed -n 's/.*"pool_us":\([0-9a-z]*\).*/\1/p' <<<"$json")
	say "status --json: pool_us $pool"
	if [[ $expect == stock ]]; then
		[[ $pool == null ]]
	else
		[[ $pool =~ ^[0-9]+$ ]] && ((pool <= BC_Q + $2))
	fi
}
# bc_run NAME BURST: the workload under quota, period and BURST, looked at
# with burstctl status in its 4 s warm-up; its line in $work/NAME.
bc_run() {
	local rc=0 t0
	bc_start "$1" 4000 --cpu-quota "$BC_Q" --cpu-period "$BC_P" --cpu-burst "$2" -- || return 1
	t0=$(date +%s%N)
	bc_status "$1" "$2" || rc=1
	bc_sleep_until "$t0" "$(bc_end 4000)"
	bc_finish "$1" && return $rc
}
# bc_compare NAME BURST: the run's throttled periods against the model's for
# its own requests; "THROTTLED OWN" in $work/NAME.cmp. 0 when within the tolerance.
bc_compare() {
	local thr own
	thr=$(field nr_throttled "$(cat "$work/$1")")
	own=$(bc_own "$1" "$2")
	echo "$thr $own" >"$work/$1.cmp"
	say "burst $2: the kernel throttled $thr periods; the model, given this run's own requests at its phase, $own (tolerance $BC_TOLERANCE)"
	[[ -n $own ]] && ((thr >= own - BC_TOLERANCE && thr <= own + BC_TOLERANCE))
}

t_bc_record() { # burstctl record traces an unlimited bursty container: no throttle, all of its CPU
	local t0 rec line spin_us trace_us thr
	# A 6 s warm-up: podman's return and the lookup by name are done before the first request.
	bc_start e2e-bc-rec 6000 -- -t 3000 || return 1
	t0=$(date +%s%N)
	$BC record e2e-bc-rec --duration 60s -o "$work/bc-trace.csv" 2>"$work/bc-rec.err" &
	rec=$!
	# Stop it in burst-spin's tail: after the last request, before the
	# container's exit (whose CPU is not the service's).
	bc_sleep_until "$t0" "$(bc_end 6000)"
	kill -INT "$rec"
	wait "$rec" || { say "record: $(cat "$work/bc-rec.err")"; return 1; }
	say "$(tail -1 "$work/bc-rec.err")"
	bc_finish e2e-bc-rec || return 1
	line=$(cat "$work/e2e-bc-rec")
	read -r trace_us thr < <(awk -F, '/^[0-9]/ { cpu += $2; thr += $3 } END { print cpu + 0, thr + 0 }' \
		"$work/bc-trace.csv")
	spin_us=$(field usage_usec "$line")
	# The trace's bursts of demand (apart by 150 ms or more): "at ms:CPU us".
	awk -F, '/^[0-9]/ && $2 > 0 {
		if (!n || $1 - last > 150000) { if (n) printf "%d:%d ", at / 1000, s; n++; at = $1; s = 0 }
		s += $2; last = $1 } END { printf "%d:%d\n", at / 1000, s }' "$work/bc-trace.csv" >"$work/bc-bursts"
	tr ' ' '\n' <"$work/bc-bursts" | cut -d: -f2 | sort -n | tail -1 >"$work/bc-request-max"
	say "the trace's bursts of demand, at ms:CPU us: $(cat "$work/bc-bursts")"
	say "trace: $trace_us us of CPU, $thr throttled periods; the workload's own cpu.stat: ${spin_us:-?} us"
	# It ran from the warm-up to the tail: all the CPU the workload measured
	# (8 requests of 30 ms at least) and not much more: reading its cpu.stat
	# and printing its line take a millisecond or two, but a stall TCG
	# charges in that time counts too (up to 40 ms seen): a quarter more.
	grep -q '^# ended: interrupted' "$work/bc-trace.csv" && ((thr == 0)) &&
		((spin_us >= 8 * 30000 && trace_us >= spin_us && trace_us <= spin_us * 5 / 4))
}

# bc_pool_bounds TRACE: "LO HI", the pool (quota + burst) that a replay of
# TRACE at BC_Q/BC_P needs to run without a throttle lies in [LO, HI] at any
# phase of the period, by the token bucket alone: a pool capped at C runs
# dry exactly when some stretch asks for more than C plus the refills that
# fall inside it. Samples i..j hold demand that came somewhere in
# (t[i-1], t[j]]: it spans at least t[j-1] - t[i], so at least
# floor(that / period) refills fall inside it whatever the phase (HI), and
# at most t[j] - t[i-1], so at most ceil(that / period) (LO). It is not the
# model's replay: it knows nothing of phases, onset or how a sample's
# demand is spread.
bc_pool_bounds() {
	awk -F, -v q="$BC_Q" -v p="$BC_P" '
		/^[0-9]/ { if (n++ && $2 > 0) { m++; t0[m] = prev; t1[m] = $1; d[m] = $2 } prev = $1 }
		END {
			lo = hi = 0
			for (i = 1; i <= m; i++) {
				s = 0
				for (j = i; j <= m; j++) {
					s += d[j]
					span = j > i ? t0[j] - t1[i] : 0
					if (span < 0) span = 0
					v = s - int(span / p) * q
					if (v > hi) hi = v
					span = t1[j] - t0[i]
					v = s - int((span + p - 1) / p) * q
					if (v > lo) lo = v
				}
			}
			print lo, hi
		}' "$1"
}

t_bc_advise() { # burstctl advise: the smallest burst for quota 10 ms / 100 ms, within the pool the trace's demand needs
	local json b low=$BC_LOW row best worst lo hi
	bc_load bc-trace.csv || return 1
	$BC advise "$work/bc-trace.csv" --quota "$BC_Q" --period "$BC_P" >"$work/bc-advise" 2>&1 ||
		{ say "advise: $(cat "$work/bc-advise")"; return 1; }
	sed 's/^/  /' "$work/bc-advise" >&3
	json=$($BC advise "$work/bc-trace.csv" --quota "$BC_Q" --period "$BC_P" --json)
	b=$(sed -n 's/.*"burst_us":\([0-9]*\),"quota_without_burst_us".*/\1/p' <<<"$json")
	[[ -n $b ]] || { say "no burst_us in $json"; return 1; }
	json=$($BC advise "$work/bc-trace.csv" --quota "$BC_Q" --period "$BC_P" --bursts "$low" --json)
	row=$(grep -o "{\"burst_us\":$low,\"throttled_periods\":{\"worst\":[0-9]*,\"best\":[0-9]*}" <<<"$json")
	worst=$(sed -n 's/.*"worst":\([0-9]*\).*/\1/p' <<<"$row")
	best=$(sed -n 's/.*"best":\([0-9]*\).*/\1/p' <<<"$row")
	say "advice: burst $b us; at $low us the model predicts $best to $worst throttled periods for the recorded demand"
	[[ -n $worst && -n $best ]] || return 1
	echo "$b $low $best $worst" >"$work/bc-advice"
	# The advice is the model's; the bounds are the trace's own (above). A
	# pool of quota + B outside them is advice for another demand. (1 us:
	# advise answers in whole microseconds.)
	read -r lo hi < <(bc_pool_bounds "$work/bc-trace.csv")
	say "quota + B = $((BC_Q + b)) us; the trace's demand needs a pool of $lo to $hi us"
	((BC_Q + b >= lo - 1 && BC_Q + b <= hi + 1))
}

t_bc_burst() { # the workload with the advised --cpu-burst B: 0 throttled periods (ours); stock refuses burst > quota
	local b low best worst most try thr within
	bc_load bc-advice && read -r b low best worst <"$work/bc-advice" || return 1
	if [[ $expect == stock ]]; then
		bc_refused e2e-bc-b --cpu-quota "$BC_Q" --cpu-period "$BC_P" --cpu-burst "$b"
		return
	fi
	# The advice holds for the demand the trace showed. A run one of whose
	# requests cost more than the trace's largest burst of demand (the
	# spin is fixed: TCG charged it a stall) asked for more than the
	# advice covers: it is shown with the model for its own requests and
	# run again, up to 3 runs in all, whatever it throttled. That is the
	# only reason to run again: a run within the trace's demand must show
	# 0 throttled periods, at once.
	for try in 1 2 3; do
		bc_run e2e-bc-b "$b" || return 1
		# Shown; judged below only when no run stayed within the demand.
		within=0
		bc_compare e2e-bc-b "$b" || within=1
		read -r thr model <"$work/e2e-bc-b.cmp"
		most=$(bc_requests e2e-bc-b | sort -n | tail -1)
		((most > $(cat "$work/bc-request-max"))) || break
		say "run $try stalled: a request cost $most us, more than the trace's largest burst of demand ($(cat "$work/bc-request-max") us)${thr:+; $thr throttled periods, the model for its requests $model}"
	done
	if ((most > $(cat "$work/bc-request-max"))); then
		# Three runs asked for more than the advice covers: the advice cannot
		# be judged on them, the kernel can. The last run's throttled periods
		# must be within BC_TOLERANCE of the model's for its own requests
		# (t_bc_below's rule); a kernel that caps burst throttles every request.
		say "no run within the trace's demand: the last run judged by the model for its own requests: $thr throttled, the model $model (tolerance $BC_TOLERANCE)"
		return "$within"
	fi
	((thr == 0))
}

t_bc_below() { # with burst 5 ms: throttled periods within 2 of the model's for the run's own requests (ours), throttled (stock)
	local b low best worst
	bc_load bc-advice && read -r b low best worst <"$work/bc-advice" || return 1
	bc_run e2e-bc-low "$low" || return 1
	if [[ $expect == stock ]]; then
		# The model is of our series' refill rule, not of stock's.
		(($(field nr_throttled "$(cat "$work/e2e-bc-low")") > 0))
		return
	fi
	say "for the recorded demand, advise predicted $best to $worst throttled periods at this burst"
	bc_compare e2e-bc-low "$low"
}

# Development only (burstcfs.e2e.only=t_bc_record,t_bc_advise,t_bc_sweep
# burstcfs.e2e.bc_bursts=0,5000,...): the model against the kernel at
# several bursts, each compared as t_bc_below compares its one.
t_bc_sweep() { # model vs kernel throttled periods at the bursts of burstcfs.e2e.bc_bursts
	local bursts b row rc=0
	bursts=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^burstcfs.e2e.bc_bursts=//p')
	[[ -n $bursts ]] && bc_load bc-trace.csv || return 1
	for b in ${bursts//,/ }; do
		row=$($BC advise "$work/bc-trace.csv" --quota "$BC_Q" --period "$BC_P" --bursts "$b" --json |
			grep -o '"throttled_periods":{"worst":[0-9]*,"best":[0-9]*}')
		bc_run "e2e-bc-sweep-$b" "$b" || { rc=1; continue; }
		bc_compare "e2e-bc-sweep-$b" "$b" || rc=1
		say "SWEEP burst $b: kernel, own-demand model: $(cat "$work/e2e-bc-sweep-$b.cmp"); recorded demand: $row"
	done
	return $rc
}

# The boot-time node label (tools/burstctl/node/), as the image installs it.
BC_LABEL=/usr/lib/burst-e2e/burstctl-node-label
SWITCH=/proc/sys/kernel/sched_cfs_bw_burst_enabled

# bc_check_run WANT_RC: burstctl check's lines and JSON in $work/bc-check.{out,json,err};
# 0 when both exit WANT_RC and stderr has one line exactly when it failed.
bc_check_run() {
	local rc=0 jrc=0
	$BC check >"$work/bc-check.out" 2>"$work/bc-check.err" || rc=$?
	$BC check --json >"$work/bc-check.json" 2>/dev/null || jrc=$?
	sed 's/^/  /' "$work/bc-check.out" "$work/bc-check.err" >&3
	say "json: $(cat "$work/bc-check.json")"
	((rc == $1 && jrc == $1)) || { say "check exited $rc, --json $jrc; $1 wanted"; return 1; }
	[[ $(wc -l <"$work/bc-check.err") == $(($1 ? 1 : 0)) ]] || { say "stderr is not $(($1 ? 1 : 0)) line"; return 1; }
}
# bc_label WANT_RC: the label script on a features.d of $work's, which holds
# a stale label first; 0 when it exits WANT_RC with the label there
# (WANT_RC 0) or gone (1).
bc_label() {
	local dir=$work/features.d rc=0
	mkdir -p "$dir"
	echo "burst-cfs.example/cpu-burst=true" >"$dir/burst-cfs"
	BURSTCTL_FEATURES_DIR=$dir "$BC_LABEL" >"$work/label.out" 2>&1 || rc=$?
	say "label: exit $rc: $(cat "$work/label.out")"
	if (($1)); then
		((rc == 1)) && [[ ! -e $dir/burst-cfs ]]
	else
		((rc == 0)) && grep -qx 'burst-cfs.example/cpu-burst=true' "$dir/burst-cfs"
	fi
}

t_bc_check() { # burstctl check: ours passes, says the switch as the kernel has it, fails with it off; stock fails naming the series; the NFD label follows
	local was
	if [[ $expect == stock ]]; then
		bc_check_run 1 || return 1
		grep -qx "burstctl check: kernel $(uname -r) does not carry the burst-cfs series (no $SWITCH)" "$work/bc-check.err" &&
			grep -q '"ok":false,.*"series":false,' "$work/bc-check.json" || { say "not the missing series"; return 1; }
		bc_label 1
		return
	fi
	was=$(cat "$SWITCH")
	[[ $was == 1 ]] || { say "the switch is $was at boot, not on"; return 1; }
	bc_check_run 0 || return 1
	grep -q "^kernel: *$(uname -r): carries the burst-cfs series" "$work/bc-check.out" &&
		grep -q '^switch: .* = 1 (on)$' "$work/bc-check.out" &&
		grep -q '"ok":true,.*"series":true,.*"switch":true,.*"crun":{"path":"/usr/bin/crun",.*"burst":true}' "$work/bc-check.json" ||
		{ say "not our kernel, the switch on and our crun"; return 1; }
	bc_label 0 || return 1
	# The switch off, as the kernel has it: check and the label follow.
	echo 0 >"$SWITCH"
	local rc=0
	bc_check_run 1 && grep -q 'switch is off (kernel.sched_cfs_bw_burst_enabled = 0)' "$work/bc-check.err" &&
		bc_label 1 || rc=1
	echo "$was" >"$SWITCH"
	[[ $(cat "$SWITCH") == "$was" ]] || { say "could not turn the switch back on"; return 1; }
	return $rc
}

burstctl_tests=(t_bc_record t_bc_advise t_bc_burst t_bc_below t_bc_check)
