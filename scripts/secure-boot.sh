#!/bin/bash
# make test-secure-boot: an operator's key enrolled in OVMF's Secure Boot
# firmware; our guest kernel signed with it boots, the same kernel unsigned
# or signed with another key is refused by the firmware (docs/secure-boot.md).
# Usage: scripts/secure-boot.sh BZIMAGE
#   boot 1  enrol   blank variable store (setup mode, nothing enforced):
#                   the guest writes db, KEK, PK and a boot entry through
#                   efivarfs (tests/secure-boot/sb-guest)
#   boot 2  signed  Secure Boot on: the signed kernel boots, the guest reads
#                   SecureBoot=1 and the kernel's own view
#   boot 3  unsigned       refused by the firmware
#   boot 4  other-key      signed by a key not in db: refused
#   teeth   a store enrolled the same way but without PK (setup mode: the
#           firmware enforces nothing): the unsigned kernel boots from the
#           same disk, and the judge of boot 3 must fail it (two boots)
# Boots 2-4 load the kernel from a disk through the boot entry: with -kernel
# Debian's OVMF falls back to its own bzImage loader when LoadImage refuses
# an image, and the unsigned kernel boots with SecureBoot=1 (seen).
# The keys live in a temporary directory under build/, deleted on exit.
# Results: build/results/secure-boot/ (NAME.log serial consoles, NAME.result,
# transcript.txt).
set -euo pipefail

kernel=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/verdict.sh"
. "$top/scripts/lib/progress.sh"
results=${RESULTS_DIR:-$top/build/results}/secure-boot
ovmf=/usr/share/OVMF
code_sb=$ovmf/OVMF_CODE_4M.secboot.fd
vars_blank=$ovmf/OVMF_VARS_4M.fd
guest=$top/tests/secure-boot/sb-guest
for f in "$kernel" "$code_sb" "$vars_blank" "$guest"; do
	[[ -r $f ]] || { echo "secure-boot: $f not found (make deps-secure-boot, make kernel)" >&2; exit 1; }
done

rm -rf "$results"
mkdir -p "$results" "$top/build"
work=$(mktemp -d "$top/build/secure-boot.XXXXXX")
# The private keys go with it, also when the run is interrupted.
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# QEMU's -drive splits its options at commas.
[[ $work != *,* ]] || { echo "secure-boot: a comma in $work: QEMU cannot take it" >&2; exit 1; }
say() { echo "secure-boot: $*" | tee -a "$results/transcript.txt"; }
start=$SECONDS

# --- keys, signatures, variables -------------------------------------------
# Three keys as an operator would make them (PK, KEK, db) and a fourth, not
# enrolled, for boot 4. One owner GUID for the signature lists.
owner=$(cat /proc/sys/kernel/random/uuid)
for k in PK KEK db other; do
	openssl req -quiet -new -x509 -newkey rsa:2048 -nodes -sha256 -days 1 \
		-subj "/CN=burst-cfs secure-boot test $k/" -keyout "$work/$k.key" -out "$work/$k.crt" 2>/dev/null
	cert-to-efi-sig-list -g "$owner" "$work/$k.crt" "$work/$k.esl" >/dev/null
done
# Time-based authenticated writes: PK self-signed, KEK signed by PK, db by
# KEK, as in user mode (setup mode would take them unsigned too).
sign-efi-sig-list -k "$work/PK.key" -c "$work/PK.crt" PK "$work/PK.esl" "$work/PK.auth" >/dev/null
sign-efi-sig-list -k "$work/PK.key" -c "$work/PK.crt" KEK "$work/KEK.esl" "$work/KEK.auth" >/dev/null
sign-efi-sig-list -k "$work/KEK.key" -c "$work/KEK.crt" db "$work/db.esl" "$work/db.auth" >/dev/null
# efivarfs takes the attributes first: NV|BS|RT|TIME_BASED_AUTHENTICATED_WRITE.
for v in PK KEK db; do
	{ printf '\x27\x00\x00\x00'; cat "$work/$v.auth"; } >"$work/$v.var"
done
say "keys: PK, KEK, db, other (RSA 2048, in $(basename "$work"), deleted at the end); owner $owner"

cp "$kernel" "$work/unsigned.efi"
sbsign --key "$work/db.key" --cert "$work/db.crt" --output "$work/signed.efi" "$work/unsigned.efi" 2>/dev/null
sbsign --key "$work/other.key" --cert "$work/other.crt" --output "$work/other-key.efi" "$work/unsigned.efi" 2>/dev/null
for k in signed unsigned other-key; do
	say "sbverify --cert db.crt $k: $(sbverify --cert "$work/db.crt" "$work/$k.efi" 2>&1 | tail -1)"
