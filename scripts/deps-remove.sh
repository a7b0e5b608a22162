#!/bin/bash
# Undo `make deps` on the host: delete our Debian roots and purge the host
# packages scripts/host-deps.sh recorded as its own additions
# ($BURST_CACHE/host-added). Earlier versions of make deps wrote apt
# sources of their own: those files go too. The rest of the cache (built
# kernels, .debs, ccache) stays; `rm -rf $BURST_CACHE` removes it.
set -euo pipefail

tag=deps-remove
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/apt.sh"
cache=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")
need_root "removing what make deps added"

for name in build mkosi; do
	root=$cache/roots/$name
	[[ -e $root || -e $root.tmp ]] || continue
	# A root being made (scripts/root-create.sh holds its lock) is deleted
	# once it is made, not under mmdebstrap.
	exec {root_lock}>>"$root.lock"
	flock -n "$root_lock" || { echo "$tag: waiting for the process making the $name root ($root.lock)"; flock "$root_lock"; }
	# A root is entered only in private mount namespaces, so nothing of the
	# host is mounted below it: --one-file-system guards against the rest.
	rm -rf --one-file-system "$root" "$root.tmp"
	echo "$tag: deleted the $name root ($root)"
	exec {root_lock}>&-
done
if [[ -s $cache/host-added ]]; then
	mapfile -t pkgs < <(while read -r p; do installed "$p" && echo "$p"; done <"$cache/host-added")
	if ((${#pkgs[@]})); then
		step "purging $(some "${pkgs[@]}") (what make deps installed on the host)" \
			apt-get "${apt_opts[@]}" purge -y "${pkgs[@]}"
	fi
	rm -f "$cache/host-added"
fi
for f in /etc/apt/sources.list.d/burst-cfs-src.sources /etc/apt/sources.list.d/burst-cfs-backports.sources; do
	[[ -e $f ]] || continue
	rm -f "$f"
	echo "$tag: deleted $f (written by an earlier make deps)"
done
echo "$tag: the host has none of make deps' additions left"
