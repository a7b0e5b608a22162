# shellcheck shell=bash
# The Kubernetes node path, sourced by tests/e2e/suite.sh (installed as
# /usr/lib/burst-e2e/cri-cases): pods run through containerd's CRI plugin,
# driven by tools/cri/cri-client playing the kubelet, and the
# run.oci.cpu.burst annotation must reach crun only through the handlers
# that allow it (mkosi.extra/etc/containerd/config.toml). Every case reads
# the container's cgroup back on the host side, and deletes its pod, checking
# that no container cgroup and no crun state are left.
#
# Uses the suite's say, work, CG, TMO and expect. Pods use the node's
# network (no CNI plugins in the image). CPU limits give the kubelet's
# period, 100 ms: 250m is cpu.max "25000 100000".

CRI_CLIENT=/usr/lib/burst-e2e/cri/cri-client
CRI_IMAGES=/usr/share/burst-e2e/cri
# The image names tools/cri/stage.sh gave the archives.
CRI_PAUSE=localhost/burst-e2e/pause:1
CRI_WORKLOAD=localhost/burst-e2e/workload:1
# crun's state for containers of containerd's k8s.io namespace (runc v2
# shim's default root).
CRI_CRUN_ROOT=/run/containerd/runc/k8s.io
# With the systemd driver on cgroup v2, crun runs the container and sets its
# limits in a leaf `container` below the scope systemd made (crun's default
# when the run.oci.systemd.subgroup annotation is absent; podman sets it
# empty, so its containers use the scope itself).
CRI_SUBGROUP='(/container)?$'

# cri ARGS...: cri-client with a timeout; its CRI calls (stderr) go to the
# case's diagnostics, so the transcript shows every request.
cri() {
	local rc=0
	timeout -k 10 "$TMO" "$CRI_CLIENT" "$@" 2>"$work/cri.err" || rc=$?
	sed 's/^/cri> /' "$work/cri.err" >&3
	return "$rc"
}

# cri_ctr NAME CPU_LIMIT [CRI_ANNOTATIONS_JSON]: one container of a pod
# manifest, sleeping in the workload image.
cri_ctr() {
	local ann=${3:-'{}'}
	printf '{"name":"%s","image":"%s","command":["sleep","3600"],"resources":{"limits":{"cpu":"%s"}},"criAnnotations":%s}' \
		"$1" "$CRI_WORKLOAD" "$2" "$ann"
}

# cri_run_pod NAME HANDLER DRIVER POD_ANNOTATIONS_JSON CONTAINER_JSON...:
# run the pod through cri-client (the manifest is shown). Sets cri_pod and
# cri_ids[container name]; records the pod for cri_case's cleanup even when a
# later call failed.
declare -A cri_ids
cri_pod=
cri_run_pod() {
	local name=$1 handler=$2 driver=$3 ann=$4 ctrs rc=0 kind key id
	shift 4
	ctrs=$(IFS=,; echo "$*")
	printf '{"metadata":{"name":"%s","namespace":"burst-e2e","uid":"%s","annotations":%s},"spec":{"runtimeClassName":"%s","hostNetwork":true,"containers":[%s]}}\n' \
		"$name" "$(cat /proc/sys/kernel/random/uuid)" "$ann" "$handler" "$ctrs" >"$work/$name.json"
	say "pod manifest ($driver driver): $(cat "$work/$name.json")"
	cri run-pod --cgroup-driver "$driver" "$work/$name.json" >"$work/$name.ids" || rc=$?
	while read -r kind key id; do
		case $kind in
		pod) cri_pod=$key; echo "$key" >>"$work/cri.pods"; echo "$key" >>"$work/cri.made" ;;
		container) cri_ids[$key]=$id; echo "$id" >>"$work/cri.made" ;;
		esac
	done <"$work/$name.ids"
	return "$rc"
}

# cri_field ID FIELD: a line of `cri-client inspect` ("pid", "state"...), or
# of inspect-pod when ID is the pod.
cri_field() {
	local verb=inspect
	[[ $1 == "$cri_pod" ]] && verb=inspect-pod
	cri "$verb" "$1" >"$work/inspect" || return 1
	sed -n "s/^$2 //p" "$work/inspect"
}

