# TAP for the shell tests: `ok DESCRIPTION COMMAND...` prints "ok N - ..."
# when COMMAND succeeds, "not ok N - ..." otherwise. Sourced.
# shellcheck shell=bash

tap_n=0
ok() {
	local what=$1
	shift
	tap_n=$((tap_n + 1))
	if "$@"; then echo "ok $tap_n - $what"; else echo "not ok $tap_n - $what"; fi
}
