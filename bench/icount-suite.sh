#!/bin/sh
# What each changed path costs in instructions, in one boot of the
# initramfs guest under QEMU's -icount with bench/icount-plugin.c loaded
# (make bench-icount, bench/run-icount.sh). Prints, for the host:
#   - the kernel's text symbols, "ADDRESS NAME" sorted by address, on the
#     second serial port (/dev/ttyS1): bench/icount.py maps the plugin's
#     addresses to functions with the running kernel's own table;
#   - one "ICOUNT-PHASE {...}" line per phase (bench/icountbench.c), in
#     the order of the plugin's phases, and a TAP line for each.
# Figures only: nothing here is judged.
#
# POSIX sh, run as /tests/icount-suite. Environment (from the kernel command
# line, run-guest.sh's EXTRA_APPEND): BURSTCFS_EXPECT (set by /init),
# ICOUNT_N (operations per path phase, 200), ICOUNT_CONFIG_N (writes and
# reads per configuration phase, 1000), ICOUNT_SWITCH_N (switch writes, 10),
# ICOUNT_GROUPS (groups the switch walks, 10000).
set -eu

kernel=${BURSTCFS_EXPECT:-patched}
n=${ICOUNT_N:-200}
config_n=${ICOUNT_CONFIG_N:-1000}
switch_n=${ICOUNT_SWITCH_N:-10}
ICOUNT_GROUPS="${ICOUNT_GROUPS:-10000}"
export ICOUNT_GROUPS
ib=$(dirname "$0")/icountbench
cgroot=/sys/fs/cgroup
sysctl=/proc/sys/kernel/sched_cfs_bw_burst_enabled

[ -x "$ib" ] || { echo "Bail out! no icountbench at $ib"; exit 1; }
# A boot given the wrong bzImage would put one kernel's counts in another's
# column: the sysctl comes with the series and only with it.
if [ "$kernel" = patched ] && [ ! -e "$sysctl" ]; then
	echo "Bail out! booted as a kernel with the series, but it has no $sysctl"
	exit 1
elif [ "$kernel" != patched ] && [ -e "$sysctl" ]; then
	echo "Bail out! booted as a kernel without the series, but it has $sysctl"
	exit 1
fi
[ "$(nproc)" = 1 ] || { echo "Bail out! $(nproc) CPUs: the counts are for one"; exit 1; }
[ -c /dev/ttyS1 ] || { echo "Bail out! no second serial port for the symbols"; exit 1; }

ops="refill wake slack max burst stat"
[ "$kernel" != patched ] || ops="$ops three switch"
total=1
for op in $ops; do total=$((total + 1)); done
echo "1..$total"
echo "# icount: kernel $(uname -r), $(nproc) CPU"
# shellcheck disable=SC1003 # tr's '\\' is one backslash
version=$(uname -v | tr -d '"\\')
echo "BENCH-ICOUNT {\"release\":\"$(uname -r)\",\"version\":\"$version\",\"expect\":\"$kernel\"}"

# Text symbols only (t, T): the plugin counts executed instructions.
syms=$(grep -c ' [tT] ' /proc/kallsyms)
grep ' [tT] ' /proc/kallsyms | sort >/dev/ttyS1
echo "ok 1 - $syms text symbols on /dev/ttyS1"

dir=$cgroot/icount
mkdir "$dir"
echo +cpu >"$cgroot/cgroup.subtree_control"
i=1
for op in $ops; do
	i=$((i + 1))
	case $op in
	refill | wake | slack) count=$n ;;
	switch) count=$switch_n ;;
	*) count=$config_n ;;
	esac
	if line=$("$ib" "$dir" "$op" "$count"); then
		echo "$line"
		echo "ok $i - $op: ${line#ICOUNT-PHASE }"
	else
		echo "not ok $i - $op: icountbench failed"
	fi
done
rmdir "$dir"
