#!/usr/bin/python3
"""Host tests of tools/cri/cri-client (TAP, then "cri-client: N passed, N failed").

- the kubelet's derivations: CPU quantities, quota and shares from limits
  and requests, the pod-level quota and weight, systemd's quota rounding,
  QoS class, the pod-level cgroup name per driver, the in-place resize
  order;
- the requests the client sends, recorded by a fake RuntimeService served
  on a Unix socket in a temporary directory (generated from cri.proto like
  the image's stubs): run-pod, sync-pod, resize, inspect, delete-pod, a
  refused StartContainer, manifests it must refuse;
- its cgroups, in a fake cgroup root (CRI_CLIENT_CGROUP_ROOT, a temporary
  directory): the files the cgroupfs driver writes, and for the systemd
  driver the busctl calls, made to a fake busctl (CRI_CLIENT_BUSCTL: this
  file with --fake-busctl) that records them and does to the fake root what
  systemd would. Both fakes append to one event log, so a test sees the
  order of CRI calls and busctl calls, and the fake RuntimeService notes
  what the pod's cgroup holds when each CRI call arrives.

Usage: test-cri-client.py  (needs python3-grpc-tools, python3-grpcio)
"""
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent import futures

HERE = os.path.dirname(os.path.realpath(__file__))
CLIENT = os.path.join(HERE, "cri-client")
SYSTEMD_CALL = ["--", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager"]
n = failed = 0


def report(ok, what, detail=""):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok and detail:
        for line in str(detail).splitlines():
            print(f"#   {line}")


def load_client():
    loader = importlib.machinery.SourceFileLoader("cri_client", CLIENT)
    spec = importlib.util.spec_from_loader("cri_client", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    return None


def raises_usage(cc, fn, *args):
    return raises(cc.UsageError, fn, *args)


# --- the fake busctl ------------------------------------------------------------------


def parse_props(args):
    """busctl's a(sv) arguments: ({NAME: VALUE}, the arguments after them)."""
    count, i, props = int(args[0]), 1, {}
    for _ in range(count):
        name, sig = args[i], args[i + 1]
        i += 2
        if sig == "as":
            k = int(args[i])
            props[name] = args[i + 1:i + 1 + k]
            i += 1 + k
        elif sig == "b":
            props[name] = {"true": True, "false": False}[args[i]]
            i += 1
        elif sig == "t":
            props[name] = int(args[i])
            i += 1
        else:
            props[name] = args[i]
            i += 1
    return props, args[i:]


def slice_dir(root, name):
    parts = name[:-len(".slice")].split("-")
    return os.path.join(root, *["-".join(parts[:i + 1]) + ".slice" for i in range(len(parts))])


def apply_like_systemd(path, props):
    """What systemd writes into a slice's cgroup for these properties."""
    if "CPUQuotaPerSecUSec" in props:
        per_sec = props["CPUQuotaPerSecUSec"]
        period = props.get("CPUQuotaPeriodUSec", 100000)
        text = f"max {period}" if per_sec == 2**64 - 1 else f"{max(per_sec * period // 10**6, 1000)} {period}"
        with open(os.path.join(path, "cpu.max"), "w") as f:
            f.write(text + "\n")
    if "CPUWeight" in props:
        with open(os.path.join(path, "cpu.weight"), "w") as f:
            f.write(f"{props['CPUWeight']}\n")


def fake_busctl(argv):
    """busctl as cri-client calls it: records ARGV in FAKE_EVENTS and makes,
    changes or removes the slice's directory under CRI_CLIENT_CGROUP_ROOT
    as systemd would (a new cgroup with the kernel's defaults)."""
    root = os.environ["CRI_CLIENT_CGROUP_ROOT"]
    with open(os.environ["FAKE_EVENTS"], "a") as f:
        f.write(json.dumps({"busctl": argv}) + "\n")
    if os.environ.get("FAKE_BUSCTL_FAIL"):
        print("Call failed: Access denied", file=sys.stderr)
        return 1
    # As busctl's getopt: every argument before "--" that starts with "-"
    # is an option, and none is expected ("-.slice" would be one).
    options = argv[:argv.index("--")] if "--" in argv else argv
    if any(a.startswith("-") for a in options):
        print(f"busctl: invalid option in {options}", file=sys.stderr)
        return 1
    if argv[:5] != SYSTEMD_CALL:
        print(f"fake busctl: unexpected {argv}", file=sys.stderr)
        return 1
    method, args = argv[5], argv[7:]
    path = slice_dir(root, args[0])
    if method == "StartTransientUnit":
        props, rest = parse_props(args[2:])
        if rest != ["0"]:
            print(f"fake busctl: auxiliary units {rest}", file=sys.stderr)
            return 1
        os.makedirs(path)
        apply_like_systemd(path, {"CPUQuotaPerSecUSec": 2**64 - 1, "CPUWeight": 100})
        apply_like_systemd(path, props)
    elif method == "SetUnitProperties":
        props, _ = parse_props(args[2:])
        apply_like_systemd(path, props)
    elif method == "StopUnit":
        shutil.rmtree(path)
    print('o "/org/freedesktop/systemd1/job/7"')
    return 0


# --- derivations ----------------------------------------------------------------------


def test_derivations(cc, tmp):
    cases = [("250m", 250), ("0.5", 500), ("2", 2000), ("1.25", 1250), (" 100m ", 100)]
    got = [(q, cc.parse_cpu(q, "t")) for q, _ in cases]
    report(got == cases, "CPU quantities: millicores and cores", got)
    errors = [raises_usage(cc, cc.parse_cpu, q, "limit") for q in ("lots", "1.2345", "-1", "250M", "")]
    report(all(errors) and "`lots` is not a CPU quantity" in errors[0], "bad CPU quantities are refused, naming the value", errors)
    quotas = [cc.milli_to_quota(m) for m in (250, 5, 0, 1500, 10)]
    report(quotas == [25000, 1000, 0, 150000, 1000], "quota = limit x 100 ms period, at least 1 ms, none without a limit", quotas)
    shares = [cc.milli_to_shares(m) for m in (250, 400, 1, 0, 2000, 300000)]
    report(shares == [256, 409, 2, 2, 2048, 262144], "shares = request x 1024 / 1000, within [2, 262144]", shares)
    one = {"spec": {"containers": []}}
    res = [cc.container_resources(one, {"name": "a", "resources": r}) for r in (
        {"limits": {"cpu": "250m"}}, {"limits": {"cpu": "250m"}, "requests": {"cpu": "100m"}},
        {"requests": {"cpu": "100m"}}, {})]
    want = [{"cpu_period": 100000, "cpu_quota": 25000, "cpu_shares": 256},
            {"cpu_period": 100000, "cpu_quota": 25000, "cpu_shares": 102},
            {"cpu_period": 100000, "cpu_quota": 0, "cpu_shares": 102},
            {"cpu_period": 100000, "cpu_quota": 0, "cpu_shares": 2}]
    report(res == want, "resources: shares from the request (else the limit), quota from the limit", res)
    weights = [cc.shares_to_weight(s) for s in (2, 1024, 262144, 256, 409)]
    report(weights == [1, 39, 10000, 10, 16], "cpu.weight = 1 + (shares - 2) x 9999 / 262142: 2 -> 1, 1024 -> 39, 262144 -> 10000",
           weights)

    def ctr(name, limit=None, request=None):
        res = {}
        if limit:
            res["limits"] = {"cpu": limit}
        if request:
            res["requests"] = {"cpu": request}
        return {"name": name, "resources": res}
    def apps(*containers):
        return {"spec": {"containers": list(containers)}}
    pods = [cc.pod_cpu(apps(ctr("a", "250m"), ctr("b", "150m", "100m"))),
            cc.pod_cpu(apps(ctr("a", "250m"), ctr("b", None, "100m"))),
            cc.pod_cpu(apps(ctr("a", "5m"), ctr("b", "5m"))),
            cc.pod_cpu(apps(ctr("a")))]
    report(pods == [(40000, 14, 100000), (None, 14, None), (1000, 1, 100000), (None, 1, None)],
           "pod CPU: quota from the sum of the limits, none when a container has none; weight from the summed requests",
           pods)
    per_sec = [cc.systemd_quota_per_sec(q) for q in (25500, 25000, 1000, 1, None)]
    report(per_sec == [260000, 250000, 10000, 10000, 2**64 - 1],
           "CPUQuotaPerSecUSec: quota per second rounded up to 10 ms (255m -> 260000), infinity without a quota", per_sec)
    report([cc.systemd_cpu_max(260000), cc.systemd_cpu_max(2**64 - 1)] == ["26000 100000", "max 100000"],
           "the cpu.max systemd writes for a CPUQuotaPerSecUSec")
    uid = "0f3c-11aa"
    parents = [cc.cgroup_parent("systemd", "burstable", uid), cc.cgroup_parent("cgroupfs", "burstable", uid)]
    report(parents == ["kubepods-burstable-pod0f3c_11aa.slice", "/kubepods/burstable/pod0f3c-11aa"],
           "pod cgroup parent as the kubelet names it, per driver", parents)
    chains = [cc.SystemdTree.chain(parents[0]), cc.CgroupfsTree.chain(parents[1])]
    report(chains == [["kubepods.slice", "kubepods-burstable.slice", "kubepods-burstable-pod0f3c_11aa.slice"],
                      ["/kubepods", "/kubepods/burstable", "/kubepods/burstable/pod0f3c-11aa"]],
           "the QoS parents above a pod cgroup, per driver", chains)
    report(bool(raises_usage(cc, cc.cgroup_parent, "cgroupv1", "burstable", uid)), "an unknown cgroup driver is refused")
    limited = {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}, {"name": "b"}]}
    report((cc.qos_class(limited), cc.qos_class({"containers": [{"name": "b"}]})) == ("burstable", "besteffort"),
           "QoS class: Burstable with a CPU limit, BestEffort with none")
    err = raises_usage(cc, cc.cpu_of, {"name": "a", "resources": {"limits": {"hugepages-2Mi": "1Gi"}}}, "limits")
    report(err is not None and "only cpu and memory" in err, "a resource other than cpu and memory is refused, not ignored",
           err)

    P = cc.PodCPU
    orders = [cc.resize_steps(P(25000, 10), P(40000, 16)), cc.resize_steps(P(40000, 16), P(10000, 4)),
              cc.resize_steps(P(None, 10), P(40000, 10)), cc.resize_steps(P(25000, 10), P(25000, 10)),
              cc.resize_steps(P(25000, 10), P(40000, 4))]
    report(orders == [["limit", "weight", "container"], ["container", "weight", "limit"], ["limit", "container"],
                      ["container"], ["limit", "container", "weight"]],
           "resize order: growing pod limit and weight before the container, shrinking ones after (weight first)", orders)

    pod = {"metadata": {"name": "p", "uid": "u"}, "spec": {"hostNetwork": True, "containers": [
        ctr("a", "250m"), ctr("b", "200m", "150m")]}}
    new, c = cc.resized_pod(pod, "b", "300m", None)
    report(c["resources"] == {"limits": {"cpu": "300m"}, "requests": {"cpu": "150m"}}
           and pod["spec"]["containers"][1]["resources"]["limits"] == {"cpu": "200m"},
           "resized_pod: the new limit, the request kept, the original untouched", (c, pod))
    errs = [raises_usage(cc, cc.resized_pod, pod, "x", "300m", None),
            raises_usage(cc, cc.resized_pod, pod, "b", "100m", None),
            raises_usage(cc, cc.resized_pod, pod, "a", "0", None),
            raises_usage(cc, cc.resized_pod, pod, "a", "100m", "200m")]
    report(all(errs) and "`x`: not in POD.json (containers: a, b)" in errs[0] and "request 150m is above CPU_LIMIT `100m`" in errs[1]
           and "cannot remove a limit" in errs[2] and "above CPU_LIMIT" in errs[3],
           "resized_pod refuses an unknown container, a request above the limit, a limit of 0", errs)

    gone = os.path.join(tmp, "never")
    err = raises(cc.NodeError, cc.wait_for_dir, gone, True, "StartTransientUnit x.slice", timeout_s=0.2)
    report(err is not None and gone in err and "StartTransientUnit x.slice" in err,
           "waiting for a cgroup is bounded, and the error names the directory and the call", err)
    old = os.environ.get("CRI_CLIENT_CGROUP_ROOT")
    os.environ["CRI_CLIENT_CGROUP_ROOT"] = tmp
    try:
        err = raises_usage(cc, cc.cgroup_tree, "cgroupfs")
    finally:
        if old is None:
            del os.environ["CRI_CLIENT_CGROUP_ROOT"]
        else:
            os.environ["CRI_CLIENT_CGROUP_ROOT"] = old
    report(err is not None and "cgroup.controllers is absent" in err and "cgroup v1 is not supported" in err,
           "cgroup v1 (no cgroup.controllers) is refused as a usage error", err)
    bad = [raises(cc.NodeError, cc.SystemdTree.chain, "system.slice"),
           raises(cc.NodeError, cc.CgroupfsTree.chain, "/kubepods/../etc"),
           raises(cc.NodeError, cc.SystemdTree.pod_level, "kubepods-burstable.slice"),
           raises(cc.NodeError, cc.CgroupfsTree.pod_level, "/kubepods/other/pod1")]
    report(all(bad) and cc.CgroupfsTree.pod_level("/kubepods/pod1-2") == ["/kubepods", "/kubepods/pod1-2"],
           "delete-pod removes only a kubelet's pod-level cgroup, never a QoS parent or another slice", bad)


