#!/bin/bash
# Make one of our Debian roots, $BURST_CACHE/roots/NAME, with mmdebstrap
# from the host's own Debian sources, unless it is there already. What the
# builds and tests need is installed there, never on the host: a host
# behind its archive would otherwise see its systemd, libcap2, perl... moved
# to the archive's versions by the exact-version dependencies of the -dev
# packages, and mkosi 24 would move its systemd to bookworm-backports' 254.
#   build  bookworm, as sbuild builds in: the top Makefile runs every
#          target in it, and scripts/deps.sh and its siblings install into it
#   mkosi  bookworm with mkosi 24 and the systemd 254 it needs from
#          bookworm-backports; only mkosi runs in it (scripts/mkosi)
# One line per step; mmdebstrap's output in build/logs/deps.log.
# Two at once (two `make`s started together on a fresh machine) take turns
# on the root's lock, $BURST_CACHE/roots/NAME.lock: the second says it
# waits, then finds the root the first made and uses it.
# Usage: scripts/root-create.sh NAME
set -euo pipefail

name=${1:?usage: scripts/root-create.sh build|mkosi}
tag=root-$name
. "$(dirname "$0")/lib/apt.sh"
# mmdebstrap runs its own apt and dpkg inside the new root: it takes no
# lock of the host's, so the two roots are made side by side.
apt_lock=
cache=$(realpath -m "${BURST_CACHE:-/var/cache/burst-cfs}")
root=$cache/roots/$name
host_sources=/etc/apt/sources.list.d/debian.sources

case $name in
build)
	# The rest comes from scripts/deps.sh and its siblings, run inside.
	variant=buildd
	include=(make git procps fdisk e2fsprogs file ca-certificates)
	extra=()
	why="bookworm, where every build and test runs"
	;;
mkosi)
	variant=apt
	# mkosi and systemd from backports (the pin below takes systemd's own
	# packages there too); what mkosi drives for a disk image and for
	# `mkosi qemu`, from bookworm.
	include=(mkosi e2fsprogs mtools dosfstools bubblewrap qemu-system-x86
		zstd cpio kmod fdisk debian-archive-keyring gnupg)
	extra=(backports)
	why="bookworm with mkosi 24 and systemd 254 from bookworm-backports"
	;;
*) echo "$tag: unknown root '$name' (known: build mkosi)" >&2; exit 2 ;;
esac

if [[ -f $root/.burst-root ]]; then
	echo "$tag: $root present"
	exit 0
fi
need_root "no $name root at $root"
# Held until this script ends: only its holder writes $root.tmp, so the
# holder's rm -rf never meets another mmdebstrap writing there.
lock=$root.lock
mkdir -p "$(dirname "$root")"
exec {root_lock}>>"$lock"
if ! flock -n "$root_lock"; then
	echo "$tag: waiting for another process making the $name root ($root, lock $lock)"
	flock "$root_lock"
fi
# The root is moved into place whole, so it is there or not.
if [[ -f $root/.burst-root ]]; then
	echo "$tag: $root made meanwhile by the other process: using it"
	exit 0
fi
command -v mmdebstrap >/dev/null || { echo "$tag: mmdebstrap missing (scripts/host-deps.sh installs it)" >&2; exit 1; }
# mkosi.conf names this file as the image's apt sources: the root has it too.
[[ -r $host_sources ]] || { echo "$tag: $host_sources not found: the roots use the host's Debian sources" >&2; exit 1; }

mirrors=("$host_sources") hooks=()
if [[ " ${extra[*]} " == *" backports "* ]]; then
	# bookworm-backports at the URI of the host's bookworm entry.
	uris=$(awk '
		/^[[:space:]]*$/ { if (bookworm && uris != "") print uris; uris = ""; bookworm = 0; next }
		/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") bookworm = 1 }
		END { if (bookworm && uris != "") print uris }' "$host_sources" | head -1)
	[[ -n $uris ]] || { echo "$tag: no bookworm entry in $host_sources" >&2; exit 1; }
	mirrors+=("deb $uris bookworm-backports main")

	# mkosi and the systemd it needs from backports, the rest from bookworm.
	hooks+=(--setup-hook='mkdir -p "$1/etc/apt/preferences.d" && printf "%s\n" \
		"Package: mkosi systemd systemd-* libsystemd* libudev* udev libnss-systemd libpam-systemd" \
		"Pin: release n=bookworm-backports" "Pin-Priority: 990" \
		>"$1/etc/apt/preferences.d/mkosi-backports.pref"')
fi

# mmdebstrap and what it starts do not keep the lock past this script.
unlocked() { "$@" {root_lock}>&-; }
rm -rf "$root.tmp"
step "making the $name root ($why) with mmdebstrap" \
	unlocked mmdebstrap --variant="$variant" --include="$(IFS=,; echo "${include[*]}")" "${hooks[@]}" \
	bookworm "$root.tmp" "${mirrors[@]}"
# mkosi.conf's PackageManagerTrees= names the host's file by its path.
cp "$host_sources" "$root.tmp/etc/apt/sources.list.d/debian.sources"
rm -f "$root.tmp/etc/apt/sources.list.d/0000debian.sources"
mkdir -p "$root.tmp/root"
{
	echo "name: $name"
	echo "made: $(date -u +%FT%TZ)"
	echo "packages: $(dpkg-query --admindir="$root.tmp/var/lib/dpkg" -W -f='${Package}\n' | wc -l)"
} >"$root.tmp/.burst-root"
mv "$root.tmp" "$root"
echo "$tag: $root ready ($(sed -n 's/^packages: //p' "$root/.burst-root") packages, $(du -sh "$root" | cut -f1))"
