# Secure Boot in a QEMU guest (scripts/secure-boot.sh, docs/secure-boot.md).
# Included by the top Makefile after B and KERNEL. Targets:
#   make deps-secure-boot  OVMF, sbsigntool, efitools, openssl
#   make test-secure-boot  enrols a throwaway operator key in OVMF's Secure
#                          Boot firmware, boots the guest kernel signed with
#                          it, and has the firmware refuse it unsigned and
#                          signed with another key; six boots, 3 min 40-54 s
#                          on a loaded host; not part of make test
# Results in build/results/secure-boot/.

.PHONY: deps-secure-boot test-secure-boot

deps: deps-secure-boot

deps-secure-boot:
	@scripts/deps.sh secure-boot

test-secure-boot: $(KERNEL) scripts/secure-boot.sh scripts/efi-load-option.py tests/secure-boot/sb-guest | deps-kernel deps-secure-boot
	@scripts/secure-boot.sh $(KERNEL)
