#!/bin/bash
# The crun command line of the built package, on the host (TAP): the
# --cpu-burst flag, its errors, the man page, the package's version and
# dependencies.  Nothing here runs a container.
# Usage: tests/crun/test-cli.sh CRUN_DEB
set -euo pipefail

deb=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/root"
crun=$tmp/root/usr/bin/crun
state=$tmp/state
n=0
failed=0

report() { # report OK DESCRIPTION
	n=$((n + 1))
	if [[ $1 == 0 ]]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; fi
}
# crun_out ARGS...: status in $rc, stdout+stderr in $out
crun_out() {
	set +e
	out=$("$crun" --root "$state" "$@" 2>&1)
	rc=$?
	set -e
}

version=$(dpkg-deb -f "$deb" Version)
[[ $version == *+burst1 ]] && r=0 || r=1
report $r "package version $version has the local suffix +burst1"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *"libsystemd0 (>= 246)"* ]] && r=0 || r=1
report $r "package depends on libsystemd0 (>= 246), not on backports' 254 ($depends)"

crun_out --version
[[ $rc == 0 && $out == *"crun version 1.8.1"* ]] && r=0 || r=1
report $r "crun --version runs ($(head -1 <<<"$out"))"

crun_out update --help
[[ $rc == 0 && $out == *"--cpu-burst=VALUE"* && $out == *"0 disables it"* ]] && r=0 || r=1
report $r "crun update --help lists --cpu-burst"

for bad in 1.5ms 150% abc -5 +5 "" 17592186044416 17592186045s 10m 0x10 "10 ms"; do
	crun_out update --cpu-burst "$bad" no-such-container
	# Refused by the flag parser, before any container is looked up.
	[[ $rc != 0 && $out == *"invalid --cpu-burst: "* && $out != *status* ]] && r=0 || r=1
	report $r "update --cpu-burst '$bad' is refused before anything is read: $out"
done
crun_out update --cpu-burst 17592186044416 no-such-container
[[ $out == *"17592186044415us"* ]] && r=0 || r=1
report $r "the overflow error names the limit 17592186044415us"

for good in 0 200ms 2s 250000 250000us 17592186044415; do
	crun_out update --cpu-burst "$good" no-such-container
	# Accepted: crun goes on to look the container up, and fails there.
	[[ $rc != 0 && $out == *"no-such-container/status"* && $out != *"invalid --cpu-burst"* ]] && r=0 || r=1
	report $r "update --cpu-burst '$good' is accepted, then the missing container is reported: $out"
done

crun_out update --cpu-burst
[[ $rc != 0 ]] && r=0 || r=1
report $r "update --cpu-burst without a value fails"

man=$(gzip -dc "$tmp/root/usr/share/man/man1/crun.1.gz")
grep -qE -- '--cpu\\?-burst' <<<"$man" && r=0 || r=1
report $r "crun(1) documents --cpu-burst"
grep -qF 'run.oci.cpu.burst' <<<"$man" && r=0 || r=1
report $r "crun(1) documents the run.oci.cpu.burst annotation"
grep -qF 'cpu.max.burst' <<<"$man" && r=0 || r=1
report $r "crun(1) maps burst to cpu.max.burst in its cgroup v2 table"
grep -qF 'An update changes only the values it names' <<<"$man" && r=0 || r=1
report $r "crun(1) says an update changes only the values it names"
grep -qF 'are not put back' <<<"$man" && grep -qF 'refused update changes nothing crun can put back' <<<"$man" && r=0 || r=1
report $r "crun(1) says which writes a refused update puts back and which it does not"
grep -qF 'would refuse is refused before' <<<"$man" && r=0 || r=1
report $r "crun(1) says a CPU bandwidth the kernel would refuse is refused before anything is written"
grep -qF 'longer than 65536 bytes is refused' <<<"$man" && r=0 || r=1
report $r "crun(1) gives the annotation's size bound"

echo "1..$n"
((failed == 0))
