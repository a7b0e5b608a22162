#!/bin/bash
# The crun host tests (no container runs here): crun's own unit tests of CPU
# burst built with the package, its command line, the oci-spec examples.
# Prints their TAP and a final "crun: N passed, N failed".
# Usage: tests/crun/run-host-tests.sh BUILD_DIR   (what scripts/crun-build.sh made)
set -euo pipefail

build=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for f in "$build/crun.deb" "$build/tests_libcrun_cpu_burst"; do
	[[ -e $f ]] || { echo "crun-host-tests: $f missing (make crun)" >&2; exit 1; }
done

passed=0 failed=0
run() { # run NAME COMMAND...
	local name=$1 line
	shift
	echo "# $name"
	while IFS= read -r line; do
		echo "$line"
		case $line in
		"ok "*) passed=$((passed + 1)) ;;
		"not ok "*) failed=$((failed + 1)) ;;
		esac
	done < <("$@" 2>&1 || echo "not ok - $name exited non-zero")
}
run "unit tests (tests_libcrun_cpu_burst)" "$build/tests_libcrun_cpu_burst"
run "command line (test-cli.sh)" "$here/test-cli.sh" "$build/crun.deb"
run "oci-spec examples (check-examples.py)" python3 "$here/check-examples.py" "$top/oci-spec" "$build/tests_libcrun_cpu_burst"
echo "crun: $passed passed, $failed failed"
((failed == 0 && passed > 0))
