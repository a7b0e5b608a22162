#!/bin/bash
# Boot the e2e image interactively under `mkosi qemu` (single-threaded TCG,
# like every boot here): root is logged in on the console (mkosi.conf's
# Autologin=), podman, crun and the burst tools are ready, and the login
# prints commands to try (mkosi.extra/etc/update-motd.d/50-burst-cfs).
# `poweroff` ends it; so does Ctrl-a x (QEMU's escape on this console).
# Usage: scripts/vm.sh KERNEL|installed IMAGE [INITRD]   (see tests/e2e/mkosi-qemu.sh)
#   INITRD  for a kernel whose disk drivers are modules (the node kernel)
# Environment: E2E_MEM, E2E_SMP, E2E_TCG (tests/e2e/mkosi-qemu.sh),
#   VM_APPEND  more kernel command line
set -euo pipefail

kernel=$1 image=$2 initrd=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/e2e/mkosi-qemu.sh"
mkosi_qemu_cmd "$kernel" "$image"
if [[ $kernel == installed ]]; then
	what="its own installed kernel ($(dirname "$image")/image.vmlinuz)"
else
	what=$kernel
fi
echo "vm: booting $image on $what under TCG; the root shell comes after about a minute."
echo "vm: \`poweroff\` ends the VM (or Ctrl-a x). Every boot starts from the pristine image (Ephemeral=yes)."
# The kernel's console on the terminal too (mkosi's virtio console, hvc0),
# quiet unless something goes wrong.
cd "$top"
exec "${mkosi_qemu[@]}" --machine "burst-vm-$$" \
	--kernel-command-line-extra "console=hvc0 loglevel=3 systemd.show_status=error ${VM_APPEND:-}" \
	qemu ${initrd:+-initrd "$(realpath "$initrd")"}
