#!/bin/bash
# A stand-in for Debian's archive on a node without network (the install
# scenario, tests/node/run-install.sh): Debian's own crun and podman,
# fetched by name from the archive at its candidate versions, in an
# unsigned repository with suite bookworm, so that docs/install.md's
# rollback (`apt-get install crun/bookworm podman/bookworm`) finds them.
# Usage: scripts/debian-local-repo.sh OUT_DIR
set -euo pipefail

out=$1
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/conf" "$tmp/debs"
(cd "$tmp/debs" && apt-get download -q crun podman >/dev/null 2>&1) ||
	{ echo "debian-local-repo: apt-get download crun podman failed" >&2; exit 1; }
cat >"$tmp/conf/distributions" <<CONF
Origin: Debian
Label: Debian
Suite: bookworm
Codename: bookworm
Architectures: amd64
Components: main
Description: Debian's crun and podman, for a node without network (burst-cfs tests)
CONF
reprepro --silent -b "$tmp" includedeb bookworm "$tmp"/debs/*.deb
rm -rf "$tmp/debs" "$tmp/conf" "$tmp/db"
rm -rf "$out"
mv "$tmp" "$out"
echo "debian-local-repo: $out: $(find "$out/pool" -name '*.deb' -printf '%f ')"
