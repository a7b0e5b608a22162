#!/bin/bash
# The benchmark in the e2e image, run at boot by burst-bench.service
# (kernel command line burstcfs.bench=1): bench/suite.sh with the podman
# backend, so every case is burstbench in a podman container limited by
# --cpu-quota, --cpu-period and --cpu-burst (our podman and crun).
# BENCH_* settings and burstcfs.expect come from the kernel command line
# (bench/run-latency.sh puts them there). Output on ttyS1: a GUEST-BEGIN
# line, the suite's TAP and BENCH-JSON lines, then "BENCH-END rc=N".
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
if stty -F /dev/ttyS1 >/dev/null 2>&1; then
	exec >/dev/ttyS1 2>&1
fi
export BURSTCFS_EXPECT=patched
for arg in $(cat /proc/cmdline); do
	case $arg in
	burstcfs.expect=*) BURSTCFS_EXPECT=${arg#*=} ;;
	BENCH_*=*) export "${arg?}" ;;
	esac
done
export BENCH_BACKEND=podman
export BENCH_ROOTFS=/usr/share/burst-e2e/rootfs BURSTBENCH=/bin/burstbench
echo "GUEST-BEGIN kernel=$(uname -r) expect=$BURSTCFS_EXPECT"
echo "# $(podman --version), podman package $(dpkg-query -W -f='${Version}' podman), crun package $(dpkg-query -W -f='${Version}' crun)"
/usr/lib/burst-e2e/bench-suite
echo "BENCH-END rc=$?"
