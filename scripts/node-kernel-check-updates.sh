#!/bin/bash
# Whether Debian has a newer linux-source-6.1 than the node kernel's last
# build (bookworm-security publishes each kernel update there; our build
# sorts below it and nodes boot Debian's until ours is rebuilt on it), and
# what to run. Reads the archive through the build root's apt after an
# `apt-get update` (the root's own lists only: the host is not touched).
# Usage: scripts/node-kernel-check-updates.sh BUILD_INFO...
#   BUILD_INFO  scripts/node-kernel.sh's build.info files (the clone's last
#               build and the kept ones); the newest version among them is
#               "the last build". None: there is no build yet.
# Prints one line "node-kernel-check-updates: ..." per finding; the last
# starts with "up to date:" or "UPDATE:". Exit 0 either way, 1 when the
# archive cannot be read.
set -euo pipefail

tag=node-kernel-check-updates
pkg=linux-source-6.1
flavour=${NODE_FLAVOUR:-cloud-amd64}

last_version='' last_source='' last_release=''
for info in "$@"; do
	[[ -s $info ]] || continue
	v=$(sed -n 's/^version //p' "$info")
	if [[ -z $last_version ]] || dpkg --compare-versions "$v" gt "$last_version"; then
		last_version=$v
		last_source=$(sed -n 's/^source //p' "$info")
		last_release=$(sed -n 's/^release //p' "$info")
	fi
done

if ! apt-get -q update >/tmp/$tag.log 2>&1; then
	echo "$tag: apt-get update failed in the build root:" >&2
	sed 's/^/    /' /tmp/$tag.log >&2
	exit 1
fi
policy=$(apt-cache policy "$pkg")
candidate=$(sed -n 's/^ *Candidate: //p' <<<"$policy")
installed=$(sed -n 's/^ *Installed: //p' <<<"$policy")
[[ -n $candidate && $candidate != "(none)" ]] ||
	{ echo "$tag: the archive has no $pkg (the build root's apt sources?)" >&2; exit 1; }
# Where the candidate comes from: the line under its version in the table.
suite=$(awk -v v="$candidate" '$0 ~ "^ *(\\*\\*\\* )?" v " " { f = 1; next } f && /^ +[0-9]+ / { print $3; exit }' <<<"$policy")
abi=$(apt-cache show "linux-image-$flavour=$candidate" 2>/dev/null |
	sed -n "s/^Depends:.*linux-image-\(6\.1\.0-[0-9]*\)-$flavour .*/\1/p" | head -1)
echo "$tag: the archive's $pkg: $candidate${suite:+ ($suite)}${abi:+, ABI $abi-$flavour}; the build root has ${installed:-none}"

run="scripts/in-root.sh build apt-get install -y $pkg linux-config-6.1 && make node-kernel repo"
if [[ -z $last_version ]]; then
	echo "$tag: UPDATE: no node kernel built yet: make node-kernel repo"
elif dpkg --compare-versions "$candidate" gt "$last_source"; then
	echo "$tag: UPDATE: $candidate is newer than $last_source of the last build ($last_version, $last_release): nodes boot Debian's kernel once it is installed there. Run: $run"
else
	echo "$tag: up to date: the last build ($last_version, $last_release) is on $last_source, the archive's newest"
fi
