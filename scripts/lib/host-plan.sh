# The host's packages stay as they were: before anything is installed on
# the host, apt-get's own plan (apt-get -s) is read, and an install that
# would upgrade, downgrade or remove an installed package is refused,
# naming each one. Sourced after scripts/lib/apt.sh (tag, apt_opts).
# shellcheck shell=bash

# plan_changes: the lines of an `apt-get -s` plan (stdin) that touch an
# installed package, as "upgrade NAME OLD -> NEW" or "remove NAME"; nothing
# when the plan only adds packages.
plan_changes() {
	sed -n -e 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\) .*/change \1 \2 -> \3/p' \
		-e 's/^Remv \([^ ]*\).*/remove \1/p'
}

# host_plan_refuses_changes PKG...: exit 1 with the list when installing
# PKG would change an installed package; the plan's new packages otherwise
# go to the log.
host_plan_refuses_changes() {
	local plan changes
	plan=$(apt-get "${apt_opts[@]}" -s install -y --no-install-recommends "$@" 2>&1) ||
		{ echo "$tag: apt-get cannot plan installing $* on the host:" >&2; sed 's/^/    /' <<<"$plan" >&2; exit 1; }
	changes=$(plan_changes <<<"$plan")
	if [[ -n $changes ]]; then
		echo "$tag: installing $* would change packages this host already has; nothing was installed:" >&2
		sed 's/^/    /' <<<"$changes" >&2
		echo "$tag: make deps never upgrades or removes a host package: install $* yourself if you accept this" >&2
		exit 1
	fi
}
