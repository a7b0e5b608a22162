#!/bin/bash
# scripts/lib/progress.sh: wait_progress returns when the job ends, not at
# its next progress line; it prints progress while the job runs; a
# progress command may end the job.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib/progress.sh"

ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }
calls=0
count() { calls=$((calls + 1)); }

(sleep 2; exit 3) &
job=$!
t0=$SECONDS
wait_progress "$job" 30 count
took=$((SECONDS - t0))
desc="a 2 s job with a 30 s progress interval: back in ${took} s, no progress line"
ok test "$took" -le 4 -a "$calls" -eq 0
rc=0
wait "$job" || rc=$?
desc="the job's exit status is still there for wait (3: got $rc)"
ok test "$rc" -eq 3

calls=0
sleep 5 &
job=$!
wait_progress "$job" 2 count
desc="a 5 s job with a 2 s interval: progress $calls times (2 wanted, 1-3 on a busy host)"
ok test "$calls" -ge 1 -a "$calls" -le 3

killer() { kill "$job"; }
sleep 60 &
job=$!
t0=$SECONDS
wait_progress "$job" 1 killer
took=$((SECONDS - t0))
rc=0
wait "$job" || rc=$?
desc="a progress command that kills the job ends the wait (${took} s, exit $rc)"
ok test "$took" -le 5 -a "$rc" -eq 143
