#!/bin/bash
# Install, idempotently, what `make image` and `make e2e` need: mkosi 24.x
# from bookworm-backports (bookworm's mkosi 14 cannot build a bootable image
# here), the tools it drives, QEMU, and what builds the workload container.
# bookworm-backports comes from an apt source file of our own whose URIs are
# copied, at install time, from the host's existing Debian source; no existing
# source is edited. Installing mkosi moves the host's systemd/libsystemd0 to
# backports' 254: expected. One line per step; apt's output in
# build/logs/deps.log.
set -euo pipefail

tag=image-deps
. "$(dirname "$0")/lib/apt.sh"

backports_list=/etc/apt/sources.list.d/burst-cfs-backports.sources
host_sources=/etc/apt/sources.list.d/debian.sources
# mkosi from backports; the rest from bookworm. gnupg signs our repository
# (make repo), tmux drives `make vm` in `make test-vm`.
want=(mkosi mtools reprepro qemu-system-x86 busybox-static gcc libc6-dev
	systemd-container bubblewrap e2fsprogs kmod zstd cpio
	debian-archive-keyring apt dpkg-dev file gnupg tmux
	python3-grpc-tools)

mkosi_ok() {
	installed mkosi || return 1
	local v
	v=$(dpkg-query -W -f='${Version}' mkosi)
	dpkg --compare-versions "$v" ge 20
}

mapfile -t missing < <(missing_packages "${want[@]}")
if ((${#missing[@]} == 0)) && mkosi_ok; then
	echo "image-deps: all ${#want[@]} packages for the e2e image present (mkosi $(dpkg-query -W -f='${Version}' mkosi))"
	exit 0
fi
need_root "missing packages for the e2e image: ${missing[*]}"

# bookworm-backports: reuse the URIs of the host's bookworm source.
has_backports() {
	grep -rqsE '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}
if ! has_backports; then
	[[ -r $host_sources ]] || { echo "image-deps: $host_sources not found; cannot derive the Debian mirror" >&2; exit 1; }
	uris=$(awk '
		/^[[:space:]]*$/ { if (bookworm && uris != "") print uris; uris = ""; bookworm = 0; next }
		/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") bookworm = 1 }
		END { if (bookworm && uris != "") print uris }' "$host_sources" | head -1)
	keyring=$(awk '/^Signed-By:/ { print $2; exit }' "$host_sources")
	[[ -n $uris ]] || { echo "image-deps: no bookworm entry in $host_sources" >&2; exit 1; }
	{
		echo "# Added by burst-cfs scripts/image-deps.sh: mkosi 24 for the e2e image."
		echo "Types: deb"
		echo "URIs: $uris"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		echo "Signed-By: ${keyring:-/usr/share/keyrings/debian-archive-keyring.gpg}"
	} >"$backports_list"
	echo "image-deps: added bookworm-backports ($backports_list)"
fi

if ! mkosi_ok; then
	apt_update "for mkosi from bookworm-backports"
	step "installing mkosi from bookworm-backports (bookworm's mkosi 14 cannot build the image)" \
		apt-get "${apt_opts[@]}" install -y -t bookworm-backports --no-install-recommends mkosi
fi
apt_install "the e2e image (mkosi's tools, QEMU, the workload container)" -- "${want[@]}"
echo "image-deps: mkosi $(dpkg-query -W -f='${Version}' mkosi) ready"
