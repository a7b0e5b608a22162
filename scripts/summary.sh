#!/bin/bash
# Add up the guest suites' results (RESULTS_DIR/*.result: "passed failed").
set -euo pipefail
passed=0 failed=0
shopt -s nullglob
for f in "$1"/*.result; do
	read -r p f_ <"$f"
	printf 'summary: %-20s %4d passed, %d failed\n' "$(basename "$f" .result)" "$p" "$f_"
	passed=$((passed + p)) failed=$((failed + f_))
done
echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
