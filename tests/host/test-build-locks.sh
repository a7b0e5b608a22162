#!/bin/bash
# The build locks: kernel builds in different object trees run side by side
# (make -j2 kernel kernel-debug), two in one object tree never do, and neither
# do a build and the tree preparation (scripts/lib/kbuild.sh's kbuild_lock,
# scripts/kernel-tree.sh); package steps take turns (scripts/lib/apt.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
export BURST_CACHE=$tmp/cache
src=$tmp/src
mkdir -p "$src"

ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }
fails() { ! "$@"; }

# holds OBJ SECONDS: a build holding its locks in OBJ; prints when it has them.
holds() {
	# shellcheck disable=SC2034 # read by kbuild.sh
	obj=$1
	. "$top/scripts/lib/kbuild.sh" >/dev/null
	kbuild_lock
	echo locked
	exec sleep "$2"
}
# locks_within OBJ SECONDS: does a second build get its locks that soon?
locks_within() {
	timeout "$2" bash -c "$(declare -f holds); top=$top src=$src; holds $1 0" 2>/dev/null | grep -q locked
}

holds "$tmp/obj-a" 30 >"$tmp/a.out" &
for _ in $(seq 50); do [[ -s $tmp/a.out ]] && break; sleep 0.1; done
desc="a build in another object tree gets its locks while one builds"
ok locks_within "$tmp/obj-b" 5
desc="a second build in the same object tree waits"
ok fails locks_within "$tmp/obj-a" 2
# scripts/kernel-tree.sh takes the source tree's lock alone.
desc="the tree preparation's lock waits for the build"
ok fails flock -n "$src.lock" true
# Its lock is exclusive unless it only checks an extracted tree (a scratch
# index): the one -s it may take is lock_mode's, set under that condition.
desc="scripts/kernel-tree.sh takes the source tree's lock exclusively, shared only for --check of an extracted tree"
exclusive_tree_lock() {
	grep -qE '^[^#]*flock -n "\$\{lock_mode\[@\]\}" 9' "$1" &&
		! grep -qE '^[^#]*flock -s' "$1" &&
		grep -qE '^\[\[ -z \$check_only \|\| ! -f \$src/\.pristine-id .*\]\] \|\| lock_mode=\(-s\)$' "$1"
}
ok exclusive_tree_lock "$top/scripts/kernel-tree.sh"
kill %1
wait %1 2>/dev/null || true
desc="once the build ends, the tree preparation gets it"
ok flock -w 5 "$src.lock" true

# kbuild_run's heartbeat sleeps on after the build: it must not keep the locks.
(
	# shellcheck disable=SC2034 # read by kbuild.sh
	obj=$tmp/obj-c tag=test
	. "$top/scripts/lib/kbuild.sh" >/dev/null
	kbuild_lock
	kbuild_run "$tmp/c.log" sleep 0.5 >/dev/null
)
desc="a finished build leaves its object tree's lock at once"
ok flock -n "$tmp/obj-c.lock" true
desc="and the source tree's"
ok flock -n "$src.lock" true

# Two package steps at once run one after the other.
steps() {
	# shellcheck disable=SC2034 # read by apt.sh
	tag=test-$1
	. "$top/scripts/lib/apt.sh"
	# Not root's lock in /run: a real package step would hold up the test.
	apt_lock=$tmp/apt.lock apt_log=$tmp/deps-$1.log
	step "step $1" bash -c "echo start >>$tmp/steps; sleep 2; echo end >>$tmp/steps"
}
steps one >"$tmp/one.out" &
steps two >"$tmp/two.out" &
wait
desc="two package steps at once take turns (start end start end)"
ok test "$(tr '\n' ' ' <"$tmp/steps")" = "start end start end "
desc="the one that waited said so"
ok grep -q 'waiting for another package step' "$tmp/one.out" "$tmp/two.out"