done

# Every boot's command line. no_timer_check: under OVMF the kernel finds
# the 8254 timer on no IO-APIC pin ("MP-BIOS bug", every boot) and tests
# the fallback routes by counting ticks in a delay loop; on a loaded host
# (load 21 on 2 cores) one enrol boot in about fifteen panicked with "IO-APIC
# + timer doesn't work!". The parameter skips the tick count, as for
# virtual machines; nothing here depends on the timer's route.
append="console=ttyS0 panic=-1 loglevel=4 no_timer_check burstcfs.suite=sb-guest"
# The entry boots 2-4 take: \bzimage.efi on the disk, its initramfs named on
# the command line (the EFI stub loads it from the same file system).
python3 "$top/scripts/efi-load-option.py" "$work/Boot0080.var" burst-cfs '\bzimage.efi' \
	"initrd=\\sb.cpio.gz $append burstcfs.expect=enforcing"
printf '\x07\x00\x00\x00\x80\x00' >"$work/BootOrder.var"
"$top/tests/qemu/mkinitramfs.sh" "$work/sb.cpio.gz" "$guest" "$work"/{db,KEK,PK}.var "$work"/{db,PK}.esl \
	"$work"/{Boot0080,BootOrder}.var >/dev/null

# --- boots -----------------------------------------------------------------
# boot NAME CODE VARS TIMEOUT_S QEMU_ARG...: one boot; its console, escape
# sequences removed, in $results/NAME.log (QEMU's own messages in
# NAME.qemu.txt); boot_rc is timeout(1)'s: 124 timed out, 143 stopped
# by firmware_gave_up.
# As tests/qemu/run-guest.sh, single-threaded TCG (docs/pipeline.md); one
# vCPU is enough here. The secure-boot firmware needs SMM, and its variable
# store flash must answer SMM only (else the OS could write it directly).
boot() {
	local name=$1 code=$2 vars=$3 timeout_s=$4 qemu
	shift 4
	raw=$work/$name.serial
	boot_start=$SECONDS
	set +e
	timeout --foreground -k 5 "$timeout_s" \
		qemu-system-x86_64 -machine q35,smm=on -accel tcg,thread=single -cpu max -smp 1 -m 512 \
		-global driver=cfi.pflash01,property=secure,value=on \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code" \
		-drive "if=pflash,format=raw,unit=1,file=$vars" \
		"$@" -nic none -display none -monitor none -serial "file:$raw" -no-reboot 2>"$results/$name.qemu.txt" &
	qemu=$!
	# A firmware that has tried every boot entry waits for a key: stop it.
	wait_progress "$qemu" 2 firmware_gave_up "$qemu"
	wait "$qemu"
	boot_rc=$?
	set -e
	tr -d '\r' <"$raw" | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g' >"$results/$name.log"
	boot_s=$((SECONDS - boot_start))
}
firmware_gave_up() {
	! grep -qa 'BdsDxe: No bootable option or device was found' "$raw" || kill "$1"
}
# esp NAME KERNEL: a directory QEMU serves as a FAT disk, KERNEL as \bzimage.efi.
esp() {
	mkdir -p "$work/esp-$1"
	cp "$2" "$work/esp-$1/bzimage.efi"
	cp "$work/sb.cpio.gz" "$work/esp-$1/"
	echo "if=virtio,format=raw,readonly=on,file=fat:$work/esp-$1"
}
# A fresh copy of the enrolled store for each boot: none sees another's.
enrolled() { cp "$work/vars-enrolled.fd" "$work/vars-$1.fd"; echo "$work/vars-$1.fd"; }

