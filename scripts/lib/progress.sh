# wait_progress PID SECONDS CMD...: while the background job PID runs, run
# CMD every SECONDS (it prints the progress line that keeps a long step
# visibly alive, and may kill PID); return as soon as PID has ended, not at
# the next progress line: a runner that slept its whole interval lost 7 s
# on average after every boot and build. The caller then `wait`s for PID's
# exit status. Sourced by the build scripts and the guest runners.
# shellcheck shell=bash

wait_progress() {
	local pid=$1 every=$2 next
	shift 2
	next=$((SECONDS + every))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		((SECONDS >= next)) || continue
		next=$((SECONDS + every))
		kill -0 "$pid" 2>/dev/null || break
		"$@"
	done
}