# cri_cg ID: the host-side cgroup directory of a running container (or the
# pod's sandbox), from its pid in crun's state (what the shim started; a
# CRI round trip per read would cost seconds of Python start-up under TCG).
cri_cg() {
	local pid
	pid=$(crun --root "$CRI_CRUN_ROOT" state "$1" 2>/dev/null | sed -n 's/.*"pid" *: *\([0-9][0-9]*\).*/\1/p')
	[[ -n $pid ]] && ((pid > 0)) || { say "no pid for ${1:0:12} in crun's state"; return 1; }
	echo "$CG$(sed -n 's/^0:://p' "/proc/$pid/cgroup")"
}

# cri_expect NAME WANT_MAX WANT_BURST [PATH_PATTERN]: container NAME's
# cgroup (or the sandbox's, NAME "sandbox") has cpu.max WANT_MAX and
# cpu.max.burst WANT_BURST, and its path matches PATH_PATTERN (grep -E).
cri_expect() {
	local name=$1 want_max=$2 want_burst=$3 pattern=${4:-.} id dir got
	if [[ $name == sandbox ]]; then id=$cri_pod; else id=${cri_ids[$name]:-}; fi
	[[ -n $id ]] || { say "$name: no such container"; return 1; }
	dir=$(cri_cg "$id") || return 1
	got="$(cat "$dir/cpu.max")|$(cat "$dir/cpu.max.burst")"
	say "$name: ${dir#"$CG"}: cpu.max=${got%|*} cpu.max.burst=${got#*|} (want $want_max / $want_burst)"
	grep -qE -- "$pattern" <<<"$dir" || { say "$name: cgroup path does not match $pattern"; return 1; }
	[[ $got == "$want_max|$want_burst" ]]
}

# cri_pod_dir ID: the pod-level cgroup of container ID: the parent of its
# systemd scope (crun's `container` sub-cgroup is below the scope), or of
# its cgroupfs directory.
cri_pod_dir() {
	local dir
	dir=$(cri_cg "$1") || return 1
	dir=${dir%/container}
	echo "${dir%/*}"
}

# cri_pod_expect NAME WANT_MAX WANT_BURST: the pod-level cgroup of
# container NAME has cpu.max WANT_MAX and cpu.max.burst WANT_BURST.
cri_pod_expect() {
	local dir got
	dir=$(cri_pod_dir "${cri_ids[$1]}") || return 1
	got="$(cat "$dir/cpu.max")|$(cat "$dir/cpu.max.burst")"
	say "pod-level ${dir#"$CG"}: cpu.max=${got%|*} cpu.max.burst=${got#*|} (want $2 / $3)"
	[[ $got == "$2|$3" ]]
}

# cri_throttled DIR: the throttled periods of the cgroup at DIR so far.
cri_throttled() { sed -n 's/^nr_throttled //p' "$1/cpu.stat"; }

# cri_load DIR BURST_SPIN_ARGS...: burst-spin run in the cgroup DIR of a
# container, where crun exec would put it, without crun's start-up (its
# own CPU, tens of ms under TCG) charged to the container and the pod.
cri_load() {
	local dir=$1
	shift
	timeout "$TMO" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" "$ROOTFS/bin/burst-spin" "$@"
}

# cri_period_start SECONDS: a CLOCK_MONOTONIC time in us (the uptime: no
# suspend here) at least SECONDS from now, 5 ms into a 100 ms period. The
# kernel's period timers run on multiples of the period since boot, so a
# request due then meets the period at a phase the test chose, not at
# whatever phase the start-up left it.
cri_period_start() {
	awk -v s="$1" '{ t = int($1 * 1000000) + s * 1000000; print (int(t / 100000) + 1) * 100000 + 5000 }' /proc/uptime
}

# cri_spin NAME OUT SPIN_ARGS...: the load in container NAME, the container's
# and the pod-level cgroup's cpu.stat read at the same moments (pod_FIELD);
# the line goes to $work/OUT. A run the emulator stalled in (the suite's
# spin_stalled) is run again, 3 runs at most, each shown.
cri_spin() {
	local name=$1 out=$2 id dir pod line try
	shift 2
	id=${cri_ids[$name]:-}
	[[ -n $id ]] || { say "$name: no such container"; return 1; }
	dir=$(cri_cg "$id") && pod=$(cri_pod_dir "$id") || return 1
	for try in 1 2 3; do
		line=$(cri_load "$dir" -s "$dir/cpu.stat" -P "$pod/cpu.stat" -S "$(cri_period_start 2)" "$@" 2>"$work/spin.err") ||
			{ say "burst-spin in $name failed: $(tail -2 "$work/spin.err" | tr '\n' ' ')"; return 1; }
		say "$name, run $try: $line"
		spin_stalled "$line" || break
		((try == 3)) || say "(run again)"
	done
	echo "$line" >"$work/$out"
}

