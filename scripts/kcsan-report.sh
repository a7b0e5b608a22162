#!/bin/bash
# The verdict of make test-kcsan: the stress suite on the KCSAN kernel.
# Usage: scripts/kcsan-report.sh RESULTS/NAME RUNNER_RC
#   RESULTS/NAME  what tests/qemu/run-guest.sh wrote (NAME.log.txt, NAME.result)
#   RUNNER_RC     its exit status: it fails on every 'BUG: KCSAN:' line,
#                 mainline's own races included, so it is not the verdict
#
# Fails when the guest did not finish (no GUEST-RESULT rc=0), a test failed
# or the TAP plan is short, the kernel reported anything but a KCSAN data
# race (the runner's patterns), the runner failed with no KCSAN report to
# explain it, or a KCSAN report involves the series: one of the functions
# below is the racing function or one of the two frames under it, on
# either side. Every other report is listed with how often it came
# (CONFIG_KCSAN_REPORT_ONCE_IN_MS: a pair at most once per 10 s), not failed.
# Rewrites NAME.result ("passed failed") with this verdict for summary.sh.
set -euo pipefail
. "$(dirname "$0")/../tests/lib/verdict.sh"

base=$1 runner_rc=$2
log=$base.log.txt name=$(basename "$base")
say() { echo "kcsan-report: $name: $*"; }

# The functions the series adds or changes (kernel/*.patch)...
changed_funcs=(
	cfs_bandwidth_buffer cfs_bandwidth_credit cfs_bandwidth_onset cfs_bandwidth_available
	__refill_cfs_bandwidth_runtime __refill_cfs_bandwidth_idle_periods __set_cfs_bandwidth_pool
	__assign_cfs_rq_runtime __return_cfs_rq_runtime do_sched_cfs_period_timer sched_cfs_period_timer
	tg_set_cfs_bandwidth cpu_max_fields cpu_max_usec cpu_period_quota_parse cpu_max_write
	cfs_bandwidth_stat_read cpu_cfs_stat_show cpu_extra_stat_show
)
# ...and the mainline ones that read or write the same cfs_bandwidth fields
# (quota, burst, period, runtime and its snapshot, the period timer) or that
# the series' static helpers may be inlined into (gcc 12 inlines
# __return_cfs_rq_runtime into dequeue_entity): a race on those fields shows
# up in one of them.
field_funcs=(
	dequeue_entity
	assign_cfs_rq_runtime __account_cfs_rq_runtime return_cfs_rq_runtime
	do_sched_cfs_slack_timer sched_cfs_slack_timer start_cfs_bandwidth start_cfs_slack_bandwidth
	runtime_refresh_within throttle_cfs_rq unthrottle_cfs_rq distribute_cfs_runtime
	update_runtime_enabled init_cfs_bandwidth destroy_cfs_bandwidth
	tg_set_cfs_quota tg_set_cfs_period tg_set_cfs_burst tg_get_cfs_quota tg_get_cfs_period
	tg_get_cfs_burst normalize_cfs_quota tg_cfs_schedulable_down __cfs_schedulable
	cpu_period_quota_print cpu_max_show cpu_cfs_quota_read_s64 cpu_cfs_quota_write_s64
	cpu_cfs_period_read_u64 cpu_cfs_period_write_u64 cpu_cfs_burst_read_u64 cpu_cfs_burst_write_u64
)

[[ -r $log ]] || { say "FAILED: no log $log (the guest never ran)" >&2; exit 1; }

