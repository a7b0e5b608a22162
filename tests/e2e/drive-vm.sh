#!/bin/bash
# Drive the interactive VM (`make vm`, or `make vm-node`) as a person would,
# in tmux: wait for the console's automatic root login and its message, type
# the checks docs/install.md gives an operator, read the answers off the
# screen, power off. Fails on a wrong answer, a missing prompt or a VM that
# does not end; the whole console goes to OUT_DIR/transcript.txt.
# Usage: tests/e2e/drive-vm.sh OUT_DIR [MAKE_TARGET]   (default: vm)
set -euo pipefail

out=$1 target=${2:-vm}
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v tmux >/dev/null || { echo "drive-vm: tmux missing (make image-deps)" >&2; exit 1; }
mkdir -p "$out"
raw=$out/transcript.raw txt=$out/transcript.txt
rm -f "$raw" "$txt"
session=burst-drive-$$
start=$(date +%s)

# The VM runs in a detached tmux session; everything it prints is appended
# to $raw (pipe-pane). `make` ends when the VM powers off.
tmux new-session -d -s "$session" -x 250 -y 50 \
	"cd '$top' && make --no-print-directory $target; rc=\$?; echo; echo \"VM-EXITED rc=\$rc\"; sleep 30"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
tmux pipe-pane -t "$session" -o "cat >>'$raw'"

# The transcript without carriage returns and terminal escapes.
clean() { sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1b[()][A-Z0-9]//g' -e 's/\r//g' "$raw" 2>/dev/null; }
fail() {
	clean >"$txt"
	echo "drive-vm: $target: $* after $(( $(date +%s) - start )) s; the end of $txt:" >&2
	tail -25 "$txt" | sed 's/^/    /' >&2
	exit 1
}
# wait_for PATTERN SECONDS WHAT: until the transcript matches (grep -E).
wait_for() {
	local deadline=$(( $(date +%s) + $2 ))
	until clean | grep -qaE -- "$1"; do
		(( $(date +%s) < deadline )) || fail "no $3 within $2 s"
		tmux has-session -t "$session" 2>/dev/null || fail "the session ended before $3"
		sleep 2
	done
}
n=0
# run CMD PATTERN WHAT: type CMD at the root prompt; its output (up to the
# end marker) must match PATTERN.
run() {
	local cmd=$1 pattern=$2 what=$3 output
	n=$((n + 1))
	# Markers the command prints around its output: the typed line (echoed,
	# maybe wrapped) has them too, but never at the start of a line.
	tmux send-keys -t "$session" -l -- "echo @@begin-$n; $cmd; echo @@end-$n-\$?"
	tmux send-keys -t "$session" Enter
	wait_for "^@@end-$n-[0-9]+" 300 "end of \`$cmd\`"
	output=$(clean | awk -v b="@@begin-$n" -v e="@@end-$n-" '
		$0 == b { grab = 1; next }
		grab && index($0, e) == 1 { exit }
		grab { print }')
	if ! grep -qaE -- "$pattern" <<<"$output"; then
		fail "\`$cmd\` did not show $what (wanted /$pattern/, got: $(tr '\n' '|' <<<"$output"))"
	fi
	echo "drive-vm: ok: $what: $(grep -aE -- "$pattern" <<<"$output" | head -1)"
}

echo "drive-vm: make $target in tmux session $session (transcript: $txt)"
wait_for '^burst-cfs VM: kernel' 600 "login message"
wait_for 'root@[a-z0-9-]+:~#' 60 "root prompt"
echo "drive-vm: logged in after $(( $(date +%s) - start )) s"
run "uname -r" '^6\.1\.[0-9]+-burst-cfs-g[0-9a-f]+$' "our kernel"
run "crun --version" '^crun version 1\.8\.1' "crun's version"
run "dpkg-query -W crun podman" '^crun[[:space:]].*\+burst[0-9]+$' "our crun package"
run "dpkg-query -W podman" '^podman[[:space:]].*\+burst[0-9]+$' "our podman package"
run "podman run --rm --network none --cpu-quota 25000 --cpu-period 50000 --cpu-burst 75000 --rootfs /usr/share/burst-e2e/rootfs:O cat /sys/fs/cgroup/cpu.max.burst" \
	'^75000$' "a container with a burst three times its quota"
tmux send-keys -t "$session" -l -- "poweroff"
tmux send-keys -t "$session" Enter
# The shell's last prompt may share the line: the marker need not start it.
wait_for 'VM-EXITED rc=' 180 "end of the VM after poweroff"
clean >"$txt"
rc=$(sed -n 's/.*VM-EXITED rc=\([0-9]*\).*/\1/p' "$txt" | tail -1)
[[ $rc == 0 ]] || fail "make $target exited with status $rc"
echo "drive-vm: make $target: logged in, 5 checks passed, powered off, in $(( $(date +%s) - start )) s"
