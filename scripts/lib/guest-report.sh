# What an initramfs guest (tests/qemu/init) printed for a person: its
# suite's lines, without the harness's markers and without the kernel log
# that init appends for tests/lib/verdict.sh, which goes to a file instead.
# Sourced by scripts/demo.sh; tests/host/test-guest-report.sh checks it.
# shellcheck shell=bash

# guest_report CONSOLE KERNEL_LOG: the suite's lines between GUEST-BEGIN and
# GUEST-RESULT on stdout; the KLOG lines, unprefixed, into KERNEL_LOG.
guest_report() {
	local console=$1 klog=$2
	tr -d '\r' <"$console" | sed -n 's/^KLOG //p' >"$klog"
	tr -d '\r' <"$console" | sed -n '/^GUEST-BEGIN/,/^GUEST-RESULT/p' |
		grep -vE '^(GUEST-(BEGIN|RESULT|DMESG)|KLOG )' || true
}

# guest_passed CONSOLE: the suite ended with status 0.
guest_passed() {
	tr -d '\r' <"$1" | grep -q '^GUEST-RESULT rc=0'
}
