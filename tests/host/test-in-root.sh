#!/bin/bash
# scripts/in-root.sh: a command runs in the named root (BURST_ROOT set,
# its own /etc), in the caller's directory, with its exit status; the
# process it starts is the command itself (a signal reaches it); the
# caller's mounts are the same after it as before (its binds live in a
# private namespace); a missing root is named with what to do. Runs where
# `make check` runs, in the build root, and enters the mkosi root from there.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
in_root=$top/scripts/in-root.sh
cache=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")
if [[ ! -f $cache/roots/mkosi/.burst-root ]] || ((EUID != 0)); then
	echo "not ok 1 - the mkosi root at $cache/roots/mkosi and root are needed (make deps)"
	exit 1
fi

mounts_before=$(sort /proc/self/mountinfo | cut -d' ' -f4-)
cd "$top/tests"
out=$("$in_root" mkosi sh -c 'echo "$BURST_ROOT $(pwd) $(dpkg-query -W -f="\${Version}" mkosi)"')
ok "the command runs in the mkosi root, in the caller's directory ($out)" \
	eval '[[ $out == "mkosi $top/tests "24* ]]'
rc=0
"$in_root" mkosi sh -c 'exit 7' || rc=$?
ok "its exit status comes back (7: $rc)" test "$rc" -eq 7
mounts_after=$(sort /proc/self/mountinfo | cut -d' ' -f4-)
ok "the caller's mounts are as they were" test "$mounts_before" == "$mounts_after"

"$in_root" mkosi sleep 30 &
pid=$!
comm=
for _ in $(seq 50); do
	comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
	[[ $comm == sleep ]] && break
	sleep 0.1
done
ok "the process started is the command itself ($comm)" test "$comm" == sleep
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
ok "SIGTERM to it ends the command (status $rc)" test "$rc" -eq 143

rc=0
err=$(BURST_CACHE=/nonexistent "$in_root" mkosi true 2>&1) || rc=$?
ok "no root: exit 1 and what to do ($err)" eval '[[ $rc == 1 && $err == *"no '\''mkosi'\'' root at /nonexistent/roots/mkosi: run '\''make deps'\'' on the host"* ]]'
