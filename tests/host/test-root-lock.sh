#!/bin/bash
# scripts/root-create.sh twice at once on an empty cache, as two `make`s
# started together on a fresh machine run it: one makes the root; the other
# says it waits, naming the root and its lock, then uses that root without
# making it again; the root is whole and scripts/in-root.sh enters it.
# mmdebstrap is a stand-in (tests/host/stand-in/mmdebstrap) that writes
# into its target as the real one does, for seconds instead of 75 s and
# without the network; it holds half-way until the second creation has
# started, which would then have deleted the directory under it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
if ((EUID != 0)); then
	echo "not ok 1 - root is needed (root-create.sh and in-root.sh refuse a user)"
	exit 1
fi
tmp=$(mktemp -d /var/tmp/burst-root-lock.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf --one-file-system "$tmp"' EXIT
export BURST_CACHE=$tmp/cache STAND_IN_LOG=$tmp/mmdebstrap.log STAND_IN_GATE=$tmp/gate
export PATH=$top/tests/host/stand-in:$PATH
root=$BURST_CACHE/roots/build
touch "$STAND_IN_GATE"

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN.
wait_for() {
	local end=$((SECONDS + $3))
	until grep -q -- "$2" "$1" 2>/dev/null; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}

"$top/scripts/root-create.sh" build >"$tmp/first.out" 2>&1 &
first=$!
wait_for "$STAND_IN_LOG" mmdebstrap 30 || true
"$top/scripts/root-create.sh" build >"$tmp/second.out" 2>&1 &
second=$!
# Without the lock nothing waits: the gate opens after 10 s then.
wait_for "$tmp/second.out" waiting 10 || true
rm -f "$STAND_IN_GATE"
rc1=0 rc2=0
wait "$first" || rc1=$?
wait "$second" || rc2=$?
sed 's/^/# first: /' "$tmp/first.out"
sed 's/^/# second: /' "$tmp/second.out"

ok "both succeed (exit $rc1 and $rc2)" test "$rc1" -eq 0 -a "$rc2" -eq 0
ok "mmdebstrap ran once ($(wc -l <"$STAND_IN_LOG") runs)" test "$(wc -l <"$STAND_IN_LOG")" -eq 1
ok "the first made the root" grep -qF "root-build: $root ready (3 packages" "$tmp/first.out"
ok "the second said it waits for the other's root, naming it and the lock" \
	grep -qxF "root-build: waiting for another process making the build root ($root, lock $root.lock)" "$tmp/second.out"
ok "then used that root, making nothing" \
	eval 'grep -qxF "root-build: $root made meanwhile by the other process: using it" "$tmp/second.out" &&
		! grep -q "with mmdebstrap" "$tmp/second.out"'
ok "nothing half-made is left ($root.tmp)" test ! -e "$root.tmp"
# Twice at once: the root has no /etc/resolv.conf yet, which both put there.
enter() { "$top/scripts/in-root.sh" build bash -c 'echo "$BURST_ROOT $(echo /var/lib/dpkg/*)"' >"$tmp/enter-$1.out" 2>&1; }
enter 1 &
enter1=$!
enter 2 || true
wait "$enter1" || true
ok "scripts/in-root.sh enters it, twice at once ($(cat "$tmp/enter-1.out"); $(cat "$tmp/enter-2.out"))" \
	test "$(cat "$tmp/enter-1.out" "$tmp/enter-2.out")" = "build /var/lib/dpkg/status
build /var/lib/dpkg/status"
rc=0
out=$("$top/scripts/root-create.sh" build 2>&1) || rc=$?
ok "a third run finds it present ($out)" test "$rc" -eq 0 -a "$out" = "root-build: $root present"
