#!/bin/bash
# tools/burstctl/node/burstctl-node-label with a burstctl stand-in: the NFD
# feature file appears with the label (and the revision) when burstctl
# check passes, is removed when it fails, and the unit fails then with
# check's reason.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
script=$top/tools/burstctl/node/burstctl-node-label
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }

mkdir -p "$tmp/bin"
# The stand-in answers as burstctl check does on the node $tmp/verdict names.
cat >"$tmp/bin/burstctl" <<STAND
#!/bin/bash
[[ \$1 == check ]] || exit 2
case \$(cat "$tmp/verdict") in
ours) echo '{"ok":true,"reason":null,"kernel":{"release":"6.1.0-57-cloud-amd64-burst","revision":"27","switch":true}}' ;;
unstamped) echo '{"ok":true,"reason":null,"kernel":{"release":"6.1.0-57-cloud-amd64-burst","revision":null}}' ;;
debian) echo '{"ok":false}'
	echo 'burstctl check: kernel 6.1.0-58-cloud-amd64 does not carry the burst-cfs series' >&2; exit 1 ;;
esac
STAND
chmod 755 "$tmp/bin/burstctl"
run() { PATH=$tmp/bin:$PATH BURSTCTL_FEATURES_DIR=$tmp/features.d "$script" >"$tmp/out" 2>"$tmp/err"; }
file=$tmp/features.d/burst-cfs

echo ours >"$tmp/verdict"
rc=0; run || rc=$?
desc="check passes: exit 0, the feature file has the label and the revision"
ok test "$rc" = 0 -a "$(grep -v '^#' "$file" 2>/dev/null | tr '\n' ' ')" = "burst-cfs.example/cpu-burst=true burst-cfs.example/series-revision=27 "
desc="no temporary file left beside it (NFD reads every file of the directory)"
ok test "$(find "$tmp/features.d" -name '.burst-cfs.*' | wc -l)" = 0

echo unstamped >"$tmp/verdict"
rc=0; run || rc=$?
desc="a kernel without a revision stamp: the label alone"
ok test "$rc" = 0 -a "$(grep -v '^#' "$file" | tr '\n' ' ')" = "burst-cfs.example/cpu-burst=true "

echo debian >"$tmp/verdict"
rc=0; run || rc=$?
desc="check fails (Debian's kernel booted): exit 1, the file removed"
ok test "$rc" = 1 -a ! -e "$file"
desc="... and the journal line names the label and check's reason"
ok grep -qx 'burstctl-node-label: burst-cfs.example/cpu-burst removed (.*): kernel 6.1.0-58-cloud-amd64 does not carry the burst-cfs series' "$tmp/err"
rc=0; run || rc=$?
desc="check fails with no file there: still exit 1, nothing written"
ok test "$rc" = 1 -a "$(find "$tmp/features.d" -type f | wc -l)" = 0