# --- pod shapes: the pod-level CPU the kubelet sets --------------------------------------

def ctr(name, cpu_limit=None, cpu_request=None, mem_limit=None, mem_request=None, sidecar=False):
    """A container (or init container) of a manifest with these resources."""
    res = {}
    for kind, cpu, mem in (("limits", cpu_limit, mem_limit), ("requests", cpu_request, mem_request)):
        values = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
        if values:
            res[kind] = values
    c = {"name": name, "image": "localhost/w:1", "resources": res}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def shape(containers, init=(), overhead=None, pod_resources=None):
    spec = {"hostNetwork": True, "containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    if overhead:
        spec["overhead"] = {"cpu": overhead}
    if pod_resources:
        spec["resources"] = pod_resources
    return {"metadata": {"name": "s", "uid": "u"}, "spec": spec}


# Each row: what it shows, the pod, the kubelet's options, the QoS class, and
# the pod cgroup's (quota, weight, period) the kubelet sets, worked out by
# hand from ResourceConfigForPod. quota None is "max"; period None means the
# kubelet writes no cpu.max at all (the kernel's "max 100000" stays).
# weight = 1 + (shares - 2) * 9999 // 262142, shares = request x 1024 / 1000.
# The last column is what the client computed before it followed the kubelet
# (the app containers' limits only, 100 ms), where that differs.
SHAPES = [
    # apps 200m + 100m = 300m; the init container alone needs 500m, and the
    # pod's limit is the larger: 500m -> 50000 / 100000. Requests (defaulted
    # to the limits) likewise 500m -> shares 512 -> 1 + 510 * 9999 // 262142 = 20.
    ("init container bigger than the apps", shape([ctr("a", "200m"), ctr("b", "100m")], init=[ctr("migrate", "500m")]),
     {}, "burstable", (50000, 20, 100000), "30000, weight 12"),
    # app 200m + sidecar 100m = 300m; the init container after the sidecar
    # runs beside it: 250m + 100m = 350m > 300m -> 35000; shares 358 -> 14.
    ("sidecar, then an init container that runs beside it",
     shape([ctr("a", "200m")], init=[ctr("log", "100m", sidecar=True), ctr("setup", "250m")]),
     {}, "burstable", (35000, 14, 100000), "20000, weight 8"),
    # a sidecar keeps running: it adds to the apps, 200m + 100m = 300m; shares 307 -> 12.
    ("a sidecar adds to the apps", shape([ctr("a", "200m")], init=[ctr("log", "100m", sidecar=True)]),
     {}, "burstable", (30000, 12, 100000), "20000, weight 8"),
    # limits 250m + 150m = 400m, plus the RuntimeClass overhead 250m = 650m;
    # requests 250m + 100m + 250m = 600m -> shares 614 -> 1 + 612 * 9999 // 262142 = 24.
    ("RuntimeClass overhead", shape([ctr("a", "250m"), ctr("b", "150m", "100m")], overhead="250m"),
     {}, "burstable", (65000, 24, 100000), "40000, weight 14"),
    # spec.resources.limits.cpu 300m replaces the sum 500m; the pod-level
    # request defaults to it: 300m -> shares 307 -> 12. CPU but no memory at
    # pod level: Burstable.
    ("pod-level limit below the sum", shape([ctr("a", "250m"), ctr("b", "250m")],
                                            pod_resources={"limits": {"cpu": "300m"}}),
     {}, "burstable", (30000, 12, 100000), "50000, weight 20"),
    # b has no limit: no pod quota, nothing written; requests 250m + 100m = 350m -> 14.
    ("one container without a limit", shape([ctr("a", "250m"), ctr("b", None, "100m")]),
     {}, "burstable", (None, 14, None), None),
    # the init container has no limit: PodLimits hands it to ContainerFn with
    # nothing, so the pod is not limited (kubelets with PodLevelResources,
    # 1.32 on); requests max(250m, 0) -> shares 256 -> 10.
    ("an init container without a limit", shape([ctr("a", "250m")], init=[ctr("setup")]),
     {}, "burstable", (None, 10, None), "25000, weight 10"),
    # cpuCFSQuota=false: quota -1 with the period: "max 100000" written; weight as ever, 14.
    ("--no-cpu-cfs-quota", shape([ctr("a", "250m"), ctr("b", "150m", "100m")]),
     {"cfs_quota": False}, "burstable", (None, 14, 100000), "40000, weight 14"),
    # a 50 ms period: 400m x 50000 / 1000 = 20000 of 50000.
    ("a 50 ms period", shape([ctr("a", "250m"), ctr("b", "150m", "100m")]),
     {"period": 50000}, "burstable", (20000, 14, 50000), "40000 / 100000"),
    # Guaranteed (requests = limits for CPU and memory in every container):
    # 2 + 0.5 = 2500m -> 250000; shares 2560 -> 1 + 2558 * 9999 // 262142 = 98.
    ("Guaranteed", shape([ctr("a", "2", None, "1Gi"), ctr("b", "500m", None, "256Mi")]),
     {}, "guaranteed", (250000, 98, 100000), None),
    # ... under the static CPU manager a has 2 exclusive CPUs (a whole
    # number): the pod gets no quota, "max 100000" written.
    ("Guaranteed with exclusive CPUs", shape([ctr("a", "2", None, "1Gi"), ctr("b", "500m", None, "256Mi")]),
     {"static_cpu_manager": True}, "guaranteed", (None, 98, 100000), "250000"),
    # static CPU manager but no whole CPU (1500m): no exclusive CPUs, quota
    # kept; shares 1536 -> 1 + 1534 * 9999 // 262142 = 59.
    ("Guaranteed, static manager, no whole CPU", shape([ctr("a", "1500m", None, "1Gi")]),
     {"static_cpu_manager": True}, "guaranteed", (150000, 59, 100000), None),
    # the static manager gives exclusive CPUs to Guaranteed pods only: a
    # whole CPU in a Burstable pod keeps its quota; shares 2048 -> 79.
    ("Burstable, static manager, whole CPU", shape([ctr("a", "2")]),
     {"static_cpu_manager": True}, "burstable", (200000, 79, 100000), None),
    # pod-level CPU and memory, none on the containers: Guaranteed from the
    # pod's own resources; 1 CPU -> 100000, shares 1024 -> 39.
    ("pod-level Guaranteed, containers without resources",
     shape([ctr("a"), ctr("b")], pod_resources={"limits": {"cpu": "1", "memory": "1Gi"}}),
     {}, "guaranteed", (100000, 39, 100000), "none, weight 1"),
    ("BestEffort", shape([ctr("a")]), {}, "besteffort", (None, 1, None), None),
]


def test_shapes(cc):
    for what, pod, opts, qos, want, _before in SHAPES:
        options = cc.KubeletOptions(**opts)
        got_qos = cc.qos_class(pod["spec"])
        got = tuple(cc.pod_cpu(pod, options))
        report(got_qos == qos and got == want, f"pod shape: {what}: {qos}, pod cpu (quota, weight, period) {want}",
               f"got {got_qos} {got}")
    # The containers' own resources under the same options.
    guaranteed = SHAPES[10][1]
    res = [cc.container_resources(guaranteed, c, cc.KubeletOptions(static_cpu_manager=True))
           for c in guaranteed["spec"]["containers"]]
    report(res == [{"cpu_shares": 2048, "cpu_period": 100000, "cpu_quota": -1},
                   {"cpu_shares": 512, "cpu_period": 100000, "cpu_quota": 50000}],
           "exclusive CPUs: the whole-CPU container's quota is -1, its 500m neighbour keeps 50000", res)
    pod = SHAPES[8][1]
    res = [cc.container_resources(pod, c, cc.KubeletOptions(period=50000)) for c in pod["spec"]["containers"]]
    res += [cc.container_resources(pod, c, cc.KubeletOptions(cfs_quota=False)) for c in pod["spec"]["containers"]]
    report(res == [{"cpu_shares": 256, "cpu_period": 50000, "cpu_quota": 12500},
                   {"cpu_shares": 102, "cpu_period": 50000, "cpu_quota": 7500},
                   {"cpu_shares": 256}, {"cpu_shares": 102}],
           "containers: 250m over 50 ms is 12500 of 50000; without cpuCFSQuota neither quota nor period", res)
    pod = SHAPES[13][1]
    res = [cc.container_resources(pod, c) for c in pod["spec"]["containers"]]
    report(res == [{"cpu_shares": 1024, "cpu_period": 100000, "cpu_quota": 100000}] * 2,
           "pod-level resources: a container without its own limit gets the pod's (quota and shares)", res)
    opts = [cc.kubelet_options(["--cpu-cfs-quota-period", "50ms", "--no-cpu-cfs-quota", "--cgroup-driver", "cgroupfs",
                                "--static-cpu-manager", "POD.json"]),
            cc.kubelet_options(["POD.json"])]
    report(opts == [(cc.KubeletOptions("cgroupfs", False, 50000, True), ["POD.json"]),
                    (cc.KubeletOptions("systemd", True, 100000, False), ["POD.json"])],
           "kubelet options in any order before the arguments; defaults systemd, quota on, 100 ms", opts)
    periods = [cc.parse_duration_us(t, "p") for t in ("50ms", "100000us", "0.1s", "1s", "1ms")]
    errs = [raises_usage(cc, cc.parse_duration_us, t, "--cpu-cfs-quota-period") for t in ("500us", "2s", "50", "1.5us")]
    report(periods == [50000, 100000, 100000, 1000000, 1000] and all(errs),
           "--cpu-cfs-quota-period: Go durations, 1 ms to 1 s as the kubelet allows", (periods, errs))
    mem = [cc.parse_memory(t, "m") for t in ("1Gi", "1024Mi", "1G", "1048576")]
    report(mem[0] == mem[1] == 2**30 and mem[2] == 10**9 and mem[3] == 2**20,
           "memory quantities (for the QoS class): 1Gi = 1024Mi, 1G = 10^9", mem)
    err = raises_usage(cc, cc.qos_class, {"containers": [ctr("a", mem_limit="lots")]})
    report(err is not None and "`lots` is not a memory quantity" in err, "a bad memory quantity is refused", err)


# --- the fake RuntimeService ----------------------------------------------------------


def make_fake(pb, pb_grpc, grpc, events):
    """A RuntimeService that records every request and answers like containerd;
    each call also goes to the EVENTS log with what the pod cgroup at
    self.watch holds at that moment."""
    from google.protobuf import json_format

    class Fake(pb_grpc.RuntimeServiceServicer):
        def __init__(self):
            self.calls = []
            self.watch = None
            self.info_config = True
            self.reset()

        def reset(self):
            self.sandboxes = {}   # id: PodSandboxConfig as a dict
            self.containers = {}  # id: [name, sandbox id, state]
            self.commands = {}    # id: the container's command
            self.polls = {}       # id: ContainerStatus calls so far
            self.attempts = {}    # id: its metadata.attempt

        def record(self, method, request):
            self.calls.append((method, json_format.MessageToDict(request, preserving_proto_field_name=True)))
            event = {"cri": method}
            if self.watch:
                event["exists"] = os.path.isdir(self.watch)
                for f in ("cpu.max", "cpu.weight"):
                    if os.path.exists(os.path.join(self.watch, f)):
                        with open(os.path.join(self.watch, f)) as fh:
                            event[f] = fh.read().strip()
            with open(events, "a") as f:
                f.write(json.dumps(event) + "\n")

        def Version(self, request, context):
            self.record("Version", request)
            return pb.VersionResponse(version="0.1.0", runtime_name="fake", runtime_version="1.0",
                                      runtime_api_version="v1")

        def RunPodSandbox(self, request, context):
            self.record("RunPodSandbox", request)
            sid = f"pod{len(self.sandboxes)}"
            self.sandboxes[sid] = json_format.MessageToDict(request.config, preserving_proto_field_name=True)
            return pb.RunPodSandboxResponse(pod_sandbox_id=sid)

        def CreateContainer(self, request, context):
            self.record("CreateContainer", request)
            name, attempt = request.config.metadata.name, request.config.metadata.attempt
            cid = ("ctr-" + name + ("" if request.pod_sandbox_id == "pod0" else "-" + request.pod_sandbox_id)
                   + (f"-{attempt}" if attempt else ""))
            self.containers[cid] = [name, request.pod_sandbox_id, pb.CONTAINER_CREATED]
            self.attempts[cid] = attempt
            self.commands[cid] = list(request.config.command)
            return pb.CreateContainerResponse(container_id=cid)

        def StartContainer(self, request, context):
            self.record("StartContainer", request)
            c = self.containers[request.container_id]
            if c[0] == "refused":
                c[2] = pb.CONTAINER_EXITED
                context.abort(grpc.StatusCode.UNKNOWN, "failed to create containerd task: crun: cannot set the "
                              "CPU burst to 75000us: it is above the CPU quota of 25000us")
            c[2] = pb.CONTAINER_RUNNING
            return pb.StartContainerResponse()

        def UpdateContainerResources(self, request, context):
            self.record("UpdateContainerResources", request)
            return pb.UpdateContainerResourcesResponse()

        def ContainerStatus(self, request, context):
            self.record("ContainerStatus", request)
            cid = request.container_id
            if self.commands.get(cid) in (["true"], ["false"]):
                # A command that ends: running when first asked, then exited
                # with true's or false's status.
                self.polls[cid] = self.polls.get(cid, 0) + 1
                done = self.polls[cid] > 1
                if done:
                    self.containers[cid][2] = pb.CONTAINER_EXITED
                return pb.ContainerStatusResponse(status=pb.ContainerStatus(
                    id=cid, state=pb.CONTAINER_EXITED if done else pb.CONTAINER_RUNNING,
                    exit_code=(self.commands[cid] == ["false"]) if done else 0))
            info = {"pid": 4242, "runtimeSpec": {"annotations": {"run.oci.cpu.burst": "20000",
                                                                 "io.kubernetes.cri.container-name": "app"}}}
            return pb.ContainerStatusResponse(
                status=pb.ContainerStatus(id=request.container_id, state=pb.CONTAINER_EXITED,
                                          reason="StartError", message="crun: refused\nsecond line"),
                info={"info": json.dumps(info)})

        def PodSandboxStatus(self, request, context):
            self.record("PodSandboxStatus", request)
            config = self.sandboxes.get(request.pod_sandbox_id, {})
            meta = config.get("metadata", {})
            # containerd's verbose info: the sandbox's config under "config",
            # with the CRI API's Go JSON names (cgroup_parent).
            info = {"pid": 77, "runtimeSpec": {}}
            if self.info_config:
                info["config"] = config
            return pb.PodSandboxStatusResponse(
                status=pb.PodSandboxStatus(id=request.pod_sandbox_id, state=pb.SANDBOX_READY,
                                           metadata=pb.PodSandboxMetadata(name=meta.get("name", ""),
                                                                          uid=meta.get("uid", ""))),
                info={"info": json.dumps(info)})

        def ListContainers(self, request, context):
            self.record("ListContainers", request)
            want = request.filter.pod_sandbox_id
            return pb.ListContainersResponse(containers=[
                pb.Container(id=cid, pod_sandbox_id=sid, state=state,
                             metadata=pb.ContainerMetadata(name=name, attempt=self.attempts.get(cid, 0)))
                for cid, (name, sid, state) in sorted(self.containers.items()) if not want or sid == want])

        def StopContainer(self, request, context):
            self.record("StopContainer", request)
            return pb.StopContainerResponse()

        def RemoveContainer(self, request, context):
            self.record("RemoveContainer", request)
            self.containers.pop(request.container_id, None)
            return pb.RemoveContainerResponse()

        def StopPodSandbox(self, request, context):
            self.record("StopPodSandbox", request)
            return pb.StopPodSandboxResponse()

        def RemovePodSandbox(self, request, context):
            self.record("RemovePodSandbox", request)
            return pb.RemovePodSandboxResponse()

    return Fake()


POD = {"metadata": {"name": "web", "namespace": "burst-e2e", "uid": "1234-abcd",
                    "annotations": {"run.oci.cpu.burst": "app=20ms"}},
       "spec": {"runtimeClassName": "crun", "hostNetwork": True,
                "containers": [{"name": "app", "image": "localhost/w:1", "command": ["sleep", "9"],
                                "resources": {"limits": {"cpu": "250m"}},
                                "criAnnotations": {"run.oci.cpu.burst": "15ms"}}]}}
# Two containers: quota 250m + 150m = 40000, shares (250 + 100)m = 358, weight 14.
POD2 = {"metadata": {"name": "two", "namespace": "burst-e2e", "uid": "5678-ef"},
        "spec": {"runtimeClassName": "crun-cgroupfs", "hostNetwork": True,
                 "containers": [{"name": "app", "image": "localhost/w:1", "resources": {"limits": {"cpu": "250m"}}},
                                {"name": "side", "image": "localhost/w:1",
                                 "resources": {"limits": {"cpu": "150m"}, "requests": {"cpu": "100m"}}}]}}
SLICE = "kubepods-burstable-pod1234_abcd.slice"
SLICE_DIR = "kubepods.slice/kubepods-burstable.slice/" + SLICE


def copy(obj):
    return json.loads(json.dumps(obj))


def test_calls(tmp):
    stubs = os.path.join(tmp, "stubs")
    os.mkdir(stubs)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + HERE, "--python_out=" + stubs,
                    "--grpc_python_out=" + stubs, os.path.join(HERE, "cri.proto")], check=True)
    sys.path.insert(0, stubs)
    import grpc
    import cri_pb2
    import cri_pb2_grpc
    events_log = os.path.join(tmp, "events")
    fake = make_fake(cri_pb2, cri_pb2_grpc, grpc, events_log)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    cri_pb2_grpc.add_RuntimeServiceServicer_to_server(fake, server)
    sock = "unix://" + os.path.join(tmp, "cri.sock")
    server.add_insecure_port(sock)
    server.start()
    env = dict(os.environ, CRI_ENDPOINT=sock, CRI_CLIENT_STUBS=stubs, FAKE_EVENTS=events_log,
               CRI_CLIENT_BUSCTL=shlex.join([sys.executable, os.path.realpath(__file__), "--fake-busctl"]))
    roots = iter(range(1000))

    def new_root(controllers="cpuset cpu io memory pids"):
        """A fake cgroup v2 mount: the root's cgroup.controllers."""
        root = os.path.join(tmp, f"cgroup{next(roots)}")
        os.mkdir(root)
        if controllers is not None:
            with open(os.path.join(root, "cgroup.controllers"), "w") as f:
                f.write(controllers + "\n")
        return root

    pod_json = os.path.join(tmp, "pod.json")

    def write_pod(manifest):
        with open(pod_json, "w", encoding="utf-8") as f:
            json.dump(manifest, f)

    def run(*args, root, manifest=None, extra_env=None):
        """cri-client ARGS with the fake cgroup ROOT; MANIFEST written to
        POD.json, whose path stands for the argument "POD.json" (appended
        when there is none). The calls and events of this run only."""
        fake.calls.clear()
        open(events_log, "w").close()
        if manifest is not None:
            write_pod(manifest)
            args = tuple(pod_json if a == "POD.json" else a for a in args)
            if pod_json not in args:
                args = args + (pod_json,)
        return subprocess.run([sys.executable, CLIENT, *args], env=dict(env, CRI_CLIENT_CGROUP_ROOT=root, **(extra_env or {})),
                              capture_output=True, text=True, timeout=60)

    def events():
        with open(events_log) as f:
            return [json.loads(line) for line in f]

    def steps():
        """The events as "cri METHOD" and "busctl METHOD NAME"."""
        return [f"cri {e['cri']}" if "cri" in e else f"busctl {e['busctl'][5]} {e['busctl'][7]}" for e in events()]

    def busctl_calls():
        return [e["busctl"] for e in events() if "busctl" in e]

    def read(root, rel):
        with open(os.path.join(root, rel)) as f:
            return f.read().strip()

    try:
        # --- run-pod, systemd driver -----------------------------------------------------
        root = new_root()
        r = run("run-pod", root=root, manifest=POD)
        methods = [m for m, _ in fake.calls]
        report(r.returncode == 0 and methods == ["RunPodSandbox", "CreateContainer", "StartContainer"]
               and r.stdout == "pod pod0\ncontainer app ctr-app\n",
               "run-pod: RunPodSandbox, CreateContainer, StartContainer; ids printed", (methods, r.stdout, r.stderr))
        run_req, create_req = fake.calls[0][1], fake.calls[1][1]
        sandbox = run_req["config"]
        report(run_req["runtime_handler"] == "crun"
               and sandbox["annotations"] == {"run.oci.cpu.burst": "app=20ms"}
               and sandbox["linux"]["cgroup_parent"] == SLICE
               and sandbox["linux"]["security_context"]["namespace_options"].get("network") == "NODE"
               and sandbox["metadata"] == {"name": "web", "uid": "1234-abcd", "namespace": "burst-e2e"}
               and "hostname" not in sandbox,
               "RunPodSandbox: handler from runtimeClassName, pod annotations, systemd parent, node network, no hostname",
               json.dumps(run_req))
        cfg = create_req["config"]
        report(create_req["pod_sandbox_id"] == "pod0" and create_req["sandbox_config"] == sandbox
               and cfg["linux"]["resources"] == {"cpu_period": "100000", "cpu_quota": "25000", "cpu_shares": "256"}
               and cfg["annotations"] == {"run.oci.cpu.burst": "15ms"} and cfg["metadata"]["name"] == "app"
               and cfg["command"] == ["sleep", "9"] and cfg["labels"]["io.kubernetes.container.name"] == "app",
               "CreateContainer: the pod's config again, limit 250m as quota 25000 / period 100000, container annotations",
               json.dumps(create_req))
        report(all(line.startswith(("cri: ", "cgroup: ")) for line in r.stderr.splitlines()) and
               r.stderr.count("cri: ") == 3 and '"cpu_quota":"25000"' in r.stderr and "StartTransientUnit" in r.stderr,
               "every request is shown on stderr as JSON, every busctl call as cgroup:", r.stderr)
        report(steps() == ["busctl StartTransientUnit kubepods.slice", "busctl StartTransientUnit kubepods-burstable.slice",
                           f"busctl StartTransientUnit {SLICE}", "cri RunPodSandbox", "cri CreateContainer",
                           "cri StartContainer"],
               "run-pod (systemd): kubepods, the QoS slice, the pod slice, each by busctl, before RunPodSandbox", steps())
        calls = busctl_calls()
        pod_call = calls[2] if len(calls) == 3 else []
        props, rest = parse_props(pod_call[9:]) if pod_call else ({}, None)
        report(pod_call[:9] == SYSTEMD_CALL + ["StartTransientUnit", "ssa(sv)a(sa(sv))", SLICE, "replace"] and rest == ["0"]
               and props.get("Wants") == ["kubepods-burstable.slice"] and props.get("DefaultDependencies") is False
               and props.get("CPUAccounting") is True and props.get("CPUWeight") == 10
               and props.get("CPUQuotaPerSecUSec") == 250000 and props.get("CPUQuotaPeriodUSec") == 100000
               and props.get("Description"),
               "the pod slice: StartTransientUnit replace, Wants its QoS slice, no default dependencies, CPUAccounting, "
               "CPUWeight 10, CPUQuotaPerSecUSec 250000, CPUQuotaPeriodUSec 100000", pod_call)
        top = parse_props(calls[0][9:])[0] if calls else {}
        qos = parse_props(calls[1][9:])[0] if len(calls) > 1 else {}
        report(top.get("Wants") == ["-.slice"] and qos.get("Wants") == ["kubepods.slice"]
               and not any(k.startswith("CPUQuota") or k == "CPUWeight" for k in {**top, **qos}),
               "the QoS parents: wanted by their parent slice, no CPU limit or weight (the kubelet recomputes those)",
               calls[:2])
        report(read(root, SLICE_DIR + "/cpu.max") == "25000 100000" and read(root, SLICE_DIR + "/cpu.weight") == "10",
               "the pod slice's cgroup (made by the fake systemd) holds 25000 100000, weight 10")

        r = run("run-pod", root=root, manifest=POD)
        report(r.returncode == 0 and not busctl_calls(),
               "run-pod again: the slices exist, no StartTransientUnit", (r.stderr, busctl_calls()))

        # --- sync-pod, systemd -------------------------------------------------------------
        r = run("sync-pod", root=root, manifest=POD)
        report(r.returncode == 0 and busctl_calls() == [SYSTEMD_CALL + [
            "SetUnitProperties", "sba(sv)", SLICE, "true", "3", "CPUQuotaPerSecUSec", "t", "250000",
            "CPUQuotaPeriodUSec", "t", "100000", "CPUWeight", "t", "10"]]
               and r.stdout == "pod cpu.max 25000 100000\npod cpu.weight 10\n" and not fake.calls,
               "sync-pod (systemd; the old name of rewrite-pod, as tests/e2e/cri-cases.sh called it): "
               "SetUnitProperties runtime with quota, period and weight; no CRI call",
               (r.stdout, r.stderr, busctl_calls()))

        # --- resize, systemd: grow, then shrink -------------------------------------------
        fake.reset()
        root = new_root()
        run("run-pod", root=root, manifest=POD)
        fake.watch = os.path.join(root, SLICE_DIR)
        r = run("resize", "POD.json", "app", "400m", root=root, manifest=POD)
        update = [req for m, req in fake.calls if m == "UpdateContainerResources"]
        report(r.returncode == 0 and update == [{
            "container_id": "ctr-app", "linux": {"cpu_period": "100000", "cpu_quota": "40000", "cpu_shares": "409"}}],
               "resize app 400m: UpdateContainerResources of the pod's running app, quota 40000, shares 409",
               (fake.calls, r.stderr))
        report(r.stdout == "pod cpu.max 40000 100000\npod cpu.weight 16\ncontainer app 40000 100000\n",
               "resize grow: prints the pod limit, the pod weight, then the container", r.stdout)
        upd = [e for e in events() if e.get("cri") == "UpdateContainerResources"]
        report([s for s in steps() if not s.startswith(("cri ListContainers", "cri PodSandboxStatus"))] ==
               [f"busctl SetUnitProperties {SLICE}"] * 2 + ["cri UpdateContainerResources"]
               and [parse_props(c[9:])[0] for c in busctl_calls()] ==
               [{"CPUQuotaPerSecUSec": 400000, "CPUQuotaPeriodUSec": 100000}, {"CPUWeight": 16}]
               and upd and upd[0].get("cpu.max") == "40000 100000" and upd[0].get("cpu.weight") == "16",
               "resize grow (systemd): the pod slice's quota, then its weight, are set before UpdateContainerResources",
               (steps(), busctl_calls(), upd))
        with open(pod_json) as f:
            saved = json.load(f)
        report(saved["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "400m"}}
               and saved["metadata"] == POD["metadata"] and saved["spec"]["containers"][0]["criAnnotations"]
               == POD["spec"]["containers"][0]["criAnnotations"],
               "resize rewrites POD.json with the new limit, the rest kept", saved)

        r = run("resize", pod_json, "app", "100m", root=root)
        upd = [e for e in events() if e.get("cri") == "UpdateContainerResources"]
        report(r.returncode == 0 and r.stdout == "container app 10000 100000\npod cpu.weight 4\npod cpu.max 10000 100000\n"
               and [s for s in steps() if not s.startswith(("cri ListContainers", "cri PodSandboxStatus"))] ==
               ["cri UpdateContainerResources"] + [f"busctl SetUnitProperties {SLICE}"] * 2
               and upd and upd[0].get("cpu.max") == "40000 100000" and upd[0].get("cpu.weight") == "16"
               and read(root, SLICE_DIR + "/cpu.max") == "10000 100000",
               "resize shrink (systemd): UpdateContainerResources first (the pod still at 40000), then weight, then quota",
               (r.stdout, r.stderr, steps(), upd))

        # --- run-pod, sync-pod and resize, cgroupfs driver --------------------------------------
        fake.reset()
        root = new_root()
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=POD2)
        pod_rel = "kubepods/burstable/pod5678-ef"
        report(r.returncode == 0 and fake.calls[0][1]["config"]["linux"]["cgroup_parent"] == "/" + pod_rel
               and not busctl_calls(),
               "run-pod --cgroup-driver cgroupfs: the kubelet's cgroupfs parent, no busctl", (fake.calls[:1], r.stderr))
        subtree = [read(root, d + "cgroup.subtree_control") for d in ("", "kubepods/", "kubepods/burstable/")]
        report(subtree == ["+cpu +memory +pids"] * 3 and not os.path.exists(os.path.join(root, pod_rel, "cgroup.subtree_control")),
               "cgroupfs: cpu, memory and pids enabled in the root's, kubepods' and burstable's subtree_control, not the pod's",
               subtree)
        report(read(root, pod_rel + "/cpu.max") == "40000 100000" and read(root, pod_rel + "/cpu.weight") == "14"
               and not os.path.exists(os.path.join(root, "kubepods/burstable/cpu.max")),
               "cgroupfs: the pod's cpu.max 40000 100000 (250m + 150m) and cpu.weight 14; the QoS parent untouched")
        fake.watch = os.path.join(root, pod_rel)

        with open(os.path.join(root, pod_rel, "cpu.max"), "w") as f:
            f.write("1000 100000\n")
        r = run("rewrite-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=POD2)
        report(r.returncode == 0 and read(root, pod_rel + "/cpu.max") == "40000 100000"
               and r.stdout == "pod cpu.max 40000 100000\npod cpu.weight 14\n",
               "rewrite-pod (cgroupfs): cpu.max rewritten as QUOTA PERIOD, and cpu.weight", (r.stdout, r.stderr))

        r = run("resize", "--cgroup-driver", "cgroupfs", "POD.json", "app", "400m", root=root, manifest=POD2)
        upd = [e for e in events() if e.get("cri") == "UpdateContainerResources"]
        report(r.returncode == 0 and r.stdout == "pod cpu.max 55000 100000\npod cpu.weight 20\ncontainer app 40000 100000\n"
               and upd and upd[0].get("cpu.max") == "55000 100000" and upd[0].get("cpu.weight") == "20",
               "resize grow (cgroupfs): pod cpu.max 55000 and cpu.weight 20 already written when UpdateContainerResources comes",
               (r.stdout, r.stderr, upd))
        r = run("resize", "--cgroup-driver", "cgroupfs", pod_json, "side", "100m", "50m", root=root)
        upd = [e for e in events() if e.get("cri") == "UpdateContainerResources"]
        req = [q for m, q in fake.calls if m == "UpdateContainerResources"]
        report(r.returncode == 0 and r.stdout == "container side 10000 100000\npod cpu.weight 18\npod cpu.max 50000 100000\n"
               and upd and upd[0].get("cpu.max") == "55000 100000" and upd[0].get("cpu.weight") == "20"
               and read(root, pod_rel + "/cpu.max") == "50000 100000" and read(root, pod_rel + "/cpu.weight") == "18"
               and req == [{"container_id": "ctr-side", "linux": {"cpu_period": "100000", "cpu_quota": "10000",
                                                                  "cpu_shares": "51"}}],
               "resize shrink (cgroupfs) side 100m 50m: UpdateContainerResources while the pod still has 55000, then 18, 50000",
               (r.stdout, r.stderr, upd, req))
        with open(pod_json) as f:
            saved = json.load(f)
        report([c["resources"] for c in saved["spec"]["containers"]] ==
               [{"limits": {"cpu": "400m"}}, {"limits": {"cpu": "100m"}, "requests": {"cpu": "50m"}}],
               "POD.json keeps both resizes: app 400m, side 100m / 50m", saved["spec"]["containers"])

        # A second pod's running `side` and a refused one are not the pod's.
        other = copy(POD2)
        other["metadata"]["uid"] = "9999"
        run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=other)
        r = run("resize", "--cgroup-driver", "cgroupfs", "POD.json", "side", "120m", "50m", root=root, manifest=saved)
        req = [q["container_id"] for m, q in fake.calls if m == "UpdateContainerResources"]
        report(r.returncode == 0 and req == ["ctr-side"], "resize finds the container in the sandbox of POD.json's uid",
               (req, r.stderr))

        # --- resize refusals ---------------------------------------------------------------------
        r = run("resize", "POD.json", "app", root=root, manifest=POD)
        report(r.returncode == 2 and not fake.calls and "resize [--cgroup-driver systemd|cgroupfs] [--cpu-cfs-quota-period DURATION] "
               "[--no-cpu-cfs-quota] [--static-cpu-manager] POD.json CONTAINER_NAME CPU_LIMIT [CPU_REQUEST]" in r.stderr, "a call with missing arguments says its usage", r.stderr)
        r = run("resize", "POD.json", "nosuch", "400m", root=root, manifest=POD)
        report(r.returncode == 2 and not fake.calls and "`nosuch`: not in POD.json" in r.stderr,
               "resize of a container POD.json lacks is refused before any call", r.stderr)
        r = run("resize", "POD.json", "app", "400m", root=new_root(), manifest=POD)
        report(r.returncode == 1 and not fake.calls and "does not exist" in r.stderr and SLICE in r.stderr,
               "resize without the pod's cgroup: exit 1, naming it, no CRI call", r.stderr)
        fake.reset()
        r = run("resize", "--cgroup-driver", "cgroupfs", "POD.json", "app", "400m", root=root, manifest=POD2)
        report(r.returncode == 1 and "UpdateContainerResources" not in [m for m, _ in fake.calls]
               and "0 running containers named `app`" in r.stderr,
               "resize without a running container: exit 1, nothing updated", r.stderr)

        # --- cgroupfs: controllers the root lacks, a pod without a limit ---------------------------
        fake.reset()
        root = new_root("cpu io")
        nolimit = copy(POD2)
        del nolimit["spec"]["containers"][0]["resources"]
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=nolimit)
        report(r.returncode == 0 and read(root, "cgroup.subtree_control") == "+cpu"
               and not os.path.exists(os.path.join(root, pod_rel, "cpu.max")) and read(root, pod_rel + "/cpu.weight") == "4",
               "cgroupfs: only +cpu when the root has no memory or pids; a container without a limit: cpu.max not "
               "written (the kernel's max 100000 stays), weight 4",
               r.stderr)
        root = new_root("memory pids")
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=POD2)
        report(r.returncode == 1 and not fake.calls and "no cpu controller" in r.stderr,
               "cgroupfs without the cpu controller: exit 1 before RunPodSandbox", r.stderr)
        r = run("run-pod", root=new_root(None), manifest=POD)
        report(r.returncode == 2 and not fake.calls and "cgroup v1 is not supported" in r.stderr,
               "cgroup v1: run-pod refused before any call", r.stderr)
        r = run("run-pod", root=new_root(), manifest=POD, extra_env={"FAKE_BUSCTL_FAIL": "1"})
        report(r.returncode == 1 and not fake.calls and "busctl StartTransientUnit kubepods.slice failed (exit 1): "
               "Call failed: Access denied" in r.stderr,
               "a refused StartTransientUnit: exit 1 with busctl's message, no RunPodSandbox", r.stderr)

        # --- refused StartContainer, inspect ---------------------------------------------------------
        fake.reset()
        root = new_root()
        refused = copy(POD)
        refused["spec"]["containers"][0]["name"] = "refused"
        r = run("run-pod", root=root, manifest=refused)
        report(r.returncode == 1 and r.stdout == "pod pod0\ncontainer refused ctr-refused\n"
               and "cri-client: StartContainer failed: UNKNOWN: failed to create containerd task: crun: cannot set the CPU burst" in r.stderr,
               "a refused StartContainer: exit 1, the runtime's message, the ids made so far printed", (r.stdout, r.stderr))

        r = run("inspect", "ctr-app", root=root)
        report(r.returncode == 0 and fake.calls == [("ContainerStatus", {"container_id": "ctr-app", "verbose": True})]
               and r.stdout == "state CONTAINER_EXITED\npid 4242\nreason StartError\nmessage crun: refused second line\n"
               "annotation io.kubernetes.cri.container-name=app\nannotation run.oci.cpu.burst=20000\n",
               "inspect: state, pid, reason, message on one line, the OCI annotations", r.stdout)
        r = run("inspect-pod", "pod0", root=root)
        report(r.returncode == 0 and r.stdout == "state SANDBOX_READY\npid 77\n", "inspect-pod: state and pid", r.stdout)

        r = run("remove", "ctr-app", root=root)
        report(r.returncode == 0 and [m for m, _ in fake.calls] == ["StopContainer", "RemoveContainer"]
               and all(req.get("container_id") == "ctr-app" for _, req in fake.calls),
               "remove: StopContainer then RemoveContainer of that container only", fake.calls)

        # --- delete-pod ----------------------------------------------------------------------------
        fake.reset()
        root = new_root()
        run("run-pod", root=root, manifest=POD)
        fake.containers["ctr-refused"] = ["refused", "pod0", cri_pb2.CONTAINER_EXITED]
        fake.watch = os.path.join(root, SLICE_DIR)
        r = run("delete-pod", "pod0", root=root)
        methods = [(m, req.get("container_id", req.get("pod_sandbox_id"))) for m, req in fake.calls]
        stops = [req.get("timeout", 0) for m, req in fake.calls if m == "StopContainer"]
        report(r.returncode == 0 and fake.calls[0] == ("PodSandboxStatus", {"pod_sandbox_id": "pod0", "verbose": True})
               and methods[1] == ("ListContainers", None)
               and methods[2:] == [("StopContainer", "ctr-app"), ("RemoveContainer", "ctr-app"),
                                   ("StopContainer", "ctr-refused"), ("RemoveContainer", "ctr-refused"),
                                   ("StopPodSandbox", "pod0"), ("RemovePodSandbox", "pod0")]
               and set(stops) == {0},
               "delete-pod: the sandbox's config asked first, each container stopped at once and removed, then the sandbox",
               (methods, r.stderr))
        removed = [e for e in events() if e.get("cri") == "RemovePodSandbox"]
        report(steps()[-2:] == ["cri RemovePodSandbox", f"busctl StopUnit {SLICE}"]
               and busctl_calls() == [SYSTEMD_CALL + ["StopUnit", "ss", SLICE, "replace"]]
               and removed and removed[0]["exists"] and not os.path.exists(os.path.join(root, SLICE_DIR))
               and os.path.isdir(os.path.join(root, "kubepods.slice/kubepods-burstable.slice")),
               "delete-pod (systemd): StopUnit of the pod slice after RemovePodSandbox, its cgroup gone, the QoS slices kept",
               (steps(), busctl_calls()))

        fake.reset()
        root = new_root()
        run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=POD2)
        fake.watch = os.path.join(root, pod_rel)
        # A real cgroup's interface files go with its directory; a plain
        # directory's must be removed for rmdir to succeed.
        for f in os.listdir(fake.watch):
            os.remove(os.path.join(fake.watch, f))
        r = run("delete-pod", "pod0", root=root)
        removed = [e for e in events() if e.get("cri") == "RemovePodSandbox"]
        report(r.returncode == 0 and removed and removed[0]["exists"] and not os.path.exists(fake.watch)
               and os.path.isdir(os.path.join(root, "kubepods/burstable")) and f"rmdir {fake.watch}" in r.stderr,
               "delete-pod (cgroupfs): the pod directory removed after RemovePodSandbox, the QoS parents kept",
               (r.stderr, removed))
        r = run("delete-pod", "pod0", root=root)
        report(r.returncode == 0 and "already gone" in r.stderr, "delete-pod with the pod cgroup already gone: fine", r.stderr)

        fake.info_config = False
        r = run("delete-pod", "pod0", root=root)
        fake.info_config = True
        report(r.returncode == 1 and [m for m, _ in fake.calls][-1] == "RemovePodSandbox"
               and "no config.linux.cgroup_parent" in r.stderr,
               "delete-pod without the sandbox's cgroup_parent: the sandbox removed, exit 1, saying so", r.stderr)

        # --- init containers and sidecars: the kubelet's order -------------------------------------
        fake.reset()
        root = new_root()
        init_pod = {"metadata": {"name": "init", "namespace": "burst-e2e", "uid": "abcd-1"},
                    "spec": {"runtimeClassName": "crun-cgroupfs", "hostNetwork": True,
                             "initContainers": [
                                 {"name": "log", "image": "localhost/w:1", "command": ["sleep", "9"],
                                  "restartPolicy": "Always", "resources": {"limits": {"cpu": "100m"}}},
                                 {"name": "setup", "image": "localhost/w:1", "command": ["true"],
                                  "resources": {"limits": {"cpu": "250m"}}}],
                             "containers": [{"name": "app", "image": "localhost/w:1", "command": ["sleep", "9"],
                                             "resources": {"limits": {"cpu": "200m"}}}]}}
        init_rel = "kubepods/burstable/podabcd-1"
        fake.watch = os.path.join(root, init_rel)
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=init_pod)
        calls = [(m, q.get("config", {}).get("metadata", {}).get("name") or q.get("container_id"))
                 for m, q in fake.calls]
        report(r.returncode == 0 and calls == [
            ("RunPodSandbox", "init"), ("CreateContainer", "log"), ("StartContainer", "ctr-log"),
            ("CreateContainer", "setup"), ("StartContainer", "ctr-setup"),
            ("ContainerStatus", "ctr-setup"), ("ContainerStatus", "ctr-setup"),
            ("CreateContainer", "app"), ("StartContainer", "ctr-app")]
               and r.stdout == "pod pod0\ncontainer log ctr-log\ncontainer setup ctr-setup\ncontainer app ctr-app\n",
               "run-pod with a sidecar and an init container: the sidecar started (not waited for), the init container "
               "started and waited for until it exited, then the app; no RemoveContainer", (calls, r.stdout, r.stderr))
        sandbox_event = [e for e in events() if e.get("cri") == "RunPodSandbox"]
        report(sandbox_event and sandbox_event[0].get("cpu.max") == "35000 100000"
               and sandbox_event[0].get("cpu.weight") == "14",
               "... the pod cgroup made before the sandbox with the kubelet's quota: max(app 200m + sidecar 100m, "
               "setup 250m + sidecar 100m) = 350m -> 35000, weight 14", sandbox_event)
        creates = {q["config"]["metadata"]["name"]: q["config"]["linux"]["resources"]
                   for m, q in fake.calls if m == "CreateContainer"}
        report(creates == {"log": {"cpu_period": "100000", "cpu_quota": "10000", "cpu_shares": "102"},
                           "setup": {"cpu_period": "100000", "cpu_quota": "25000", "cpu_shares": "256"},
                           "app": {"cpu_period": "100000", "cpu_quota": "20000", "cpu_shares": "204"}},
               "... each init container and sidecar gets its own quota and shares, as an app container", creates)
        failing = copy(init_pod)
        failing["metadata"]["uid"] = "abcd-2"
        failing["spec"]["initContainers"][1]["command"] = ["false"]
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=root, manifest=failing)
        report(r.returncode == 1 and "init container `setup` (ctr-setup-pod1) exited with status 1" in r.stderr
               and not [q for m, q in fake.calls if m == "CreateContainer" and q["config"]["metadata"]["name"] == "app"]
               and r.stdout.splitlines()[-1] == "container setup ctr-setup-pod1",
               "an init container that fails: exit 1 naming it and its status, the app never created", (r.stdout, r.stderr))

        # --- the kubelet's CFS options on the node ------------------------------------------------
        fake.reset()
        root = new_root()
        r = run("run-pod", "--cpu-cfs-quota-period", "50ms", root=root, manifest=POD2)
        slice2 = "kubepods-burstable-pod5678_ef.slice"
        pod_call = [c for c in busctl_calls() if c[7] == slice2]
        props = parse_props(pod_call[0][9:])[0] if pod_call else {}
        creates = [q["config"]["linux"]["resources"] for m, q in fake.calls if m == "CreateContainer"]
        report(r.returncode == 0 and props.get("CPUQuotaPerSecUSec") == 400000 and props.get("CPUQuotaPeriodUSec") == 50000
               and read(root, "kubepods.slice/kubepods-burstable.slice/" + slice2 + "/cpu.max") == "20000 50000"
               and creates == [{"cpu_period": "50000", "cpu_quota": "12500", "cpu_shares": "256"},
                               {"cpu_period": "50000", "cpu_quota": "7500", "cpu_shares": "102"}],
               "--cpu-cfs-quota-period 50ms (systemd): the slice 400000 per s over 50000, cpu.max 20000 50000; "
               "containers 12500 and 7500 of 50000", (props, creates, r.stderr))
        r = run("rewrite-pod", "--cpu-cfs-quota-period", "50ms", root=root, manifest=POD2)
        report(r.returncode == 0 and r.stdout == "pod cpu.max 20000 50000\npod cpu.weight 14\n",
               "rewrite-pod with the same period writes the same pod quota", (r.stdout, r.stderr))

        fake.reset()
        root = new_root()
        r = run("run-pod", "--no-cpu-cfs-quota", "--cgroup-driver", "cgroupfs", root=root, manifest=POD2)
        creates = [q["config"]["linux"]["resources"] for m, q in fake.calls if m == "CreateContainer"]
        report(r.returncode == 0 and read(root, pod_rel + "/cpu.max") == "max 100000"
               and read(root, pod_rel + "/cpu.weight") == "14"
               and creates == [{"cpu_shares": "256"}, {"cpu_shares": "102"}],
               "--no-cpu-cfs-quota: the pod's cpu.max written as max 100000, weight 14; containers get shares only",
               (creates, r.stderr))

        fake.reset()
        root = new_root()
        guaranteed = {"metadata": {"name": "g", "namespace": "burst-e2e", "uid": "9a9a"},
                      "spec": {"runtimeClassName": "crun-cgroupfs", "hostNetwork": True, "containers": [
                          {"name": "pinned", "image": "localhost/w:1",
                           "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}},
                          {"name": "shared", "image": "localhost/w:1",
                           "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}}]}}
        r = run("run-pod", "--static-cpu-manager", "--cgroup-driver", "cgroupfs", root=root, manifest=guaranteed)
        creates = [q["config"]["linux"]["resources"] for m, q in fake.calls if m == "CreateContainer"]
        report(r.returncode == 0 and fake.calls[0][1]["config"]["linux"]["cgroup_parent"] == "/kubepods/pod9a9a"
               and read(root, "kubepods/pod9a9a/cpu.max") == "max 100000" and read(root, "kubepods/pod9a9a/cpu.weight") == "98"
               and not os.path.exists(os.path.join(root, "kubepods/guaranteed"))
               and creates == [{"cpu_period": "100000", "cpu_quota": "-1", "cpu_shares": "2048"},
                               {"cpu_period": "100000", "cpu_quota": "50000", "cpu_shares": "512"}],
               "--static-cpu-manager, Guaranteed pod with 2 whole CPUs: /kubepods/pod<uid> (no QoS level), cpu.max "
               "max 100000, weight 98; the pinned container quota -1, the shared one 50000", (creates, r.stderr))
        r = run("run-pod", "--cgroup-driver", "cgroupfs", root=new_root(), manifest=guaranteed)
        report(r.returncode == 0 and "cpu.max 250000 100000" in r.stderr,
               "the same pod without the static CPU manager: the pod quota 250000 (2.5 CPUs)", r.stderr)

        # --- restart of an exited app container ---------------------------------------------------
        fake.reset()
        root = new_root()
        run("run-pod", root=root, manifest=POD)
        r = run("restart", "POD.json", "app", root=root, manifest=POD)
        report(r.returncode == 1 and "no exited container named `app`" in r.stderr
               and "CreateContainer" not in [m for m, _ in fake.calls],
               "restart of a running container: exit 1, nothing created", r.stderr)
        fake.containers["ctr-app"][2] = cri_pb2.CONTAINER_EXITED
        r = run("restart", "POD.json", "app", root=root, manifest=POD)
        creates = [req for m, req in fake.calls if m == "CreateContainer"]
        report(r.returncode == 0 and r.stdout == "container app ctr-app-1\n" and len(creates) == 1
               and creates[0]["pod_sandbox_id"] == "pod0" and creates[0]["config"]["metadata"] == {"name": "app", "attempt": 1}
               and creates[0]["config"]["linux"]["resources"]["cpu_quota"] == "25000"
               and [m for m, _ in fake.calls][-2:] == ["CreateContainer", "StartContainer"]
               and "ctr-app" in fake.containers,
               "restart: CreateContainer in the dead one's sandbox, attempt 1, the same limits, then StartContainer; "
               "the dead one kept", (r.stdout, r.stderr, creates))
        fake.containers["ctr-app-1"][2] = cri_pb2.CONTAINER_EXITED
        r = run("restart", "POD.json", "app", root=root, manifest=POD)
        creates = [req for m, req in fake.calls if m == "CreateContainer"]
        report(r.returncode == 0 and r.stdout == "container app ctr-app-2\n"
               and creates and creates[0]["config"]["metadata"]["attempt"] == 2,
               "restart again: attempt 2, one above the highest dead attempt", (r.stdout, r.stderr))
        r = run("restart", "POD.json", "nosuch", root=root, manifest=POD)
        report(r.returncode == 2 and not fake.calls and "not an app container" in r.stderr,
               "restart of a name POD.json lacks: usage error, no call", r.stderr)

        # --- manifests refused -------------------------------------------------------------------
        bad = copy(POD)
        bad["spec"]["hostNetwork"] = False
        r = run("run-pod", root=new_root(), manifest=bad)
        report(r.returncode == 2 and not fake.calls and "spec.hostNetwork must be true" in r.stderr,
               "a pod without hostNetwork is refused before any call", r.stderr)
        bad = copy(POD)
        bad["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "lots"
        r = run("run-pod", root=new_root(), manifest=bad)
        report(r.returncode == 2 and not fake.calls and not busctl_calls() and "`lots` is not a CPU quantity" in r.stderr,
               "a bad CPU limit is refused before any call, naming it", r.stderr)
        refused = []
        for change in ({"initContainers": [{"name": "i", "image": "x", "restartPolicy": "OnFailure"}]},
                       {"initContainers": [{"name": "app", "image": "x"}]},
                       {"overhead": {"cpu": "lots"}},
                       {"resources": {"limits": {"cpu": "1"}}}):
            bad = copy(POD)
            bad["spec"].update(change)
            extra = ("--static-cpu-manager",) if "resources" in change else ()
            r = run("run-pod", *extra, root=new_root(), manifest=bad)
            refused.append((r.returncode, bool(fake.calls or busctl_calls()), r.stderr.strip()))
        report([(rc, called) for rc, called, _ in refused] == [(2, False)] * 4
               and "restartPolicy must be Always" in refused[0][2] and "unique" in refused[1][2]
               and "`lots` is not a CPU quantity" in refused[2][2] and "not modelled" in refused[3][2],
               "refused before any call: an init container's restartPolicy other than Always, a name used twice, "
               "a bad overhead, the static CPU manager with pod-level resources", refused)
        r = run("run-pod", "--cpu-cfs-quota-period", "5s", root=new_root(), manifest=POD)
        report(r.returncode == 2 and not fake.calls and "from 1ms to 1s" in r.stderr,
               "a period outside the kubelet's 1 ms to 1 s is refused", r.stderr)
    finally:
        server.stop(0)


def main():
    if sys.argv[1:2] == ["--fake-busctl"]:
        return fake_busctl(sys.argv[2:])
    cc = load_client()
    with tempfile.TemporaryDirectory() as tmp:
        test_derivations(cc, tmp)
        test_shapes(cc)
        test_calls(tmp)
    print(f"1..{n}")
    print(f"cri-client: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
