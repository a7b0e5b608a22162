#!/bin/bash
# `make test`'s look at the demo: the bare-cgroup part of `make demo`
# (scripts/demo.sh) booted for real on both kernels, its output judged by
# tests/demo/check-shape.sh, the result where scripts/summary.sh adds it up
# (RESULTS_DIR/demo-shape.{log,result}). The container part is the image's
# demo; its rows are checked in tests/host/test-demo-output.sh.
# Usage: tests/demo/run.sh OUR_KERNEL DEBIAN_KERNEL INITRAMFS
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
results=${RESULTS_DIR:-$top/build/results}
mkdir -p "$results"
rm -f "$results/demo-shape.result"
start=$SECONDS
rc=0
"$top/scripts/demo.sh" "$@" >"$results/demo-shape.demo.txt" 2>&1 || rc=$?
"$top/tests/demo/check-shape.sh" <"$results/demo-shape.demo.txt" >"$results/demo-shape.log" 2>&1 || true
passed=$(grep -c '^ok ' "$results/demo-shape.log" || true)
failed=$(grep -c '^not ok ' "$results/demo-shape.log" || true)
if ((rc != 0)); then
	echo "not ok - scripts/demo.sh exited $rc" >>"$results/demo-shape.log"
	failed=$((failed + 1))
fi
echo "$passed $failed" >"$results/demo-shape.result"
echo "demo-shape: $passed passed, $failed failed ($((SECONDS - start)) s; make demo's bare part in $results/demo-shape.demo.txt)"
if ((failed)); then
	grep '^not ok' "$results/demo-shape.log" | sed 's/^/    /'
	sed 's/^/    | /' "$results/demo-shape.demo.txt" | tail -30
	exit 1
fi
