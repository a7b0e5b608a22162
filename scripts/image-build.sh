#!/bin/bash
# Build the e2e disk image with mkosi (mkosi.conf + mkosi.extra/ + a tree
# generated here): OUT_DIR/image.raw, its package manifest, and the initrd
# that boots Debian's stock kernel on it.
# Usage: scripts/image-build.sh OUT_DIR STOCK_VMLINUZ [CRUN_DEB]
#   CRUN_DEB  our crun .deb; empty: Debian's crun.
# Caches (outside the clone, reused by the next build): the apt package
# cache and mkosi's incremental base image under $BURST_CACHE/mkosi.
set -euo pipefail

out=$1 stock=$2 crun_deb=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BURST_CACHE:-/var/cache/burst-cfs}/mkosi
gen=$out/gen
start=$(date +%s)

command -v mkosi >/dev/null || { echo "image-build: mkosi missing (scripts/image-deps.sh)" >&2; exit 1; }
mkdir -p "$out" "$cache/packages" "$cache/incremental"

# 1. Generated inputs: the workload container, the suite, the stock kernel's modules.
echo "image-build: staging the workload container and the suite"
rm -rf "$gen/extra"
mkdir -p "$gen/extra/usr/lib/burst-e2e" "$gen/extra/usr/share/burst-e2e"
gcc -O2 -Wall -Wextra -Werror -static -o "$gen/burst-spin" "$top/tests/e2e/burst-spin.c"
"$top/scripts/image-rootfs.sh" "$gen/extra/usr/share/burst-e2e/rootfs" "$gen/burst-spin"
install -m 755 "$top/tests/e2e/suite.sh" "$gen/extra/usr/lib/burst-e2e/suite"
install -m 755 "$top/tests/e2e/demo.sh" "$gen/extra/usr/lib/burst-e2e/demo"
"$top/scripts/image-stock.sh" "$stock" "$gen/stock-modules" "$out/initrd-stock.cpio.gz"

# 2. Local package directory: our crun, or nothing (Debian's crun).
rm -rf "$gen/packages"
mkdir -p "$gen/packages"
want_crun=
if [[ -n $crun_deb ]]; then
	[[ -r $crun_deb ]] || { echo "image-build: $crun_deb not found" >&2; exit 1; }
	cp -p "$crun_deb" "$gen/packages/"
	want_crun=$(dpkg-deb -f "$crun_deb" Version)
	echo "image-build: crun $want_crun from $(basename "$crun_deb")"
else
	echo "image-build: no crun .deb given: Debian's crun (burst annotation cases will fail)"
fi

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

# 4. The image carries the crun we asked for.
have_crun=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
print(next((p["version"] for p in m["packages"] if p["name"] == "crun"), ""))' "$out/image.manifest")
if [[ -n $want_crun && $have_crun != "$want_crun" ]]; then
	echo "image-build: the image has crun '$have_crun', wanted $want_crun" >&2
	exit 1
fi
echo "image-build: $out/image.raw: $(du -h --apparent-size "$out/image.raw" | cut -f1) ($(du -h "$out/image.raw" | cut -f1) allocated), crun $have_crun, $(( $(date +%s) - start ))s"