# The reports. The console has every one (KCSAN prints at KERN_ERR) but
# not their stack traces (printed at the default level, under loglevel=4);
# the kernel log the init dumps at the end (lines prefixed KLOG) has the
# traces but may have wrapped. Each copy is parsed on its own and the two
# are merged by the report's timestamp. Output: "S" or "O" (series or
# other), a tab, the title without offsets (for S: a tab, the functions that
# matched, then the whole report).
reports=$(awk -v changed="${changed_funcs[*]}" -v fields="${field_funcs[*]}" '
	BEGIN {
		n = split(changed, f, " "); for (i = 1; i <= n; i++) series[f[i]] = "changed by the series"
		n = split(fields, f, " "); for (i = 1; i <= n; i++) series[f[i]] = "mainline, same fields"
	}
	function match_fn(k, fn) {
		sub(/\..*/, "", fn)	# foo.isra.0, foo.cold
		if (!(fn in series) || index(hit[k], fn " (")) return
		hit[k] = hit[k] (hit[k] == "" ? "" : ", ") fn " (" series[fn] ")"
	}
	function finish(s) {
		if (cur[s] == "") return
		cur[s] = ""
	}
	/^GUEST-DMESG / { next }	# grep output of an older init: a partial copy
	{ s = sub(/^KLOG /, "") ? "klog" : "console" }
	{ ts = match($0, /^\[ *[0-9]+\.[0-9]+\] /) ? substr($0, 1, RLENGTH) : ""; $0 = substr($0, RLENGTH + 1) }
	/BUG: KCSAN: / {
		finish(s)
		k = ts != "" ? ts : "#" (++nth[s])
		if (!(k in title)) {
			order[++n_reports] = k
			t = substr($0, index($0, "BUG: KCSAN: ") + 12)
			gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", t)
			title[k] = t
			m = split(substr(t, index(t, " in ") + 4), fns, " / ")
			for (i = 1; i <= m; i++) match_fn(k, fns[i])
		}
		cur[s] = k; txt[s] = ""; frames[s] = -1; done[s] = 0
	}
	cur[s] == "" { next }
	{
		k = cur[s]; txt[s] = txt[s] "    " $0 "\n"
		if (length(txt[s]) > length(text[k])) text[k] = txt[s]
	}
	/ of [0-9]+ bytes by / { frames[s] = 0; next }
	frames[s] >= 0 && /^ [^ ]+\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
		if (++frames[s] <= 3) { fn = $1; sub(/\+.*/, "", fn); match_fn(k, fn) }
		next
	}
	{ frames[s] = -1 }
	/^Reported by Kernel Concurrency Sanitizer/ { done[s] = 1; next }
	done[s] && /^=+$/ { finish(s) }
	END {
		for (i = 1; i <= n_reports; i++) {
			k = order[i]
			print (hit[k] != "" ? "S" : "O") "\t" title[k] (hit[k] != "" ? "\t" hit[k] : "")
			if (hit[k] != "") printf "%s", text[k]
		}
	}
' "$log")

n_all=$(grep -c $'^[SO]\t' <<<"$reports" || true)
n_series=$(grep -c $'^S\t' <<<"$reports" || true)
say "$n_all KCSAN reports: $n_series in the series' code or its cfs_bandwidth fields, $((n_all - n_series)) elsewhere"
if ((n_series)); then
	say "in the series' code (these fail the run):"
	awk -F'\t' '/^S\t/ { print "  " $2 ": " $3; next } /^[O]\t/ { next } { print }' <<<"$reports"
fi
if ((n_all - n_series)); then
	say "elsewhere in the kernel (mainline's own races, listed, not failed):"
	sed -n $'s/^O\t//p' <<<"$reports" | sort | uniq -c | sort -rn | sed -E 's/^ *([0-9]+) /  \1x /'
fi

# The runners' verdict (tests/lib/verdict.sh), except that KCSAN's data
# races are judged above: the complaints are the other reports.
verdict "$log" 0 0 GUEST-RESULT "$log"
problems=("${problems[@]/kernel reported*/}")
other=$(grep -v 'BUG: KCSAN: ' <<<"$complaints" || true)
[[ -z $other ]] || problems+=("kernel reported more than data races: $(head -3 <<<"$other" | tr '\n' ' ')")
((runner_rc == 0 || n_all > 0)) || problems+=("run-guest.sh failed (status $runner_rc) with no KCSAN report to explain it")
((n_series == 0)) || problems+=("$n_series KCSAN reports in the series' code")

grep -E '^(not ok|Bail out)' "$log" | sed "s/^/kcsan-report: $name: /" || true
mapfile -t problems < <(printf '%s\n' "${problems[@]}" | grep -v '^$' || true)
if ((${#problems[@]})); then
	echo "$passed $((failed > 0 ? failed : 1))" >"$base.result"
	say "FAILED: ${problems[*]/%/;}" >&2
	exit 1
fi
echo "$passed 0" >"$base.result"
((runner_rc == 0)) || say "(run-guest.sh's failure above is its check for any BUG: line; only KCSAN reports elsewhere caused it)"
say "PASSED: $passed tests ok, no data race in the series' code"