# cri_spin_field OUT FIELD: FIELD of the line cri_spin left in $work/OUT.
cri_spin_field() { field "$2" "$(cat "$work/$1")"; }

# cri_spec_annotation NAME KEY: the value of annotation KEY in the OCI
# configuration containerd gave crun for container NAME; fails if absent.
cri_spec_annotation() {
	local line
	line=$(cri_field "${cri_ids[$1]}" annotation | grep "^$2=") || return 1
	echo "${line#*=}"
}

# cri_left ID: what is left of container ID: a cgroup, crun state.
cri_left() {
	find "$CG" -name "*$1*" -type d 2>/dev/null
	[[ ! -e $CRI_CRUN_ROOT/$1 ]] || echo "$CRI_CRUN_ROOT/$1"
}

# cri_case BODY: run the case's body, then delete every pod it ran and check
# that no cgroup and no crun state of its containers or sandboxes are left (systemd removes an
# emptied scope asynchronously: allow it 10 s). Fails if either did.
cri_case() {
	local rc=0 pod id left i
	: >"$work/cri.pods"
	: >"$work/cri.made"
	mkdir -p /etc/crun
	"$1" || rc=1
	while read -r pod; do
		cri delete-pod "$pod" >/dev/null || { say "delete-pod ${pod:0:12} failed"; rc=1; }
	done <"$work/cri.pods"
	while read -r id; do
		for ((i = 0; i < 20; i++)); do
			left=$(cri_left "$id")
			[[ -z $left ]] && break
			sleep 0.5
		done
		[[ -z $left ]] || { say "left behind by ${id:0:12}: $left"; rc=1; }
	done <"$work/cri.made"
	# delete-pod removes the pod-level cgroup, as the kubelet does.
	for ((i = 0; i < 20; i++)); do
		left=$(cri_pod_dirs)
		[[ -z $left ]] && break
		sleep 0.5
	done
	[[ -z $left ]] || { say "pod-level cgroups left behind: $left"; rc=1; }
	rm -f /etc/crun/cpu-burst.conf
	return "$rc"
}

# cri_pod_dirs: the pod-level cgroups there are, for both drivers.
cri_pod_dirs() {
	find "$CG/kubepods.slice" "$CG/kubepods" -mindepth 2 -maxdepth 2 -type d \
		\( -name 'kubepods-*-pod*.slice' -o -name 'pod*' \) 2>/dev/null
}

# --- cases ---------------------------------------------------------------------------

t_cri_setup() { # containerd (started now) serves CRI v1 with our config; pause and workload images imported into k8s.io
	local img images version
	timeout "$TMO" systemctl start containerd.service ||
		{ say "containerd did not start: $(systemctl status containerd.service 2>&1 | tail -3 | tr '\n' ' ')"; return 1; }
	for img in pause workload; do
		timeout "$TMO" ctr -n k8s.io images import "$CRI_IMAGES/$img.tar" >/dev/null 2>"$work/err" ||
			{ say "ctr import $img.tar failed: $(tail -2 "$work/err" | tr '\n' ' ')"; return 1; }
	done
	images=$(ctr -n k8s.io images ls -q)
	say "containerd $(dpkg-query -W -f='${Version}' containerd), images in k8s.io: $(tr '\n' ' ' <<<"$images")"
	say "handlers: $(containerd config dump 2>/dev/null | sed -n 's/.*containerd\.runtimes\.\([a-z-]*\)\]$/\1/p' | sort -u | tr '\n' ' ')"
	version=$(cri version) || return 1
	say "CRI Version: $version"
	grep -qx "$CRI_PAUSE" <<<"$images" && grep -qx "$CRI_WORKLOAD" <<<"$images" &&
		grep -q '^containerd 1\.6\..* (CRI v1)$' <<<"$version"
}

