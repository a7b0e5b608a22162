#!/bin/bash
# The user-facing demo, run at boot in the e2e image by burst-demo.service
# (kernel command line burstcfs.demo=1): one bursty container -- a request
# every 400 ms, each needing 30 ms of CPU, 0.075 CPU on average -- under
# podman with no limit, with a 0.1 CPU quota (10 ms / 100 ms) and without
# burst, and with the burst the workload needs (40 ms; on Debian's stock
# kernel crun refuses it, and the most that kernel allows is the quota);
# then the same share and pool with a longer period and burst = quota (what
# a capped kernel allows); then asks burstctl what burst it needs and runs
# it with that.
# One "DEMO|..." line per run on stdout (ttyS1), then "DEMO-END";
# scripts/image-demo.sh turns them into a table.
set -uo pipefail
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
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

# The rows are compared with "no limit": measure none of them while the
# boot is still going on beside them (this unit starts with multi-user:
# containerd, podman's first run and the journal were measured beside the
# first row, whose delay p50 went from 0.9 to 31 ms). Wait for the boot to
# end and the CPUs to go idle, then run the workload once unrecorded.
settle() {
	local idle_total_before idle_total_after quiet=0 start=$SECONDS deadline=$((SECONDS + 120))
	systemctl is-system-running --wait >/dev/null 2>&1 || true
	# Idle share of both CPUs over each second, from /proc/stat.
	read_idle() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat; }
	while ((quiet < 3 && SECONDS < deadline)); do
		idle_total_before=$(read_idle)
		sleep 1
		idle_total_after=$(read_idle)
		if awk -v a="$idle_total_before" -v b="$idle_total_after" 'BEGIN {
			split(a, x); split(b, y); exit !((y[1] - x[1]) >= 0.95 * (y[2] - x[2])) }'; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
	done
	echo "# settled: $quiet s at least 95 % idle, after waiting $((SECONDS - start)) s"
	timeout -k 10 150 podman run --rm --network none --rootfs "$ROOTFS" burst-spin -n 2 -i 100 -c 10 -w 200 \
		>/dev/null 2>&1 || true
}

echo "# burst-cfs demo on $(uname -r) ($kernel), $(crun --version | head -1)"
settle
row "no limit" -
row "quota 10ms/100ms" 0 --cpu-quota 10000 --cpu-period 100000
row "quota + burst 40ms" 40000 --cpu-quota 10000 --cpu-period 100000 --annotation run.oci.cpu.burst=40ms
if [[ $kernel == stock ]]; then
	row "quota + burst 10ms (stock max)" 10000 --cpu-quota 10000 --cpu-period 100000 --annotation run.oci.cpu.burst=10ms
fi
# What a user of a kernel capped at quota would try instead: the same 0.1
# CPU and the same 50 ms pool as quota + burst 40ms, on a longer period
# with burst = quota. Both kernels run it: it needs nothing of the series.
row "quota 25ms/250ms + burst 25ms" 25000 --cpu-quota 25000 --cpu-period 250000 --cpu-burst 25000

# What burst does this service need? Record it running without a limit,
# from its warm-up (which covers podman's return and burstctl's lookup)
# until after its last request (stopped in its tail, before the exit),
# ask burstctl for quota 10 ms / 100 ms, run it with the answer.
# "DEMO-ADVISE|" lines carry burstctl's table.
advise_step() {
	local b rec left
	timeout -k 10 150 podman run -d --name demo-rec --network none --rootfs "$ROOTFS" \
		burst-spin -n 10 -i 400 -c 30 -w 4000 -t 3000 >/dev/null 2>/tmp/demo.err ||
		{ echo "DEMO-ADVISE|podman run failed: $(tail -1 /tmp/demo.err)"; return; }
	left=$(($(date +%s) + 9))
	burstctl record demo-rec --duration 60s -o /tmp/demo-trace.csv 2>/tmp/demo.err &
	rec=$!
	left=$((left - $(date +%s)))
	((left > 0)) && sleep "$left"
	kill -INT "$rec"
	wait "$rec" || echo "DEMO-ADVISE|$(tail -1 /tmp/demo.err)"
	timeout -k 10 150 podman rm -f demo-rec >/dev/null 2>&1
	burstctl advise /tmp/demo-trace.csv --quota 10000 --period 100000 2>&1 | sed 's/^/DEMO-ADVISE|/'
	b=$(burstctl advise /tmp/demo-trace.csv --quota 10000 --period 100000 --json 2>/dev/null |
		sed -n 's/.*"burst_us":\([0-9]*\),"quota_without_burst_us".*/\1/p')
	[[ -n $b ]] && row "quota + advised burst" "$b" --cpu-quota 10000 --cpu-period 100000 --cpu-burst "$b"
}
advise_step
echo "DEMO-END"
