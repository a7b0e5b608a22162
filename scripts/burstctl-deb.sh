#!/bin/bash
# burstctl as a Debian package for a node (docs/install.md): /usr/bin/burstctl
# (built static, so it depends on nothing), its manual,
# /usr/share/doc/burstctl/burstctl.md, and the boot-time node label:
# /usr/lib/burstctl/burstctl-node-label run by burstctl-node-label.service
# (enabled on install, as dh_installsystemd would), which writes or removes
# node-feature-discovery's feature file by what `burstctl check` says. Versioned 0.N, N the number of commits
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
install -D -m 755 "$top/tools/burstctl/node/burstctl-node-label" "$tmp/usr/lib/burstctl/burstctl-node-label"
install -D -m 644 "$top/tools/burstctl/node/burstctl-node-label.service" "$tmp/lib/systemd/system/burstctl-node-label.service"
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
(cd "$tmp" && find usr lib -type f -print0 | sort -z | xargs -0 md5sum) >"$tmp/DEBIAN/md5sums"
# The unit as dh_installsystemd's snippets handle it (deb-systemd-helper and
# deb-systemd-invoke: init-system-helpers, essential): enabled on install and
# run once then, so a node that already boots ours is labelled without a
# reboot (a failed check is not a failed install: the unit says why);
# stopped and its label removed with the package, since nothing would keep
# the label true after that.
cat >"$tmp/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" = abort-upgrade ]; then
	deb-systemd-helper unmask burstctl-node-label.service >/dev/null || true
	# was-enabled is true on a first install; an operator's disable stays.
	if deb-systemd-helper --quiet was-enabled burstctl-node-label.service; then
		deb-systemd-helper enable burstctl-node-label.service >/dev/null || true
	else
		deb-systemd-helper update-state burstctl-node-label.service >/dev/null || true
	fi
	if [ -d /run/systemd/system ]; then
		systemctl --system daemon-reload >/dev/null || true
		deb-systemd-invoke restart burstctl-node-label.service >/dev/null ||
			echo "burstctl: no CPU burst on this node yet: journalctl -u burstctl-node-label says why" >&2
	fi
fi
SCRIPT
cat >"$tmp/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	deb-systemd-invoke stop burstctl-node-label.service >/dev/null || true
fi
SCRIPT
cat >"$tmp/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
	rm -f /etc/kubernetes/node-feature-discovery/features.d/burst-cfs
	[ ! -d /run/systemd/system ] || systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = purge ] && [ -x /usr/bin/deb-systemd-helper ]; then
	deb-systemd-helper purge burstctl-node-label.service >/dev/null || true
	deb-systemd-helper unmask burstctl-node-label.service >/dev/null || true
fi
SCRIPT
chmod 755 "$tmp/DEBIAN/postinst" "$tmp/DEBIAN/prerm" "$tmp/DEBIAN/postrm"
cat >"$tmp/DEBIAN/control" <<CTRL
Package: burstctl
Version: $version
Architecture: amd64
Maintainer: burst-cfs maintainers <maintainers@users.noreply.a-seed-b38bfef3.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$tmp" | cut -f1)
Section: admin
Priority: optional
Description: CPU burst of cgroups: check, status, record, advise, simulate
 Checks that the node can burst above quota (our kernel, its switch, our
 crun) and labels it for node-feature-discovery at boot; shows each
 cgroup's CFS bandwidth and burst with its pool and throttling, records a
 cgroup's CPU demand as a trace, and replays a trace through the burst-cfs
 model to advise the smallest burst that avoids throttling.
 Built from burst-cfs commit $commit.
CTRL
mkdir -p "$(dirname "$out")"
dpkg-deb --root-owner-group -Zxz --build "$tmp" "$out.tmp" >/dev/null
mv "$out.tmp" "$out"
echo "burstctl-deb: $out (burstctl $version, commit $commit)"