cri_pod_list() {
	cri_run_pod cri-list crun systemd '{"run.oci.cpu.burst":"web=20ms,log=50%"}' \
		"$(cri_ctr web 250m)" "$(cri_ctr log 200m)" "$(cri_ctr cache 250m)" || return 1
	cri_expect web "25000 100000" 20000 && cri_expect log "20000 100000" 10000 &&
		cri_expect cache "25000 100000" 0 && cri_expect sandbox "max 100000" 0
}
t_cri_pod_list() { # per-container list web=20ms,log=50% in one pod: web 20000, log 10000 (50% of 20000), cache and the sandbox none
	cri_case cri_pod_list
}

cri_container_annotation() {
	cri_run_pod cri-ctr-ann crun systemd '{}' \
		"$(cri_ctr app 250m '{"run.oci.cpu.burst":"15ms"}')" "$(cri_ctr other 250m)" || return 1
	cri_expect app "25000 100000" 15000 && cri_expect other "25000 100000" 0
}
t_cri_container_annotation() { # container annotation run.oci.cpu.burst=15ms on one container: 15000; its neighbour none
	cri_case cri_container_annotation
}

cri_above_quota() {
	local rc=0 id state
	cri_run_pod cri-above crun systemd '{"run.oci.cpu.burst":"300%"}' "$(cri_ctr app 250m)" || rc=$?
	if [[ $expect == patched ]]; then
		((rc == 0)) && cri_expect app "25000 100000" 75000
		return
	fi
	# Stock: StartContainer fails with crun's error; the container is left
	# exited (as a kubelet would see it) with no cgroup and no crun state.
	id=${cri_ids[app]:-}
	((rc != 0)) && [[ -n $id ]] || { say "run-pod rc=$rc, container id '${id:0:12}': StartContainer should have failed"; return 1; }
	grep -q 'StartContainer failed' "$work/cri.err" && grep -qi burst "$work/cri.err" && grep -qi quota "$work/cri.err" ||
		{ say "the refusal does not name burst and quota"; return 1; }
	state=$(cri_field "$id" state)
	say "container state $state, reason $(cri_field "$id" reason), left: $(cri_left "$id" | tr '\n' ' ')"
	[[ $state == CONTAINER_EXITED && -z $(cri_left "$id") ]]
}
t_cri_above_quota() { # pod annotation 300% of 250m: burst 75000 above quota on ours; stock: StartContainer fails with crun's error, nothing left
	cri_case cri_above_quota
}

# The bursty load of the pod cases, in a pod of one container limited to
# 200m (20 ms a period) with a burst of 20 ms, within quota on both kernels:
# 25 ms requests, each 5 to 30 ms into a period (cri_spin starts them
# there). The container's pool (40 ms) covers each with 15 ms to spare; a
# pod-level cgroup with the pod's quota and no burst (20 ms) does not.
CRI_SPIN=(-n 6 -i 400 -c 25)
CRI_POD_ANN='{"run.oci.cpu.burst":"20000","burst-e2e.example/not-allowed":"1"}'

# cri_unthrottled OUT QUOTA: the burst (20 ms) was delivered at both levels
# in the run left in $work/OUT, both with quota QUOTA. Ours: each level's
# throttled periods within BC_TOLERANCE of the model's for the run's own
# requests and that level's pool (burstctl.sh: the kernel's slack the model
# leaves out; seen here: a container throttled once, for 13 ms, that no
# request waited for). The model says 0 for this load; without the pod's
# burst it says one a request. Debian's kernel, whose refill the model is
# not of, also throttles now and then where the pool should cover a request
# (t_spin_burst runs again for it); there the pod level, with a pool of the
# same size, must not throttle more than the container.
cri_unthrottled() {
	local thr pod model
	thr=$(cri_spin_field "$1" nr_throttled) pod=$(cri_spin_field "$1" pod_nr_throttled)
	if [[ $expect == patched ]]; then
		model=$(model_own "$2" 100000 20000 "$work/$1")
		say "$1: throttled periods: container $thr, pod $pod; the model for the run's requests, quota $2, burst 20000: ${model:-?} (tolerance $BC_TOLERANCE)"
		[[ -n $model ]] && ((thr <= model + BC_TOLERANCE && pod <= model + BC_TOLERANCE))
	else
		((pod <= thr))
	fi
}

