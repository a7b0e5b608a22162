# Quiet package installs: each step prints one line, what it did and why and
# how long it took; apt's own output goes to build/logs/deps.log and its tail
# is shown when the step fails. A step still running after 20 s prints a
# progress line every 20 s (the last thing apt said), so a long install is
# visibly alive.
# Sourced by scripts/deps.sh, scripts/build-deps.sh, scripts/image-deps.sh,
# bench/deps.sh and scripts/baseline-kernel.sh, which set `tag` (the prefix
# of their lines) first.
# shellcheck shell=bash

apt_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$apt_top/scripts/lib/progress.sh"
apt_log=$apt_top/build/logs/deps.log
apt_updated=
export DEBIAN_FRONTEND=noninteractive
# No progress bars or colours in the log.
apt_opts=(-q -o Dpkg::Use-Pty=0 -o APT::Color=0)

# Steps of scripts running at once (make test runs its checks two at a time) take
# turns: apt-get refuses to start while another holds dpkg's or the package
# lists' lock. Only root changes packages (a user's steps are downloads):
# root's lock lives in /run, which no user can write.
apt_lock=
((EUID != 0)) || apt_lock=/run/burst-cfs-apt.lock

# step_progress: step's line every 20 s, the last thing its command said
# (step's $what, $start and $from).
step_progress() {
	local last
	last=$(tail -c +$((from + 1)) "$apt_log" | tr '\r' '\n' | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-70) || true
	echo "$tag: $what: $((SECONDS - start)) s so far (${last:-no output yet})"
}

# step DESCRIPTION CMD...: run CMD with its output in the log; one line when
# it is done; on failure, the tail of its output and exit 1.
step() {
	local what=$1 start=$SECONDS from rc=0 pid lock_fd
	shift
	# A user's steps take no lock: theirs is /dev/null, so the step reads
	# the same either way.
	exec {lock_fd}>>"${apt_lock:-/dev/null}"
	if [[ -n $apt_lock ]] && ! flock -n "$lock_fd"; then
		echo "$tag: $what: waiting for another package step to end"
		flock "$lock_fd"
	fi
	mkdir -p "$(dirname "$apt_log")"
	from=$(stat -c %s "$apt_log" 2>/dev/null || echo 0)
	printf '\n=== %s %s: %s\n$ %s\n' "$(date -u +%FT%TZ)" "$tag" "$what" "$*" >>"$apt_log"
	# Not passed on: a daemon a maintainer script starts would keep it.
	"$@" </dev/null >>"$apt_log" 2>&1 {lock_fd}>&- &
	pid=$!
	wait_progress "$pid" 20 step_progress
	wait "$pid" || rc=$?
	exec {lock_fd}>&-
	if ((rc != 0)); then
		echo "$tag: $what: FAILED (exit status $rc) after $((SECONDS - start)) s; the end of ${apt_log#"$apt_top"/}:" >&2
		tail -c +$((from + 1)) "$apt_log" | tail -40 | sed 's/^/    /' >&2
		exit 1
	fi
	echo "$tag: $what: done in $((SECONDS - start)) s"
}

installed() { [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]; }

# missing_packages PKG...: those not installed, one a line.
missing_packages() {
	local pkg
	for pkg in "$@"; do
		installed "$pkg" || echo "$pkg"
	done
}

need_root() {
	[[ $(id -u) -eq 0 ]] || { echo "$tag: $1; run 'make deps' as root" >&2; exit 1; }
}

# A list of names for a one-line message: the first five, then how many more.
some() {
	if (($# > 5)); then
		echo "$1 $2 $3 $4 $5 and $(($# - 5)) more"
	else
		echo "$*"
	fi
}

# packages N: "1 package", "N packages".
packages() { (($1 == 1)) && echo "1 package" || echo "$1 packages"; }

# apt_update WHY: `apt-get update`, at most once per script run.
apt_update() {
	[[ -z $apt_updated ]] || return 0
	step "updating the package lists ($1)" apt-get "${apt_opts[@]}" update
	apt_updated=1
}

# apt_install WHY [APT-GET OPTION...] -- PKG...: install the packages that
# are missing (apt-get update first); a single line when none is.
apt_install() {
	local why=$1 opts=() pkgs missing
	shift
	while (($#)) && [[ $1 != -- ]]; do opts+=("$1"); shift; done
	shift
	pkgs=("$@")
	mapfile -t missing < <(missing_packages "${pkgs[@]}")
	if ((${#missing[@]} == 0)); then
		echo "$tag: all $(packages ${#pkgs[@]}) for $why present"
		return 0
	fi
	need_root "missing packages for $why: ${missing[*]}"
	apt_update "to install $(packages ${#missing[@]})"
	step "installing $(some "${missing[@]}") for $why" \
		apt-get "${apt_opts[@]}" install -y --no-install-recommends "${opts[@]}" "${missing[@]}"
}