# --- judges ----------------------------------------------------------------
# Each sets problems (empty: as expected).
# enrolled_ok NAME: the suite ran and passed (tests/lib/verdict.sh).
# booted NAME: that, and the firmware started our entry from disk, and the
# EFI stub saw Secure Boot on.
enrolled_ok() {
	local log=$results/$1.log
	verdict "$log" "$boot_rc" 300 GUEST-RESULT "$log"
}
booted() {
	local log=$results/$1.log
	enrolled_ok "$1"
	grep -qa 'BdsDxe: starting Boot0080 "burst-cfs"' "$log" || problems+=("the firmware did not start Boot0080")
	grep -qa 'EFI stub: UEFI Secure Boot is enabled' "$log" || problems+=("the EFI stub did not see Secure Boot on")
}
# refused NAME: the firmware refused Boot0080 and no kernel code ran.
refused() {
	local log=$results/$1.log
	problems=()
	grep -qa 'BdsDxe: failed to load Boot0080 "burst-cfs" from \\bzimage.efi: Access Denied' "$log" ||
		problems+=("no refusal of Boot0080 (Access Denied) on the console")
	! grep -qaE 'EFI stub:|Linux version|GUEST-BEGIN' "$log" ||
		problems+=("the kernel ran: $(grep -aE 'EFI stub:|GUEST-BEGIN' "$log" | head -2 | paste -sd'|')")
	grep -qa 'BdsDxe: No bootable option or device was found' "$log" ||
		problems+=("the firmware never finished its boot entries (QEMU exit $boot_rc)")
}
# judge NAME JUDGE: print the boot's firmware and guest lines, then PASS or
# FAIL; NAME.result for scripts/summary.sh.
failures=0
judge() {
	local name=$1 how=$2
	"$how" "$name"
	grep -aE '^(BdsDxe|EFI stub|GUEST-|ok |not ok |# |1\.\.)' "$results/$name.log" | grep -av "^$KLOG_PREFIX" |
		sed "s/^/    /" | tee -a "$results/transcript.txt"
	if ((${#problems[@]} == 0)); then
		say "$name: PASS ($how, ${boot_s}s)"
		echo "1 0" >"$results/$name.result"
	else
		say "$name: FAIL ($how, ${boot_s}s): ${problems[*]/%/;}"
		echo "0 1" >"$results/$name.result"
		failures=$((failures + 1))
	fi
}

say "boot 1, enrol: OVMF_CODE_4M.secboot.fd, blank OVMF_VARS_4M.fd (setup mode), -kernel"
cp "$vars_blank" "$work/vars-enrolled.fd"
boot enrol "$code_sb" "$work/vars-enrolled.fd" 300 \
	-kernel "$work/unsigned.efi" -initrd "$work/sb.cpio.gz" \
	-append "$append burstcfs.expect=enroll"
judge enrol enrolled_ok

say "boot 2, signed: Secure Boot firmware, enrolled store, kernel signed with db's key"
boot signed "$code_sb" "$(enrolled signed)" 300 -drive "$(esp signed "$work/signed.efi")"
judge signed booted

say "boot 3, unsigned: the same kernel without a signature"
boot unsigned "$code_sb" "$(enrolled unsigned)" 300 -drive "$(esp unsigned "$work/unsigned.efi")"
judge unsigned refused

say "boot 4, other-key: the same kernel signed with a key that is not in db"
boot other-key "$code_sb" "$(enrolled other-key)" 300 -drive "$(esp other-key "$work/other-key.efi")"
judge other-key refused

# The teeth of boot 3's judge: with a store enrolled the same way but
# without PK, the firmware stays in setup mode and enforces nothing; the
# unsigned kernel boots from the same disk, and the judge must say it was
# not refused. (Debian's OVMF_CODE_4M.fd is no such firmware: it has Secure
# Boot too, only without SMM, and refuses the same way once PK is there.)
say "teeth, enrol: the same store without PK (setup mode)"
cp "$vars_blank" "$work/vars-teeth.fd"
boot teeth-enrol "$code_sb" "$work/vars-teeth.fd" 300 \
	-kernel "$work/unsigned.efi" -initrd "$work/sb.cpio.gz" \
	-append "$append burstcfs.expect=enroll-without-pk"
judge teeth-enrol enrolled_ok
say "teeth: the unsigned kernel from the same disk, firmware not enforcing: the refusal judge must fail it"
boot teeth-not-enforcing "$code_sb" "$work/vars-teeth.fd" 300 -drive "if=virtio,format=raw,readonly=on,file=fat:$work/esp-unsigned"
# Boot 2's judge must fail it too: the guest reads SecureBoot=0.
booted teeth-not-enforcing
booted_said=("${problems[@]}")
refused teeth-not-enforcing
grep -aE '^(BdsDxe|EFI stub|GUEST-BEGIN|ok |not ok )' "$results/teeth-not-enforcing.log" | sed "s/^/    /" |
	tee -a "$results/transcript.txt"
if ((${#problems[@]} && ${#booted_said[@]})) && grep -qa '^GUEST-BEGIN' "$results/teeth-not-enforcing.log"; then
	say "teeth-not-enforcing: PASS: the refusal judge failed it (${problems[*]/%/;}), and boot 2's judge too (${booted_said[*]/%/;}) (${boot_s}s)"
	echo "1 0" >"$results/teeth-not-enforcing.result"
else
	say "teeth-not-enforcing: FAIL: the unsigned kernel did not boot, or a judge passed it (${boot_s}s)"
	echo "0 1" >"$results/teeth-not-enforcing.result"
	failures=$((failures + 1))
fi

say "$((6 - failures)) of 6 passed in $((SECONDS - start))s; keys deleted with $(basename "$work")"
((failures == 0))