# cri_pod_pair DRIVER HANDLER: a pod of one container under the bursty load,
# with the pod-level burst crun gives it, then with the pod's burst set to 0
# by hand (what a node without it has: the kubelet's pod cgroup has none),
# then given back by crun at the container's next update: with it, the
# burst is delivered at both levels; without it, the pod-level cgroup
# throttles. (A second pod with pod-cgroup = false would show the same at
# twice the cost; the crun guest suite checks that setting.)
cri_pod_pair() {
	local driver=$1 handler=$2 off thr model pod
	off=pod-off-$driver
	cri_run_pod "pod-$driver" "$handler" "$driver" "$CRI_POD_ANN" "$(cri_ctr on 200m)" || return 1
	cri_expect on "20000 100000" 20000 && cri_pod_expect on "20000 100000" 20000 || return 1
	cri_spin on "pod-on-$driver" "${CRI_SPIN[@]}" || return 1
	pod=$(cri_pod_dir "${cri_ids[on]}") && echo 0 >"$pod/cpu.max.burst" || return 1
	cri_pod_expect on "20000 100000" 0 && cri_spin on "$off" "${CRI_SPIN[@]}" || return 1
	timeout "$TMO" crun --root "$CRI_CRUN_ROOT" update --cpu-burst 20000 "${cri_ids[on]}" 2>"$work/err" ||
		{ say "crun update failed: $(cat "$work/err")"; return 1; }
	say "crun update --cpu-burst 20000 of the container gives the pod its burst back:"
	cri_pod_expect on "20000 100000" 20000 || return 1
	say "RESULT $driver driver: with the pod-level burst: container $(cri_spin_field "pod-on-$driver" nr_throttled)," \
		"pod $(cri_spin_field "pod-on-$driver" pod_nr_throttled) throttled periods; without:" \
		"container $(cri_spin_field "$off" nr_throttled), pod $(cri_spin_field "$off" pod_nr_throttled)"
	cri_unthrottled "pod-on-$driver" 20000 || return 1
	# Without the pod's burst the pod level throttles: on ours as the model
	# says for its pool (20 ms, no burst: one a request), on Debian's more
	# than the container.
	thr=$(cri_spin_field "$off" pod_nr_throttled)
	if [[ $expect == patched ]]; then
		model=$(model_own 20000 100000 0 "$work/$off")
		say "$off: the pod throttled $thr periods; the model for its pool without a burst: ${model:-?} (tolerance $BC_TOLERANCE)"
		[[ -n $model ]] && ((model > 0 && thr >= model - BC_TOLERANCE && thr <= model + BC_TOLERANCE))
	else
		((thr > $(cri_spin_field "$off" nr_throttled)))
	fi
}

# cri_resize_check DRIVER MANIFEST NAME LIMIT WANT_MAX: resize container
# NAME of the pod in MANIFEST to LIMIT in the kubelet's order (shown); then
# the container and the pod-level cgroup have cpu.max WANT_MAX, burst 20000.
cri_resize_check() {
	local driver=$1 manifest=$2 name=$3 limit=$4 want=$5
	cri resize --cgroup-driver "$driver" "$manifest" "$name" "$limit" >"$work/resize.out" || return 1
	say "resize $name to $limit, in order: $(tr '\n' ';' <"$work/resize.out")"
	cri_expect "$name" "$want" 20000 && cri_pod_expect "$name" "$want" 20000
}

