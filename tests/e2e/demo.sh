#!/bin/bash
# The user-facing demo, run at boot in the e2e image by burst-demo.service
# (kernel command line burstcfs.demo=1): one bursty container -- a request
# every 400 ms, each needing 30 ms of CPU, 0.075 CPU on average -- under
# podman with no limit, with a 0.1 CPU quota (10 ms / 100 ms) and without
# burst, and with the burst the workload needs (40 ms; on Debian's stock
# kernel crun refuses it, and the most that kernel allows is the quota).
# One "DEMO|..." line per run on stdout (ttyS1), then "DEMO-END";
# scripts/image-demo.sh turns them into a table.
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
ROOTFS=/usr/share/burst-e2e/rootfs:O
SPIN=(-n 10 -i 400 -c 30 -w 700)
kernel=patched
# Output to the second serial port when there is one (the harness reads
# it: nothing else writes there), else to stdout (the console).
if stty -F /dev/ttyS1 >/dev/null 2>&1; then
	exec >/dev/ttyS1
fi
grep -qw burstcfs.expect=stock /proc/cmdline && kernel=stock

row() { # LABEL BURST PODMAN_OPTS...
	local label=$1 burst=$2 line err
	shift 2
	if line=$(timeout -k 10 150 podman run --rm --network none "$@" --rootfs "$ROOTFS" \
		burst-spin "${SPIN[@]}" 2>/tmp/demo.err); then
		echo "DEMO|$kernel|$label|$burst|$line"
	else
		err=$(grep -v '^$' /tmp/demo.err | tail -1)
		echo "DEMO|$kernel|$label|$burst|refused: ${err:-podman failed}"
	fi
}

echo "# burst-cfs demo on $(uname -r) ($kernel), $(crun --version | head -1)"
row "no limit" - 
row "quota 10ms/100ms" 0 --cpu-quota 10000 --cpu-period 100000
row "quota + burst 40ms" 40000 --cpu-quota 10000 --cpu-period 100000 --annotation run.oci.cpu.burst=40ms
if [[ $kernel == stock ]]; then
	row "quota + burst 10ms (stock max)" 10000 --cpu-quota 10000 --cpu-period 100000 --annotation run.oci.cpu.burst=10ms
fi
echo "DEMO-END"
