# kconfig_dropped CONFIG FRAGMENT...: prints, one per line, each option a
# fragment sets that CONFIG does not have as set (Kconfig drops an option
# silently when a dependency is missing or the symbol was renamed), with
# what CONFIG has instead. Sourced by scripts/kernel-build.sh and
# scripts/node-kernel-config.sh: a dropped option fails the build by name.
# shellcheck shell=bash

kconfig_dropped() {
	local config=$1 line sym
	shift
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" ||
				echo "$line (have: $(grep -E "^(# )?${line%%=*}[= ]" "$config" || echo unset))"
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$config" || echo "$line (have: $(grep "^$sym=" "$config"))"
			;;
		esac
	done < <(cat "$@")
}