cri_pod_systemd() {
	local m=$work/pod-systemd.json rc=0 ann other
	cri_pod_pair systemd crun || return 1
	# What reached crun: the allowed annotation only; the sandbox (no quota)
	# got the pod's value too.
	ann=$(cri_spec_annotation on run.oci.cpu.burst)
	other=$(cri_spec_annotation on burst-e2e.example/not-allowed)
	say "OCI annotations given to crun: run.oci.cpu.burst=${ann:-(absent)} burst-e2e.example/not-allowed=${other:-(absent)}"
	[[ $ann == 20000 && -z $other ]] &&
		cri_expect on "20000 100000" 20000 "/kubepods-burstable-pod[0-9a-f_]+\.slice/cri-containerd-${cri_ids[on]}\.scope$CRI_SUBGROUP" &&
		cri_expect sandbox "max 100000" 20000 "/cri-containerd-$cri_pod\.scope$CRI_SUBGROUP" || return 1
	# systemd re-applies every unit's properties, the pod slice's CPU quota
	# among them: cpu.max is written again, without the burst.
	timeout "$TMO" systemctl daemon-reload && cri_pod_expect on "20000 100000" 20000 || return 1
	# The slice's quota set again over D-Bus (SetUnitProperties, as
	# libcontainer does at a resize; a pod sync writes nothing).
	cri rewrite-pod --cgroup-driver systemd "$m" >/dev/null && cri_pod_expect on "20000 100000" 20000 || return 1
	# In-place resize up: the pod first, then the container. Then the load:
	# the burst still delivered after the rewrites and the resize.
	cri_resize_check systemd "$m" on 300m "30000 100000" && cri_spin on grown "${CRI_SPIN[@]}" &&
		cri_unthrottled grown 30000 || return 1
	grep -q '^pod' <(head -1 "$work/resize.out") || { say "growing: the pod was not first"; return 1; }
	# Down to 100m, below the burst: the container first, then the pod. Ours
	# takes it; Debian's refuses the container's quota, and the kubelet then
	# leaves the pod alone.
	cri resize --cgroup-driver systemd "$m" on 100m >"$work/resize.out" || rc=$?
	say "resize on to 100m: rc $rc, $(tr '\n' ';' <"$work/resize.out")"
	if [[ $expect == patched ]]; then
		((rc == 0)) && grep -q '^container' <(head -1 "$work/resize.out") &&
			cri_expect on "10000 100000" 20000 && cri_pod_expect on "10000 100000" 20000
	else
		((rc != 0)) && grep -qi burst "$work/cri.err" && cri_expect on "30000 100000" 20000 &&
			cri_pod_expect on "30000 100000" 20000
	fi
}
t_cri_pod_systemd() { # systemd driver (only the allowed annotation reaches crun; sandbox 20000): the pod-level slice carries the burst: 0 throttled at pod and container, vs. pod throttled without; kept through daemon-reload, a SetUnitProperties rewrite (rewrite-pod) and resizes
	cri_case cri_pod_systemd
}

cri_pod_cgroupfs() {
	local m=$work/pod-cgroupfs.json
	cri_pod_pair cgroupfs crun-cgroupfs || return 1
	cri_expect on "20000 100000" 20000 "^$CG/kubepods/burstable/pod[0-9a-f-]+/${cri_ids[on]}$" || return 1
	# The pod's cpu.max written again in two fields, as a resize writes it
	# (the kubelet does not write it at a pod sync), then a resize.
	cri rewrite-pod --cgroup-driver cgroupfs "$m" >/dev/null && cri_pod_expect on "20000 100000" 20000 &&
		cri_resize_check cgroupfs "$m" on 400m "40000 100000" &&
		cri_spin on cgroupfs-grown "${CRI_SPIN[@]}" && cri_unthrottled cgroupfs-grown 40000
}
t_cri_pod_cgroupfs() { # cgroupfs driver (/kubepods/burstable/pod<uid>): the same pair, then a two-field cpu.max rewrite (rewrite-pod) and a resize to 400m keep the pod's burst
	cri_case cri_pod_cgroupfs
}

