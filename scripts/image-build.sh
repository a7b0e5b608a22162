#!/bin/bash
# Build the e2e disk image with mkosi (mkosi.conf + mkosi.extra/ + a tree
# generated here): OUT_DIR/image.raw, its package manifest, and the initrd
# that boots Debian's stock kernel on it.
# Usage: scripts/image-build.sh OUT_DIR STOCK_VMLINUZ [REPO_DIR DEB...]
#   REPO_DIR  our apt repository (make repo, make image-repo): apt installs from it, through
#             its own source, key and pin, as on a node (docs/install.md)
#   DEB       our packages the image must carry, each installed from
#             REPO_DIR (which must hold that very file) and checked in the
#             image: crun, podman; also the node kernel's package (`make
#             test-node`'s image), which mkosi then copies out as
#             OUT_DIR/image.vmlinuz.
#             None: Debian's crun and podman.
# Environment: IMAGE_MKOSI_ARGS, more mkosi options for this image (the
# install scenario's: Debian's kernel, the repositories in /srv);
# IMAGE_BASE, the name of the cached base it starts from (default
# incremental): the install scenario's must hold Debian's crun and podman,
# while the base the other images share may hold a build of ours, which
# they install after it.
# Caches (outside the clone, reused by the next build): the apt package
# cache and mkosi's incremental base image under $BURST_CACHE/mkosi, and
# mkosi's workspace beside them: mkosi runs in its own root
# (scripts/mkosi), whose /var/tmp is another mount than the cache, and it
# renames the base it built into the cache.
set -euo pipefail

