# The configuration a kernel build starts from before our fragments are
# merged over it: the one rule scripts/kernel-build.sh builds by and the
# benchmarks' records describe a kernel by. A fragment with the line
# "# kbuild-base: tinyconfig" starts from tinyconfig and names everything
# its guests need; otherwise the base is x86_64_defconfig + kvm_guest.config.
# shellcheck shell=bash

# kconfig_base FRAGMENT...: prints the base as make targets and files
# relative to the kernel source tree, one per line.
kconfig_base() {
	if grep -qx '# kbuild-base: tinyconfig' "$@"; then
		echo tinyconfig
	else
		echo x86_64_defconfig
		echo kernel/configs/kvm_guest.config
	fi
}

# kconfig_describe TOP FRAGMENT: "BASE + FRAGMENT (sha256 …)", the config
# line of a benchmark record.
kconfig_describe() {
	local top=$1 fragment=$2 base
	base=$(kconfig_base "$fragment" | sed 's,.*/,,' | paste -sd+ | sed 's/+/ + /g')
	echo "$base + $(realpath --relative-to="$top" "$fragment") (sha256 $(sha256sum "$fragment" | cut -c1-16))"
}
