#!/bin/bash
# scripts/node-kernel-check.sh has teeth: the node configuration passes, and
# each copy of it with one option a node needs taken out fails, naming that
# option (one from check-config.sh's Generally Necessary, one from its
# network drivers, three of the list the script adds: a kube-proxy match,
# BTF, which node.config once turned off, and PSI); so does the guests'
# tinyconfig-based kernel, which is not a node kernel. TAP.
# Usage: tests/node/check-config-teeth.sh NODE_CONFIG GUEST_CONFIG
set -euo pipefail

node=$1 guest=$2
check=$(cd "$(dirname "$0")/../.." && pwd)/scripts/node-kernel-check.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
result() { # result OK DESCRIPTION
	n=$((n + 1))
	if (($1)); then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

"$check" "$node" >"$tmp/out" 2>&1 && ok=1 || ok=0
result $ok "the node configuration passes: $(tail -1 "$tmp/out")"
for opt in CONFIG_VETH CONFIG_VXLAN CONFIG_NETFILTER_XT_MATCH_STATISTIC CONFIG_DEBUG_INFO_BTF CONFIG_PSI; do
	grep -q "^$opt=" "$node" || { result 0 "$opt is in the node configuration"; continue; }
	sed "s/^$opt=.*/# $opt is not set/" "$node" >"$tmp/config"
	"$check" "$tmp/config" >"$tmp/out" 2>&1 && rc=0 || rc=$?
	result $((rc != 0 && $(grep -c "^  $opt " "$tmp/out") == 1)) \
		"without $opt it fails naming it (exit $rc: $(grep "^  $opt " "$tmp/out" | head -1 | sed 's/^ *//'))"
done
if [[ -f $guest ]]; then
	"$check" "$guest" >"$tmp/out" 2>&1 && rc=0 || rc=$?
	result $((rc != 0)) "the guests' kernel is not a node kernel (exit $rc, $(grep -c '^  ' "$tmp/out") options missing)"
else
	echo "# not compared with the guests' configuration: no $guest (its bzImage came from the cache)"
fi
echo "1..$n"
((failed == 0))
