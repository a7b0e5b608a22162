#!/bin/bash
# Boot the e2e image once under TCG, direct kernel boot, with a timeout.
# Usage: tests/e2e/boot-image.sh LABEL KERNEL INITRD|none IMAGE CONSOLE_LOG OUT_LOG TIMEOUT_S APPEND...
# Serial port 1 (ttyS0: kernel, systemd) goes to CONSOLE_LOG, serial port 2
# (ttyS1: what the image's burst-e2e/burst-demo unit prints) to OUT_LOG.
# The image is opened with snapshot=on: every boot is a first boot on a
# pristine image and nothing is written back. A progress line every 15 s.
# Exit status: qemu's (124/137 when the timeout hit).
# Environment: E2E_MEM (MiB, default 2048), E2E_SMP (default 2).
set -euo pipefail

label=$1 kernel=$2 initrd=$3 image=$4 console=$5 out=$6 timeout_s=$7
shift 7
for f in "$kernel" "$image"; do
	[[ -r $f ]] || { echo "boot-image: $f not found" >&2; exit 1; }
done
initrd_args=()
if [[ $initrd != none ]]; then
	[[ -r $initrd ]] || { echo "boot-image: $initrd not found" >&2; exit 1; }
	initrd_args=(-initrd "$initrd")
fi
append="root=PARTLABEL=root-x86-64 rootfstype=ext4 rw rootwait console=ttyS0 panic=-1 loglevel=4"
append+=" systemd.firstboot=off systemd.show_status=error"
# Warnings and errors of every service (podman, crun, failed units) on the
# console: what a failure report shows.
append+=" systemd.journald.forward_to_console=1 systemd.journald.max_level_console=warning $*"
rm -f "$console" "$out"

start=$(date +%s)
set +e
timeout --foreground -k 10 "$timeout_s" \
	qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp "${E2E_SMP:-2}" -m "${E2E_MEM:-2048}" \
	-kernel "$kernel" "${initrd_args[@]}" -append "$append" \
	-drive "if=virtio,format=raw,file=$image,snapshot=on" \
	-nic none -display none -monitor none \
	-serial "file:$console" -serial "file:$out" -no-reboot &
qemu=$!
while kill -0 "$qemu" 2>/dev/null; do
	sleep 15
	kill -0 "$qemu" 2>/dev/null || break
	echo "$label: $(( $(date +%s) - start ))s, $(grep -caE '^(not )?ok |^DEMO\|' "$out" 2>/dev/null) results so far"
done
wait "$qemu"
