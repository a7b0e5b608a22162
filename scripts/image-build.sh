#!/bin/bash
# Build the e2e disk image with mkosi (mkosi.conf + mkosi.extra/ + a tree
# generated here): OUT_DIR/image.raw, its package manifest, and the initrd
# that boots Debian's stock kernel on it.
# Usage: scripts/image-build.sh OUT_DIR STOCK_VMLINUZ [DEB...]
#   DEB  our packages (crun, podman), installed over Debian's; each is
#        checked in the image's manifest. None: Debian's crun and podman.
# Caches (outside the clone, reused by the next build): the apt package
# cache and mkosi's incremental base image under $BURST_CACHE/mkosi.
set -euo pipefail

out=$1 stock=$2
shift 2
debs=("$@")
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BURST_CACHE:-/var/cache/burst-cfs}/mkosi
gen=$out/gen
start=$(date +%s)

command -v mkosi >/dev/null || { echo "image-build: mkosi missing (scripts/image-deps.sh)" >&2; exit 1; }
mkdir -p "$out" "$cache/packages" "$cache/incremental"

# 1. Generated inputs: the workload container, the suite, the demo, the
# benchmark, burstctl, the CRI client and images, the stock kernel's modules.
echo "image-build: staging the workload container, the suite and the benchmark"
rm -rf "$gen/extra"
mkdir -p "$gen/extra/usr/lib/burst-e2e" "$gen/extra/usr/share/burst-e2e"
gcc -O2 -Wall -Wextra -Werror -static -o "$gen/burst-spin" "$top/tests/e2e/burst-spin.c"
gcc -O2 -Wall -Wextra -Werror -static -pthread -o "$gen/burstbench" \
	"$top/bench/burstbench.c" "$top/bench/args.c" "$top/bench/stats.c" "$top/bench/cgroup.c" \
	"$top/lib/cgfile.c" -lm
"$top/scripts/image-rootfs.sh" "$gen/extra/usr/share/burst-e2e/rootfs" "$gen/burst-spin" "$gen/burstbench"
install -m 755 "$top/tests/e2e/suite.sh" "$gen/extra/usr/lib/burst-e2e/suite"
install -m 755 "$top/tests/e2e/demo.sh" "$gen/extra/usr/lib/burst-e2e/demo"
install -m 644 "$top/tests/e2e/burstctl.sh" "$gen/extra/usr/lib/burst-e2e/burstctl-cases"
# burstctl as make built it (mk/burstctl.mk names it in IMAGE_BURSTCTL).
[[ -x ${IMAGE_BURSTCTL:-} ]] ||
	{ echo "image-build: IMAGE_BURSTCTL='${IMAGE_BURSTCTL:-}': burstctl not built (make burstctl)" >&2; exit 1; }
install -D -m 755 "$IMAGE_BURSTCTL" "$gen/extra/usr/local/bin/burstctl"
install -m 755 "$top/bench/suite.sh" "$gen/extra/usr/lib/burst-e2e/bench-suite"
install -m 755 "$top/bench/image-bench.sh" "$gen/extra/usr/lib/burst-e2e/bench"
# The CRI cases, their client (stubs generated here) and their OCI images.
install -m 644 "$top/tests/e2e/cri-cases.sh" "$gen/extra/usr/lib/burst-e2e/cri-cases"
"$top/tools/cri/stage.sh" "$gen/extra" "$gen/extra/usr/share/burst-e2e/rootfs"
"$top/scripts/image-stock.sh" "$stock" "$gen/stock-modules" "$out/initrd-stock.cpio.gz"

# 2. Local package directory: our packages, or nothing (Debian's).
rm -rf "$gen/packages"
mkdir -p "$gen/packages"
want=()
for deb in "${debs[@]}"; do
	[[ -r $deb ]] || { echo "image-build: $deb not found" >&2; exit 1; }
	name=$(dpkg-deb -f "$deb" Package) ver=$(dpkg-deb -f "$deb" Version)
	cp -p "$deb" "$gen/packages/${name}_${ver}_amd64.deb"
	want+=("$name=$ver")
	echo "image-build: $name $ver from $deb"
done
((${#debs[@]})) || echo "image-build: no .deb given: Debian's crun and podman (the burst cases will fail)"

# 3. mkosi. Its own step lines ("‣ ...") are the progress; the rest goes to a log.
echo "image-build: mkosi $(mkosi --version | awk '{print $2}') build (log: $out/mkosi.log)"
rm -f "$out/image.raw" "$out/image.manifest"
set +e
(cd "$top" && mkosi \
	--output-dir "$out" \
	--package-cache-dir "$cache/packages" \
	--cache-dir "$cache/incremental" \
	--incremental=yes \
	--extra-tree "$gen/extra" \
	--extra-tree "$gen/stock-modules" \
	--volatile-package-directory "$gen/packages" \
	--force build) >"$out/mkosi.log" 2>&1 &
pid=$!
shown=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 5
	total=$(wc -l <"$out/mkosi.log")
	sed -n "$((shown + 1)),${total}p" "$out/mkosi.log" | grep -a '‣' | sed 's/^/image-build:   /' || true
	shown=$total
done
wait "$pid"
rc=$?
set -e
sed -n "$((shown + 1)),\$p" "$out/mkosi.log" | grep -a '‣' | sed 's/^/image-build:   /' || true
if ((rc != 0)) || [[ ! -s $out/image.raw ]]; then
	echo "image-build: mkosi failed (rc=$rc); last 40 lines of $out/mkosi.log:" >&2
	tail -40 "$out/mkosi.log" | sed 's/^/    /' >&2
	exit 1
fi

# 4. The image carries the packages we asked for.
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
echo "image-build: $out/image.raw: $(du -h --apparent-size "$out/image.raw" | cut -f1) ($(du -h "$out/image.raw" | cut -f1) allocated), crun $(have crun), podman $(have podman), $(( $(date +%s) - start ))s"
