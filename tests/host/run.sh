#!/bin/bash
# Run every host test (tests/host/test-*.sh); each prints TAP lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
for t in "$here"/test-*.sh; do
	while IFS= read -r line; do
		echo "$line"
		case $line in
		"ok "*) passed=$((passed + 1)) ;;
		"not ok "*) failed=$((failed + 1)) ;;
		esac
	done < <("$t" 2>&1 || echo "not ok - $(basename "$t") exited non-zero")
done
echo "host: $passed passed, $failed failed"
((failed == 0 && passed > 0))
