#!/bin/bash
# The shape of what `make demo` prints (stdin), as TAP: no line of a
# guest's kernel log; for our kernel and Debian's, the bare-cgroup table
# with each of its rows; and, when the container part is there, its table
# with each row of each kernel. Numbers are not judged here (the suites do
# that): only that a person sees the demo and nothing else.
# Usage: make demo | tests/demo/check-shape.sh
set -euo pipefail

text=$(cat)
n=0 failed=0
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; failed=$((failed + 1)); fi
}
absent() { ! grep -qE "$1" <<<"$text"; }
# re TEXT: TEXT as an extended regular expression that matches only itself.
re() { sed 's/[][().+*?^$|{}\\]/\\&/g' <<<"$1"; }
# section TITLE-REGEX: the lines from that heading to the next "== " one.
section() { awk -v t="$1" '/^== / { on = ($0 ~ t) } on' <<<"$text"; }
row_in() { # SECTION-REGEX ROW-REGEX
	section "$1" | grep -qE "^ +$(re "$2") +([0-9]+ +[0-9]+ +[0-9]+ +[0-9]+|cpu\\.max\\.burst=[0-9]+ refused: .+)$"
}

check "no kernel log line (KLOG or a dmesg timestamp)" absent '^ *(KLOG |\[ *[0-9]+\.[0-9]+\] )'
check "no harness marker (GUEST-...)" absent '^ *GUEST-'
for kernel in "Our kernel" "Debian's stock"; do
	for row in "no burst" "burst = quota (10 ms)" "burst = 3 x quota (30 ms)" "quota 20ms/100ms, burst 20ms"; do
		check "$kernel, bare cgroup: the row '$row'" row_in "^== $kernel" "$row"
	done
done
if grep -q '^kernel  *container' <<<"$text"; then
	table=$(sed -n '/^kernel  *container/,$p' <<<"$text")
	for kernel in "ours (burst-cfs)" "Debian stock"; do
		rows=("no limit" "quota 10ms/100ms" "quota + burst 40ms" "quota 25ms/250ms + burst 25ms" "quota + advised burst")
		[[ $kernel == Debian* ]] && rows+=("quota + burst 10ms (stock max)")
		for row in "${rows[@]}"; do
			check "$kernel, container: the row '$row'" grep -qE "^$(re "$kernel") +$(re "$row") +([0-9]+ ms|-) +([0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+|refused: .+)$" <<<"$table"
		done
	done
fi
echo "demo-shape: $((n - failed)) passed, $failed failed"
((failed == 0))
