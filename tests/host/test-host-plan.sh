#!/bin/bash
# scripts/lib/host-plan.sh: an install on the host that would upgrade,
# downgrade or remove an installed package is refused with the list, before
# anything is installed; a plan that only adds packages passes. apt-get is a
# stand-in that prints a recorded plan, so nothing here asks apt.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/tap.sh"

# Plans as apt-get -s printed them on a Debian 12 host behind its archive.
adds='Inst mmdebstrap (1.3.5-7 Debian:12.15/oldstable [all])
Conf mmdebstrap (1.3.5-7 Debian:12.15/oldstable [all])'
upgrades='Inst libperl5.36 [5.36.0-7+deb12u2] (5.36.0-7+deb12u4 Debian-Security:12/oldstable-security [amd64]) [perl:amd64 ]
Inst perl [5.36.0-7+deb12u2] (5.36.0-7+deb12u4 Debian-Security:12/oldstable-security [amd64]) []
Inst devscripts (2.23.4+deb12u2 Debian:12.15/oldstable [amd64])'
removes='Remv systemd-timesyncd [252.38-1~deb12u1]
Inst systemd [252.38-1~deb12u1] (254.26-1~bpo12+1 Debian Backports:bookworm-backports [amd64])'

# plan TEXT: run host_plan_refuses_changes with apt-get printing TEXT.
plan() {
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\ncat <<"PLAN"\n%s\nPLAN\n' "$1" >"$tmp/bin/apt-get"
	chmod +x "$tmp/bin/apt-get"
	PATH=$tmp/bin:$PATH bash -c '
		tag=test
		. "$1/scripts/lib/apt.sh"
		. "$1/scripts/lib/host-plan.sh"
		host_plan_refuses_changes somepackage' _ "$top" >"$tmp/out" 2>&1
}

ok "a plan that only adds packages passes" plan "$adds"
ok "a plan that upgrades perl is refused" eval '! plan "$upgrades"'
ok "the refusal names each upgrade with both versions" \
	grep -q 'change libperl5.36 5.36.0-7+deb12u2 -> 5.36.0-7+deb12u4' "$tmp/out"
ok "and not the package it only adds" eval '! grep -q "devscripts" "$tmp/out"'
ok "a plan that removes a package and moves systemd to backports is refused" eval '! plan "$removes"'
ok "the refusal names the removal and the systemd upgrade" \
	eval 'grep -q "remove systemd-timesyncd" "$tmp/out" && grep -q "change systemd 252.38-1~deb12u1 -> 254.26-1~bpo12+1" "$tmp/out"'
ok "the refusal says nothing was installed" grep -q 'nothing was installed' "$tmp/out"
