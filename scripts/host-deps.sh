#!/bin/bash
# What `make deps` does to the host, and all of it: installs mmdebstrap
# from the host's own Debian sources, after apt-get's plan shows that the
# install upgrades and removes nothing (lib/host-plan.sh), and makes our two
# Debian roots with it under $BURST_CACHE/roots (scripts/root-create.sh),
# where everything else is installed. No apt source is added. The packages
# it installed are listed in $BURST_CACHE/host-added, which `make
# deps-remove` purges. Idempotent: a host that has it all prints two lines.
set -euo pipefail

tag=host-deps
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/apt.sh"
. "$top/scripts/lib/host-plan.sh"
cache=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")
host_pkgs=(mmdebstrap)
added=$cache/host-added

# The host's installed packages, sorted, one a line.
installed_packages() {
	dpkg-query -W -f='${db:Status-Status} ${Package}\n' | sed -n 's/^installed //p' | sort
}

mapfile -t missing < <(missing_packages "${host_pkgs[@]}")
host_lock= waited=
if ((${#missing[@]})); then
	need_root "missing on the host: ${missing[*]}"
	# Two makes started together on a fresh machine: one installs, the
	# other waits and finds it installed; and $added is rewritten by one
	# at a time (both wrote $added.tmp: the second mv would find it gone).
	mkdir -p "$cache"
	exec {host_lock}>>"$cache/host.lock"
	if ! flock -n "$host_lock"; then
		echo "$tag: waiting for another process installing ${missing[*]} on the host (lock $cache/host.lock)"
		flock "$host_lock"
		waited=1
	fi
	mapfile -t missing < <(missing_packages "${host_pkgs[@]}")
fi
if ((${#missing[@]})); then
	apt_update "to install $(packages ${#missing[@]}) on the host"
	host_plan_refuses_changes "${missing[@]}"
	touch "$added"
	before=$(mktemp)
	trap 'rm -f "$before"' EXIT
	installed_packages >"$before"
	apt_install "making our Debian roots (nothing else is installed on the host)" -- "${host_pkgs[@]}"
	# What this install added, for `make deps-remove`.
	installed_packages | comm -13 "$before" - | sort -u - "$added" >"$added.tmp"
	mv "$added.tmp" "$added"
	echo "$tag: the host gained $(packages "$(wc -l <"$added")"): $(some $(cat "$added")) (listed in $added)"
elif [[ -n $waited ]]; then
	echo "$tag: ${host_pkgs[*]} installed meanwhile by the other process"
else
	echo "$tag: ${host_pkgs[*]} present on the host"
fi
# The roots have locks of their own (scripts/root-create.sh).
[[ -z $host_lock ]] || exec {host_lock}>&-
# Side by side: each is mostly downloads and dpkg in its own root.
"$top/scripts/root-create.sh" build &
build=$!
rc=0
"$top/scripts/root-create.sh" mkosi || rc=$?
wait "$build" || rc=$?
exit $rc
