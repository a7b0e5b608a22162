#!/bin/bash
# burstctl as a Debian package for a node (docs/install.md): /usr/bin/burstctl
# (built static, so it depends on nothing) and its manual,
# /usr/share/doc/burstctl/burstctl.md. Versioned 0.N, N the number of commits
# of this repository up to the one it was built from, so each later build
# sorts above the one before (apt upgrades it); the commit is in the
# description.
# Usage: scripts/burstctl-deb.sh BURSTCTL OUT_DEB
set -euo pipefail

bin=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
count=$(git -C "$top" rev-list --count HEAD)
commit=$(git -C "$top" rev-parse --short=12 HEAD)
[[ -z $(git -C "$top" status --porcelain --untracked-files=no -- tools model lib bench) ]] || commit+=" with uncommitted changes"
version=0.$count
file -b "$bin" | grep -q 'statically linked' || { echo "burstctl-deb: $bin is not statically linked" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
install -D -m 755 "$bin" "$tmp/usr/bin/burstctl"
install -D -m 644 "$top/docs/burstctl.md" "$tmp/usr/share/doc/burstctl/burstctl.md"
cat >"$tmp/usr/share/doc/burstctl/copyright" <<'COPY'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: burstctl (burst-cfs)

Files: *
License: GPL-2.0
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
COPY
mkdir -p "$tmp/DEBIAN"
# dpkg's record of the files, as every Debian package has (debsums, and the
# image build's check that the installed files are the package's).
(cd "$tmp" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$tmp/DEBIAN/md5sums"
cat >"$tmp/DEBIAN/control" <<CTRL
Package: burstctl
Version: $version
Architecture: amd64
Maintainer: burst-cfs maintainers <maintainers@users.noreply.a-seed-b38bfef3.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$tmp" | cut -f1)
Section: admin
Priority: optional
Description: CPU burst of cgroups: status, record, advise, simulate
 Shows each cgroup's CFS bandwidth and burst with its pool and throttling,
 records a cgroup's CPU demand as a trace, and replays a trace through the
 burst-cfs model to advise the smallest burst that avoids throttling.
 Built from burst-cfs commit $commit.
CTRL
mkdir -p "$(dirname "$out")"
dpkg-deb --root-owner-group -Zxz --build "$tmp" "$out.tmp" >/dev/null
mv "$out.tmp" "$out"
echo "burstctl-deb: $out (burstctl $version, commit $commit)"
