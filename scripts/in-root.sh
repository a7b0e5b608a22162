#!/bin/bash
# Run a command inside one of our Debian roots ($BURST_CACHE/roots/NAME,
# made by scripts/root-create.sh), in the caller's working directory.
# The clone, the cache, /tmp, /dev, /proc and /sys are at the same paths
# inside, so every path a caller passes means the same thing there; the
# host's /etc/resolv.conf is the root's (apt and mkosi download). The
# mounts live in a private mount namespace: the host sees none of them, and
# they end with the command, which this process becomes (signals reach it).
# Usage: scripts/in-root.sh NAME COMMAND [ARG...]
set -euo pipefail

(($# >= 2)) || { echo "usage: scripts/in-root.sh NAME COMMAND [ARG...]" >&2; exit 2; }
name=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")
root=$cache/roots/$name

[[ -f $root/.burst-root ]] ||
	{ echo "in-root: no '$name' root at $root: run 'make deps' on the host" >&2; exit 1; }
((EUID == 0)) || { echo "in-root: entering $root needs root (chroot, mount)" >&2; exit 1; }

# In the new mount namespace: bind what must be shared, then chroot.
# shellcheck disable=SC2016
enter='
set -euo pipefail
root=$1 cwd=$2 top=$3 cache=$4
shift 4
# The root a mount of its own: inside it "/" is then a mount point, which
# a nested scripts/in-root.sh (the build root running scripts/mkosi) needs
# to make its own namespace private.
mount --bind "$root" "$root"
bind() { # bind [--rbind] DIR: the host DIR at the same path inside
	local how=--bind
	[[ $1 == --rbind ]] && { how=--rbind; shift; }
	mkdir -p "$root$1"
	mount "$how" "$1" "$root$1"
}
bind --rbind /dev
bind --rbind /proc
bind --rbind /sys
bind /tmp
bind "$cache"
# A clone under the cache or /tmp is already there.
[[ $top == "$cache"/* || $top == /tmp/* ]] || bind "$top"
# A file to bind over. Two entering a root at once must not delete the
# one the other is binding over: each renames a file of its own there.
if [[ ! -e $root/etc/resolv.conf || -L $root/etc/resolv.conf ]]; then
	placeholder=$(mktemp "$root/etc/.resolv.conf.XXXXXX")
	chmod 644 "$placeholder"
	mv -fT "$placeholder" "$root/etc/resolv.conf"
fi
mount --bind /etc/resolv.conf "$root/etc/resolv.conf"
exec chroot "$root" /usr/bin/env -u OLDPWD \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	BURST_ROOT="$(basename "$root")" BURST_CACHE="$cache" \
	/bin/bash -c "cd \"\$1\" && shift && exec \"\$@\"" in-root "$cwd" "$@"
'
# A private namespace: the binds reach no other. Inside a root entered
# without its own mount (no mount point at "/"), unshare cannot change the
# propagation of "/"; there the namespace it was entered from is private
# already, and is copied as it is.
propagation=private
mountpoint -q / || propagation=unchanged
exec unshare --mount --propagation "$propagation" -- /bin/bash -c "$enter" enter-root "$root" "$PWD" "$top" "$cache" "$@"