# Three containers of 200m bursting together: each request of 25 ms (15 ms
# within its container's 40 ms pool), one container's right after the
# other's (burst-spin -S), 75 ms of the pod's in a row from 5 ms into a
# period, every 500 ms. The pod's quota is 60 ms; with the sum of the
# bursts (60 ms) its pool covers a round.
CRI_THREE_SPIN=(-n 4 -i 500 -c 25)
CRI_THREE_GAP_US=25000
CRI_THREE=(a b c)
cri_three() {
	local t0 i dir pid pids=() thr ctr_thr m_sum m_none pod before
	cri_run_pod cri-three crun systemd "$CRI_POD_ANN" "$(cri_ctr a 200m)" "$(cri_ctr b 200m)" "$(cri_ctr c 200m)" ||
		return 1
	cri_pod_expect a "60000 100000" 60000 || return 1
	pod=$(cri_pod_dir "${cri_ids[a]}") || return 1
	before=$(cri_throttled "$pod")
	# 5 s on (2 s was too little once on Debian's kernel for the three
	# loads to start), 5 ms into a period: a round's 75 ms fall in one
	# period, above the pod's 60 ms quota.
	t0=$(cri_period_start 5)
	for i in 0 1 2; do
		dir=$(cri_cg "${cri_ids[${CRI_THREE[i]}]}") || return 1
		cri_load "$dir" -s "$dir/cpu.stat" "${CRI_THREE_SPIN[@]}" -S $((t0 + i * CRI_THREE_GAP_US)) >"$work/three.$i" 2>&1 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || { say "burst-spin failed: $(cat "$work"/three.*)"; return 1; }; done
	thr=$(($(cri_throttled "$pod") - before))
	for i in 0 1 2; do say "${CRI_THREE[i]}: $(cat "$work/three.$i")"; done
	for i in 0 1 2; do spin_stalled "$(cat "$work/three.$i")" && say "(not run again: the model is given each request's own CPU)"; done
	# The pod's demand: every request of the three, merged.
	m_sum=$(model_own 60000 100000 60000 "$work"/three.{0,1,2})
	m_none=$(model_own 60000 100000 0 "$work"/three.{0,1,2})
	say "RESULT three containers: the pod-level cgroup throttled $thr periods; the model for the pod's summed pool (quota 60 ms, burst 60 ms), given the requests, $m_sum (tolerance $BC_TOLERANCE); without the pod's burst it would be $m_none"
	ctr_thr=0
	for i in 0 1 2; do ctr_thr=$((ctr_thr + $(field nr_throttled "$(cat "$work/three.$i")"))); done
	[[ -n $m_sum && -n $m_none ]] && ((m_none > 0)) || { say "the load did not need the pod's burst (model without it: '$m_none')"; return 1; }
	if [[ $expect == patched ]]; then
		((ctr_thr == 0 && thr >= m_sum - BC_TOLERANCE && thr <= m_sum + BC_TOLERANCE))
	else
		# The model is of our series' refill rule. On Debian's kernel the
		# pod level (pool 120 ms for 75 ms a round) must not throttle more
		# than the containers (40 ms each for 25 ms) do.
		say "the containers throttled $ctr_thr periods in all"
		((thr <= ctr_thr))
	fi || return 1
	# A container removed: the pod's burst drops by its share.
	cri remove "${cri_ids[c]}" || return 1
	cri_pod_expect a "60000 100000" 40000
}
t_cri_pod_three() { # three containers bursting together: pod-level throttled periods match the model for the summed pool; one removed, the pod's burst drops by its 20000
	cri_case cri_three
}

cri_node_max() {
	local rc=0 id
	printf '# the node operator\nmax = 10ms\n' >/etc/crun/cpu-burst.conf
	cri_run_pod cri-max crun systemd "$CRI_POD_ANN" "$(cri_ctr app 200m)" || rc=$?
	id=${cri_ids[app]:-}
	((rc != 0)) && [[ -n $id ]] || { say "run-pod rc=$rc, container '${id:0:12}': StartContainer should have failed"; return 1; }
	say "refused: $(grep 'StartContainer failed' "$work/cri.err")"
	grep -q 'cannot set the CPU burst to 20000us: this node allows at most 10000us' "$work/cri.err" &&
		grep -q '/etc/crun/cpu-burst.conf' "$work/cri.err" && [[ -z $(cri_left "$id") ]]
}
t_cri_node_max() { # the node's maximum (max = 10ms in /etc/crun/cpu-burst.conf): a pod asking 20 ms is refused with crun's message, nothing left
	cri_case cri_node_max
}

cri_not_allowed() {
	local ann
	cri_run_pod cri-denied crun-no-annotations systemd '{"run.oci.cpu.burst":"20000"}' \
		"$(cri_ctr app 250m '{"run.oci.cpu.burst":"20000"}')" || return 1
	ann=$(cri_spec_annotation app run.oci.cpu.burst)
	say "run.oci.cpu.burst in the OCI configuration: ${ann:-(absent)}"
	[[ -z $ann ]] && cri_expect app "25000 100000" 0
}
t_cri_not_allowed() { # handler without the allow-list: pod and container annotation never reach crun, burst 0
	cri_case cri_not_allowed
}

cri_tests=(
	t_cri_setup t_cri_pod_list t_cri_container_annotation
	t_cri_above_quota t_cri_pod_systemd t_cri_pod_cgroupfs t_cri_pod_three t_cri_node_max t_cri_not_allowed
)
