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
	# The pod-level cgroup of the cgroupfs driver is the kubelet's to remove.
	rmdir "$CG"/kubepods/*/pod* 2>/dev/null
	return "$rc"
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

cri_pod_value() {
	cri_run_pod cri-value crun systemd \
		'{"run.oci.cpu.burst":"20000","burst-e2e.example/not-allowed":"1"}' "$(cri_ctr app 250m)" || return 1
	local ann other
	ann=$(cri_spec_annotation app run.oci.cpu.burst)
	other=$(cri_spec_annotation app burst-e2e.example/not-allowed)
	say "OCI annotations given to crun: run.oci.cpu.burst=${ann:-(absent)} burst-e2e.example/not-allowed=${other:-(absent)}"
	[[ $ann == 20000 && -z $other ]] &&
		cri_expect app "25000 100000" 20000 "/kubepods-burstable-pod[0-9a-f_]+\.slice/cri-containerd-${cri_ids[app]}\.scope$CRI_SUBGROUP" &&
		cri_expect sandbox "max 100000" 20000 "/cri-containerd-$cri_pod\.scope$CRI_SUBGROUP"
}
t_cri_pod_value() { # pod annotation run.oci.cpu.burst=20000, limit 250m: container burst 20000, the sandbox (no quota) too; other annotations dropped
	cri_case cri_pod_value
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

cri_resize() {
	local rc=0
	cri_run_pod cri-resize crun systemd '{"run.oci.cpu.burst":"20000"}' "$(cri_ctr app 250m)" || return 1
	cri_expect app "25000 100000" 20000 || return 1
	cri resize "${cri_ids[app]}" 400m || return 1
	cri_expect app "40000 100000" 20000 || return 1
	# Down to 100m, a quota below the burst: ours takes it; stock refuses
	# and keeps quota and burst.
	cri resize "${cri_ids[app]}" 100m || rc=$?
	if [[ $expect == patched ]]; then
		((rc == 0)) && cri_expect app "10000 100000" 20000
	else
		((rc != 0)) || { say "resize to 100m (quota 10000 < burst 20000) accepted on the stock kernel"; return 1; }
		grep -qi burst "$work/cri.err" || { say "the refusal does not name the burst"; return 1; }
		cri_expect app "40000 100000" 20000
	fi
}
t_cri_resize() { # UpdateContainerResources 250m -> 400m keeps burst 20000; -> 100m (quota below burst): ours applies, stock refuses and keeps both
	cri_case cri_resize
}

cri_cgroupfs() {
	cri_run_pod cri-cgroupfs crun-cgroupfs cgroupfs '{"run.oci.cpu.burst":"app=20000"}' "$(cri_ctr app 250m)" || return 1
	cri_expect app "25000 100000" 20000 "^$CG/kubepods/burstable/pod[0-9a-f-]+/${cri_ids[app]}$" &&
		cri resize "${cri_ids[app]}" 400m && cri_expect app "40000 100000" 20000
}
t_cri_cgroupfs() { # cgroupfs driver (handler crun-cgroupfs, /kubepods/burstable/pod<uid>): burst 20000 at create, kept by a resize to 400m
	cri_case cri_cgroupfs
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
	t_cri_setup t_cri_pod_value t_cri_pod_list t_cri_container_annotation
	t_cri_above_quota t_cri_resize t_cri_cgroupfs t_cri_not_allowed
)