out=$1 stock=$2 repo=${3:-}
shift $(($# < 3 ? $# : 3))
debs=("$@")
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/progress.sh"
. "$top/scripts/lib/image-root.sh"
cache=${BURST_CACHE:-/var/cache/burst-cfs}/mkosi
gen=$out/gen
start=$(date +%s)

mkosi=$top/scripts/mkosi
base=$cache/${IMAGE_BASE:-incremental}
mkdir -p "$out" "$cache/packages" "$base" "$cache/workspace"

# 1. Generated inputs: the workload container, the suite, the demo, the
# benchmark, burstctl, the CRI client and images, the stock kernel's modules.
echo "image-build: staging the workload container, the suite and the benchmark"
rm -rf "$gen/extra"
mkdir -p "$gen/extra/usr/lib/burst-e2e" "$gen/extra/usr/share/burst-e2e"
gcc -O2 -Wall -Wextra -Werror -static -o "$gen/burst-spin" "$top/tests/e2e/burst-spin.c"
# burstbench as make built it (mk/bench.mk names it in IMAGE_BURSTBENCH).
[[ -x ${IMAGE_BURSTBENCH:-} ]] ||
	{ echo "image-build: IMAGE_BURSTBENCH='${IMAGE_BURSTBENCH:-}': burstbench not built (make burstbench)" >&2; exit 1; }
"$top/scripts/image-rootfs.sh" "$gen/extra/usr/share/burst-e2e/rootfs" "$gen/burst-spin" "$IMAGE_BURSTBENCH"
install -m 755 "$top/tests/e2e/suite.sh" "$gen/extra/usr/lib/burst-e2e/suite"
install -m 755 "$top/tests/e2e/demo.sh" "$gen/extra/usr/lib/burst-e2e/demo"
install -m 644 "$top/tests/e2e/burstctl.sh" "$gen/extra/usr/lib/burst-e2e/burstctl-cases"
# The install scenario (make test-install) runs docs/install.md as typed.
install -m 755 "$top/tests/node/install-step" "$gen/extra/usr/lib/burst-e2e/install-step"
install -m 644 "$top/docs/install.md" "$gen/extra/usr/share/burst-e2e/install.md"
# burstctl as make built it (mk/burstctl.mk names it in IMAGE_BURSTCTL).
[[ -x ${IMAGE_BURSTCTL:-} ]] ||
	{ echo "image-build: IMAGE_BURSTCTL='${IMAGE_BURSTCTL:-}': burstctl not built (make burstctl)" >&2; exit 1; }
install -D -m 755 "$IMAGE_BURSTCTL" "$gen/extra/usr/local/bin/burstctl"
install -m 755 "$top/tools/burstctl/node/burstctl-node-label" "$gen/extra/usr/lib/burst-e2e/burstctl-node-label"
install -m 755 "$top/bench/suite.sh" "$gen/extra/usr/lib/burst-e2e/bench-suite"
install -m 755 "$top/bench/image-bench.sh" "$gen/extra/usr/lib/burst-e2e/bench"
# The CRI cases, their client (stubs generated here) and their OCI images.
install -m 644 "$top/tests/e2e/cri-cases.sh" "$gen/extra/usr/lib/burst-e2e/cri-cases"
install -m 644 "$top/tests/e2e/load-cases.sh" "$gen/extra/usr/lib/burst-e2e/load-cases"
"$top/tools/cri/stage.sh" "$gen/extra" "$gen/extra/usr/share/burst-e2e/rootfs"
"$top/scripts/image-stock.sh" "$stock" "$gen/stock-modules" "$out/initrd-stock.cpio.gz"

# 2. Our packages come from our apt repository, the way a node gets them:
# its source, key and pin go into mkosi's apt configuration, a package
# manager tree that mkosi mounts as the /etc of the sandbox apt runs in,
# with a copy of the repository. The DEBs are installed after the cached
# base (--volatile-package), so a new .deb never rebuilds the base.
rm -rf "$gen/apt" "$gen/packages"
want=() mkosi_repo=()
if [[ -n $repo ]]; then
	[[ -s $repo/PACKAGES && -d $repo/dists ]] || { echo "image-build: $repo is no repository of ours (make repo)" >&2; exit 1; }
	apt_tree=$gen/apt/etc
	mkdir -p "$apt_tree/burst-cfs-repo" "$apt_tree/apt/sources.list.d" "$apt_tree/apt/preferences.d" "$apt_tree/apt/keyrings"
	cp -r "$repo/dists" "$repo/pool" "$apt_tree/burst-cfs-repo/"
	sed 's,file:/srv/burst-cfs,file:/etc/burst-cfs-repo,; s,/usr/share/keyrings/,/etc/apt/keyrings/,' \
		"$repo/burst-cfs.sources" >"$apt_tree/apt/sources.list.d/burst-cfs.sources"
	cp "$repo/burst-packages.pref" "$apt_tree/apt/preferences.d/"
	cp "$repo/burst-cfs-archive-keyring.gpg" "$apt_tree/apt/keyrings/"
	# --cache-only=never: apt's lists are fetched again even when mkosi
	# reuses its cached base, whose lists predate this repository.
	mkosi_repo=(--package-manager-tree "$gen/apt" --cache-only=never)
fi
for deb in "${debs[@]}"; do
	[[ -r $deb ]] || { echo "image-build: $deb not found" >&2; exit 1; }
	name=$(dpkg-deb -f "$deb" Package) ver=$(dpkg-deb -f "$deb" Version)
	grep -qxF "$name $ver $(sha256sum <"$deb" | cut -d' ' -f1)" "$repo/PACKAGES" ||
		{ echo "image-build: $repo does not hold $deb ($name $ver): make repo" >&2; exit 1; }
	want+=("$name=$ver")
	mkosi_repo+=(--volatile-package "$name")
	echo "image-build: $name $ver from $repo"
done
((${#debs[@]})) || echo "image-build: no repository given: Debian's crun and podman (the burst cases will fail)"

# 3. mkosi. Its own step lines ("‣ ...") are the progress; the rest goes to a log.
# mkosi_progress: the step lines mkosi printed since the last call (build_image's $shown).
mkosi_progress() {
	local total
	total=$(wc -l <"$out/mkosi.log")
	sed -n "$((shown + 1)),${total}p" "$out/mkosi.log" | grep -a '‣' | sed 's/^/image-build:   /' || true
	shown=$total
}
# build_image [MKOSI OPTION...]
build_image() {
	local pid rc shown=0
	echo "image-build: mkosi $("$mkosi" --version | awk '{print $2}') build (log: $out/mkosi.log)"
	rm -f "$out/image.raw" "$out/image.manifest" "$out/image.vmlinuz"
	(cd "$top" && "$mkosi" \
		--output-dir "$out" \
		--package-cache-dir "$cache/packages" \
		--cache-dir "$base" \
		--workspace-dir "$cache/workspace" \
		--incremental=yes \
		--extra-tree "$gen/extra" \
		--extra-tree "$gen/stock-modules" \
		"${mkosi_repo[@]}" \
		${IMAGE_MKOSI_ARGS:-} \
		"$@" build) >"$out/mkosi.log" 2>&1 &
	pid=$!
	wait_progress "$pid" 5 mkosi_progress
	rc=0
	wait "$pid" || rc=$?
	sed -n "$((shown + 1)),\$p" "$out/mkosi.log" | grep -a '‣' | sed 's/^/image-build:   /' || true
	if ((rc != 0)) || [[ ! -s $out/image.raw ]]; then
		echo "image-build: mkosi failed (rc=$rc); last 40 lines of $out/mkosi.log:" >&2
		tail -40 "$out/mkosi.log" | sed 's/^/    /' >&2
		exit 1
	fi
}

# The packages whose installed files in the image differ from their .deb's
# (dpkg's md5sums), one a line. Our packages keep their version across
# rebuilds (+burst1): when mkosi's cached base already has one of that version,
# apt may call the new .deb "already the newest version" and keep the old files.
stale_packages() {
	local off deb name
	off=$(image_root_offset "$out/image.raw")
	for deb in "${debs[@]}"; do
		name=$(dpkg-deb -f "$deb" Package)
		cmp -s <(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./md5sums | sort) \
			<(debugfs -R "cat /var/lib/dpkg/info/$name.md5sums" "$out/image.raw?offset=$off" 2>/dev/null | sort) ||
			echo "$name"
	done
}

build_image --force
mapfile -t stale < <(stale_packages)
if ((${#stale[@]})); then
	echo "image-build: ${stale[*]}: the cached base had another build of the same version; rebuilding the base"
	build_image --force --force
	mapfile -t stale < <(stale_packages)
	((${#stale[@]} == 0)) || { echo "image-build: the image's ${stale[*]} files differ from the .deb's" >&2; exit 1; }
fi

# 4. The image carries the packages we asked for, with their files (above),
# and the kernel, when one was asked for, is what mkosi copied out for
# `mkosi qemu` to boot.
have() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(next((p["version"] for p in m["packages"] if p["name"] == sys.argv[2]), ""))' "$out/image.manifest" "$1"
}
for w in "${want[@]}"; do
	if [[ $(have "${w%%=*}") != "${w#*=}" ]]; then
		echo "image-build: the image has ${w%%=*} '$(have "${w%%=*}")', wanted ${w#*=}" >&2
		exit 1
	fi
done
for deb in "${debs[@]}"; do
	[[ $(dpkg-deb -f "$deb" Package) == linux-image-* ]] || continue
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
	cmp -s "$tmp"/boot/vmlinuz-* "$out/image.vmlinuz" ||
		{ rm -rf "$tmp"; echo "image-build: $out/image.vmlinuz is not the vmlinuz of $(basename "$deb")" >&2; exit 1; }
	kernel_line=", kernel $(basename "$tmp"/boot/vmlinuz-* | sed 's/^vmlinuz-//') (image.vmlinuz)"
	rm -rf "$tmp"
done
echo "image-build: $out/image.raw: $(du -h --apparent-size "$out/image.raw" | cut -f1) ($(du -h "$out/image.raw" | cut -f1) allocated), crun $(have crun), podman $(have podman)${kernel_line:-}, $(( $(date +%s) - start ))s"
