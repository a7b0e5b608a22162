#!/bin/bash
# Runs the harnesses mk/fuzz.mk builds (docs/fuzz.md).
# Usage: tests/fuzz/run.sh check FUZZDIR SRCDIR HARNESS...
#          replays SRCDIR/corpus/HARNESS/ with FUZZDIR/replay-HARNESS; prints
#          TAP, then `fuzz: N passed, N failed`; fails on any failure
#        tests/fuzz/run.sh fuzz FUZZDIR SRCDIR SECONDS HARNESS...
#          runs FUZZDIR/fuzz-HARNESS for SECONDS each, one after the other,
#          on the committed corpus plus what earlier runs found
#          (FUZZDIR/work/HARNESS/, where new inputs go: the committed corpus
#          is only read); prints one line per harness (executions, cov, ft,
#          corpus) from libFuzzer's final stats; fails on any crash, naming
#          the input libFuzzer saved (FUZZDIR/artifacts/HARNESS/)
set -euo pipefail

mode=${1:-} dir=${2:-} src=${3:-}
if ! [[ $mode == check || $mode == fuzz ]] || (($# < 4)); then
	echo "usage: $0 check FUZZDIR SRCDIR HARNESS... | fuzz FUZZDIR SRCDIR SECONDS HARNESS..." >&2
	exit 2
fi
shift 3

check() {
	local h n=0 passed=0 failed=0 start=$SECONDS line rc corpus
	for h; do
		corpus=$src/corpus/$h
		if ! compgen -G "$corpus/*" >/dev/null; then
			echo "not ok $((++n)) - $h: no corpus in $corpus"
			failed=$((failed + 1))
			continue
		fi
		# The replay's stderr (a sanitizer's report) comes just before the
		# line of the input that caused it.
		while IFS= read -r line; do
			case $line in
			"ok "*)
				passed=$((passed + 1))
				echo "ok $((++n)) - $h: ${line#ok "$corpus"/}"
				;;
			"not ok "*)
				failed=$((failed + 1))
				echo "not ok $((++n)) - $h: ${line#not ok "$corpus"/}"
				;;
			*) echo "# $line" ;;
			esac
		done < <("$dir/replay-$h" "$corpus")
		rc=0
		wait $! || rc=$?
		if ((rc != 0 && rc != 1)); then
			echo "not ok $((++n)) - $h: the replay itself failed (exit status $rc)"
			failed=$((failed + 1))
		fi
	done
	echo "1..$n"
	echo "# replayed in $((SECONDS - start)) s"
	echo "fuzz: $passed passed, $failed failed"
	((failed == 0))
}

# The value of libFuzzer's final `stat::NAME:` line in LOG.
final_stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }

fuzz() {
	local seconds=$1 h log work artifacts start rc last cov ft corp failed=() dict execs
	shift
	[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz: FUZZ_SECONDS must be a number of seconds, not '$seconds'" >&2; exit 2; }
	for h; do
		log=$dir/fuzz-$h.log
		work=$dir/work/$h
		artifacts=$dir/artifacts/$h
		mkdir -p "$work" "$artifacts"
		dict=()
		[[ -f $src/$h.dict ]] && dict=("-dict=$src/$h.dict")
		echo "fuzz-$h: fuzzing for $seconds s (log: $log)"
		start=$SECONDS
		rc=0
		# One process (no -jobs, no -workers): the machine is shared.
		"$dir/fuzz-$h" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
			-artifact_prefix="$artifacts/" "${dict[@]}" "$work" "$src/corpus/$h" >"$log" 2>&1 || rc=$?
		last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -1 || true)
		cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
		ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
		corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
		execs=$(final_stat number_of_executed_units "$log")
		printf 'fuzz-%s: %s executions in %d s, cov %s, ft %s, corpus %s (%s new this run; %s committed, %s in %s)\n' \
			"$h" "${execs:-?}" $((SECONDS - start)) "${cov:-?}" "${ft:-?}" "${corp:-?}" \
			"$(final_stat new_units_added "$log")" "$(find "$src/corpus/$h" -type f | wc -l)" \
			"$(find "$work" -type f | wc -l)" "$work"
		if ((rc != 0)); then
			failed+=("$h")
			echo "fuzz-$h: FAILED (exit status $rc); the end of $log:" >&2
			tail -60 "$log" | sed 's/^/    /' >&2
			grep -h 'Test unit written to' "$log" | sed "s/^/fuzz-$h: /" >&2 || true
		fi
	done
	if ((${#failed[@]})); then
		echo "fuzz: FAILED: ${failed[*]}" >&2
		exit 1
	fi
	echo "fuzz: no crash in $# harnesses"
}

"$mode" "$@"
