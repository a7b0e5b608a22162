#!/bin/bash
# Boot the e2e image once with `mkosi qemu` (TCG, direct kernel boot, the
# settings of mkosi.conf's [Host] section), non-interactively, with a timeout.
# Usage: tests/e2e/boot-image.sh LABEL KERNEL|installed INITRD|none IMAGE CONSOLE_LOG OUT_LOG TIMEOUT_S APPEND...
#   KERNEL, IMAGE: see tests/e2e/mkosi-qemu.sh (`installed`: the image's own kernel).
# Serial port 1 (ttyS0: kernel, systemd) goes to CONSOLE_LOG, serial port 2
# (ttyS1: what the image's burst-e2e/burst-demo/burst-bench unit prints) to
# OUT_LOG; mkosi's own output and the virtio console (a login prompt) go to
# CONSOLE_LOG's .mkosi.log. Ephemeral=yes: every boot is a first boot on a
# private copy of the image, so boots may run side by side. A progress line
# every 15 s.
# Exit status: mkosi's (124/137 when the timeout hit, 123 when the stall
# watchdog stopped the guest).
# Environment: E2E_MEM, E2E_SMP, E2E_TCG (tests/e2e/mkosi-qemu.sh);
# E2E_STALL_S (default 0, off): once OUT_LOG has its first output, stop the
# guest when it has not grown for this many seconds. A suite that hangs
# half-way then fails at once instead of idling to TIMEOUT_S, which must
# also cover the boot before the suite starts. Once OUT_LOG has its end
# marker (E2E-RESULT) it stops growing by design: the guest then has
# E2E_POWEROFF_S (default 120) to power off, a systemd shutdown being no
# quiet spell of the suite (with five boots on two cores it took over 20 s).
set -euo pipefail

label=$1 kernel=$2 initrd=$3 image=$4 console=$5 out=$6 timeout_s=$7
shift 7
stall_s=${E2E_STALL_S:-0}
[[ $stall_s =~ ^[0-9]+$ ]] || { echo "boot-image: E2E_STALL_S=$stall_s: expected a number of seconds" >&2; exit 2; }
poweroff_s=${E2E_POWEROFF_S:-120}
[[ $poweroff_s =~ ^[0-9]+$ ]] || { echo "boot-image: E2E_POWEROFF_S=$poweroff_s: expected a number of seconds" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/e2e/mkosi-qemu.sh"
. "$top/scripts/lib/progress.sh"
mkosi_qemu_cmd "$kernel" "$image"
qemu_args=(-no-reboot -serial "file:$console" -serial "file:$out")
if [[ $initrd != none ]]; then
	[[ -r $initrd ]] || { echo "boot-image: $initrd not found" >&2; exit 1; }
	qemu_args+=(-initrd "$(realpath "$initrd")")
fi
# mkosi.conf's KernelCommandLine= (root=, console=ttyS0, firstboot off) + these.
# A stalled CPU panics at once: its backtrace reaches the console and the
# boot ends instead of idling to the timeout.
append="rootwait panic=-1 loglevel=4 systemd.show_status=error"
append+=" sysctl.kernel.panic_on_rcu_stall=1"
# Warnings and errors of every service (podman, crun, failed units) on the
# console: what a failure report shows.
append+=" systemd.journald.forward_to_console=1 systemd.journald.max_level_console=warning $*"
rm -f "$console" "$out"
mkosi_log=${console%.log}.mkosi.log
outdir=$(cd "$(dirname "$image")" && pwd)
# Ephemeral copies of a boot that was killed (mkosi cleans up its own on a
# normal exit); no boot lives longer than half an hour.
find "$outdir" -maxdepth 1 -name 'image.raw-????????????????' -mmin +30 -delete

start=$(date +%s)
set +e
(cd "$top" && exec timeout --foreground -k 10 "$timeout_s" \
	"${mkosi_qemu[@]}" --machine "burst-$$" \
	--kernel-command-line-extra "$append" \
	qemu "${qemu_args[@]}") </dev/null >"$mkosi_log" 2>&1 &
boot=$!
out_size=0 out_grew=$SECONDS next_line=$((SECONDS + 15)) stalled=0 quiet_limit=$stall_s ended=
boot_watch() {
	local size
	size=$(stat -c %s "$out" 2>/dev/null || echo 0)
	if ((size != out_size)); then
		out_size=$size out_grew=$SECONDS
		if [[ -z $ended ]] && grep -qa '^E2E-RESULT ' "$out" 2>/dev/null; then
			ended=1
			((stall_s == 0)) || quiet_limit=$((poweroff_s > stall_s ? poweroff_s : stall_s))
		fi
	elif ((quiet_limit && size && !stalled && SECONDS - out_grew >= quiet_limit)); then
		# A guest that ended on its own just now did not stall.
		kill -TERM "$boot" 2>/dev/null || return 0
		stalled=1
		if [[ -n $ended ]]; then
			echo "$label: no power-off within ${quiet_limit}s of E2E-RESULT, stopping the guest"
		else
			echo "$label: stalled: no suite output for $((SECONDS - out_grew))s (limit ${stall_s}s), stopping the guest"
		fi
	fi
	((SECONDS >= next_line)) || return 0
	next_line=$((SECONDS + 15))
	echo "$label: $(( $(date +%s) - start ))s, $(grep -caE '^(not )?ok |^DEMO\|' "$out" 2>/dev/null) results so far"
}
wait_progress "$boot" 1 boot_watch
wait "$boot"
rc=$?
if ((rc != 0 && rc != 124 && rc != 137)) && ! [[ -s $console ]]; then
	echo "boot-image: mkosi qemu failed (rc=$rc) before the guest printed anything:" >&2
	tail -20 "$mkosi_log" | sed 's/^/    /' >&2
fi
((!stalled)) || exit 123
exit "$rc"
