# The `mkosi qemu` command line shared by every boot of the image: the
# harness's (tests/e2e/boot-image.sh) and a person's (scripts/vm.sh).
# Sourced. mkosi_qemu_cmd KERNEL IMAGE sets `mkosi_qemu`, to be run from the
# top of the repository with the mkosi options to add, then `qemu` and QEMU's:
#   KERNEL  a kernel file to boot directly, or `installed`: the kernel
#           installed in the image, which mkosi copied out as image.vmlinuz
#           next to it (make node-image); mkosi boots that one by itself
#   IMAGE   the image.raw that mkosi built: mkosi finds it by its output
#           directory and mkosi.conf's Output=
# Environment: E2E_PERSISTENT (1: boot IMAGE itself, not a throw-away copy,
# so the next boot sees what this one changed; the install scenario's),
# E2E_MEM (MiB, default 2048), E2E_SMP (default 2), E2E_TCG
# (single, the default: one host thread runs every vCPU, see
# tcg-single/qemu-system-x86_64; multi: a thread per vCPU, QEMU's default).
# shellcheck shell=bash

mkosi_qemu_cmd() {
	local kernel=$1 image=$2 lib outdir
	lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	[[ -r $image ]] || { echo "mkosi-qemu: $image not found" >&2; return 1; }
	[[ $(basename "$image") == image.raw ]] ||
		{ echo "mkosi-qemu: $image: mkosi boots its own output, image.raw (Output=image in mkosi.conf)" >&2; return 1; }
	outdir=$(cd "$(dirname "$image")" && pwd)
	# mkosi runs in its own root (scripts/mkosi).
	mkosi_qemu=("$lib/../../scripts/mkosi" --output-dir "$outdir")
	case ${E2E_TCG:-single} in
	single) mkosi_qemu+=(--extra-search-path "$lib/tcg-single") ;;
	multi) ;;
	*) echo "mkosi-qemu: E2E_TCG=$E2E_TCG: expected single or multi" >&2; return 2 ;;
	esac
	if [[ $kernel == installed ]]; then
		[[ -r $outdir/image.vmlinuz ]] ||
			{ echo "mkosi-qemu: $outdir/image.vmlinuz not found: $image has no kernel installed" >&2; return 1; }
	else
		[[ -r $kernel ]] || { echo "mkosi-qemu: $kernel not found" >&2; return 1; }
		mkosi_qemu+=(--qemu-kernel "$(realpath "$kernel")")
	fi
	mkosi_qemu+=(--qemu-smp "${E2E_SMP:-2}" --qemu-mem "${E2E_MEM:-2048}M")
	# A boot that must leave its changes in the image for the next one.
	[[ ${E2E_PERSISTENT:-0} == 0 ]] || mkosi_qemu+=(--ephemeral=no)
}
