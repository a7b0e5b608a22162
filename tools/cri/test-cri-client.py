#!/usr/bin/python3
"""Host tests of tools/cri/cri-client (TAP, then "cri-client: N passed, N failed").

- the kubelet's derivations: CPU quantities, quota and shares from limits
  and requests, QoS class, the pod-level cgroup name per driver;
- the requests the client sends, recorded by a fake RuntimeService served
  on a Unix socket in a temporary directory (generated from cri.proto like
  the image's stubs): run-pod, resize, inspect, delete-pod, a refused
  StartContainer, manifests it must refuse.

Usage: test-cri-client.py  (needs python3-grpc-tools, python3-grpcio)
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from concurrent import futures

HERE = os.path.dirname(os.path.realpath(__file__))
CLIENT = os.path.join(HERE, "cri-client")
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


def raises_usage(cc, fn, *args):
    try:
        fn(*args)
    except cc.UsageError as e:
        return str(e)
    return None


def test_derivations(cc):
    cases = [("250m", 250), ("0.5", 500), ("2", 2000), ("1.25", 1250), (" 100m ", 100)]
    got = [(q, cc.parse_cpu(q, "t")) for q, _ in cases]
    report(got == cases, "CPU quantities: millicores and cores", got)
    errors = [raises_usage(cc, cc.parse_cpu, q, "limit") for q in ("lots", "1.2345", "-1", "250M", "")]
    report(all(errors) and "`lots` is not a CPU quantity" in errors[0], "bad CPU quantities are refused, naming the value", errors)
    quotas = [cc.milli_to_quota(m) for m in (250, 5, 0, 1500, 10)]
    report(quotas == [25000, 1000, 0, 150000, 1000], "quota = limit x 100 ms period, at least 1 ms, none without a limit", quotas)
    shares = [cc.milli_to_shares(m) for m in (250, 400, 1, 0, 2000)]
    report(shares == [256, 409, 2, 2, 2048], "shares = request x 1024 / 1000, at least 2", shares)
    res = [cc.container_resources(250, None), cc.container_resources(250, 100), cc.container_resources(None, 100)]
    want = [{"cpu_period": 100000, "cpu_quota": 25000, "cpu_shares": 256},
            {"cpu_period": 100000, "cpu_quota": 25000, "cpu_shares": 102},
            {"cpu_period": 100000, "cpu_quota": 0, "cpu_shares": 102}]
    report(res == want, "resources: shares from the request (else the limit), quota from the limit", res)
    uid = "0f3c-11aa"
    parents = [cc.cgroup_parent("systemd", "burstable", uid), cc.cgroup_parent("cgroupfs", "burstable", uid)]
    report(parents == ["kubepods-burstable-pod0f3c_11aa.slice", "/kubepods/burstable/pod0f3c-11aa"],
           "pod cgroup parent as the kubelet names it, per driver", parents)
    report(bool(raises_usage(cc, cc.cgroup_parent, "cgroupv1", "burstable", uid)), "an unknown cgroup driver is refused")
    limited = [{"name": "a", "resources": {"limits": {"cpu": "1"}}}, {"name": "b"}]
    report((cc.qos_class(limited), cc.qos_class([{"name": "b"}])) == ("burstable", "besteffort"),
           "QoS class: Burstable with a CPU limit, BestEffort with none")
    err = raises_usage(cc, cc.cpu_of, {"name": "a", "resources": {"limits": {"memory": "1Gi"}}}, "limits")
    report(err is not None and "only cpu" in err, "a memory limit is refused, not ignored", err)


def make_fake(pb, pb_grpc, grpc):
    """A RuntimeService that records every request and answers like containerd."""

    class Fake(pb_grpc.RuntimeServiceServicer):
        def __init__(self):
            self.calls = []
            self.containers = {}

        def record(self, method, request):
            from google.protobuf import json_format
            self.calls.append((method, json_format.MessageToDict(request, preserving_proto_field_name=True)))

        def Version(self, request, context):
            self.record("Version", request)
            return pb.VersionResponse(version="0.1.0", runtime_name="fake", runtime_version="1.0",
                                      runtime_api_version="v1")

        def RunPodSandbox(self, request, context):
            self.record("RunPodSandbox", request)
            return pb.RunPodSandboxResponse(pod_sandbox_id="pod0")

        def CreateContainer(self, request, context):
            self.record("CreateContainer", request)
            cid = "ctr-" + request.config.metadata.name
            self.containers[cid] = request.config.metadata.name
            return pb.CreateContainerResponse(container_id=cid)

        def StartContainer(self, request, context):
            self.record("StartContainer", request)
            if self.containers.get(request.container_id) == "refused":
                context.abort(grpc.StatusCode.UNKNOWN, "failed to create containerd task: crun: cannot set the "
                              "CPU burst to 75000us: it is above the CPU quota of 25000us")
            return pb.StartContainerResponse()

        def UpdateContainerResources(self, request, context):
            self.record("UpdateContainerResources", request)
            return pb.UpdateContainerResourcesResponse()

        def ContainerStatus(self, request, context):
            self.record("ContainerStatus", request)
            info = {"pid": 4242, "runtimeSpec": {"annotations": {"run.oci.cpu.burst": "20000",
                                                                 "io.kubernetes.cri.container-name": "app"}}}
            return pb.ContainerStatusResponse(
                status=pb.ContainerStatus(id=request.container_id, state=pb.CONTAINER_EXITED,
                                          reason="StartError", message="crun: refused\nsecond line"),
                info={"info": json.dumps(info)})

        def PodSandboxStatus(self, request, context):
            self.record("PodSandboxStatus", request)
            return pb.PodSandboxStatusResponse(status=pb.PodSandboxStatus(id=request.pod_sandbox_id),
                                               info={"info": json.dumps({"pid": 77, "runtimeSpec": {}})})

        def ListContainers(self, request, context):
            self.record("ListContainers", request)
            return pb.ListContainersResponse(containers=[
                pb.Container(id=cid, pod_sandbox_id="pod0") for cid in sorted(self.containers)])

        def StopContainer(self, request, context):
            self.record("StopContainer", request)
            return pb.StopContainerResponse()

        def RemoveContainer(self, request, context):
            self.record("RemoveContainer", request)
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


def test_calls(tmp):
    stubs = os.path.join(tmp, "stubs")
    os.mkdir(stubs)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + HERE, "--python_out=" + stubs,
                    "--grpc_python_out=" + stubs, os.path.join(HERE, "cri.proto")], check=True)
    sys.path.insert(0, stubs)
    import grpc
    import cri_pb2
    import cri_pb2_grpc
    fake = make_fake(cri_pb2, cri_pb2_grpc, grpc)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    cri_pb2_grpc.add_RuntimeServiceServicer_to_server(fake, server)
    sock = "unix://" + os.path.join(tmp, "cri.sock")
    server.add_insecure_port(sock)
    server.start()
    env = dict(os.environ, CRI_ENDPOINT=sock, CRI_CLIENT_STUBS=stubs)

    def run(*args, manifest=None):
        fake.calls.clear()
        if manifest is not None:
            path = os.path.join(tmp, "pod.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(manifest, f)
            args = args + (path,)
        return subprocess.run([sys.executable, CLIENT, *args], env=env, capture_output=True, text=True, timeout=60)

    try:
        r = run("run-pod", manifest=POD)
        methods = [m for m, _ in fake.calls]
        report(r.returncode == 0 and methods == ["RunPodSandbox", "CreateContainer", "StartContainer"]
               and r.stdout == "pod pod0\ncontainer app ctr-app\n",
               "run-pod: RunPodSandbox, CreateContainer, StartContainer; ids printed", (methods, r.stdout, r.stderr))
        run_req, create_req = fake.calls[0][1], fake.calls[1][1]
        sandbox = run_req["config"]
        report(run_req["runtime_handler"] == "crun"
               and sandbox["annotations"] == {"run.oci.cpu.burst": "app=20ms"}
               and sandbox["linux"]["cgroup_parent"] == "kubepods-burstable-pod1234_abcd.slice"
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
        report(all(line.startswith("cri: ") for line in r.stderr.splitlines()) and
               r.stderr.count("cri: ") == 3 and '"cpu_quota":"25000"' in r.stderr,
               "every request is shown on stderr as JSON", r.stderr)

        r = run("run-pod", "--cgroup-driver", "cgroupfs", manifest=POD)
        report(r.returncode == 0 and fake.calls[0][1]["config"]["linux"]["cgroup_parent"] == "/kubepods/burstable/pod1234-abcd",
               "run-pod --cgroup-driver cgroupfs: the kubelet's cgroupfs parent", fake.calls[:1])

        refused = json.loads(json.dumps(POD))
        refused["spec"]["containers"][0]["name"] = "refused"
        r = run("run-pod", manifest=refused)
        report(r.returncode == 1 and r.stdout == "pod pod0\ncontainer refused ctr-refused\n"
               and "cri-client: StartContainer failed: UNKNOWN: failed to create containerd task: crun: cannot set the CPU burst" in r.stderr,
               "a refused StartContainer: exit 1, the runtime's message, the ids made so far printed", (r.stdout, r.stderr))

        r = run("resize", "ctr-app", "400m")
        report(r.returncode == 0 and fake.calls == [("UpdateContainerResources", {
            "container_id": "ctr-app", "linux": {"cpu_period": "100000", "cpu_quota": "40000", "cpu_shares": "409"}})],
               "resize 400m: UpdateContainerResources with quota 40000 / period 100000", fake.calls)

        r = run("inspect", "ctr-app")
        report(r.returncode == 0 and fake.calls == [("ContainerStatus", {"container_id": "ctr-app", "verbose": True})]
               and r.stdout == "state CONTAINER_EXITED\npid 4242\nreason StartError\nmessage crun: refused second line\n"
               "annotation io.kubernetes.cri.container-name=app\nannotation run.oci.cpu.burst=20000\n",
               "inspect: state, pid, reason, message on one line, the OCI annotations", r.stdout)
        r = run("inspect-pod", "pod0")
        report(r.returncode == 0 and r.stdout == "state SANDBOX_READY\npid 77\n", "inspect-pod: state and pid", r.stdout)

        r = run("delete-pod", "pod0")
        methods = [(m, req.get("container_id", req.get("pod_sandbox_id"))) for m, req in fake.calls]
        stops = [req.get("timeout", 0) for m, req in fake.calls if m == "StopContainer"]
        report(r.returncode == 0 and methods[0] == ("ListContainers", None)
               and methods[1:] == [("StopContainer", "ctr-app"), ("RemoveContainer", "ctr-app"),
                                   ("StopContainer", "ctr-refused"), ("RemoveContainer", "ctr-refused"),
                                   ("StopPodSandbox", "pod0"), ("RemovePodSandbox", "pod0")]
               and set(stops) == {0},
               "delete-pod: each container stopped at once and removed, then the sandbox", methods)

        bad = json.loads(json.dumps(POD))
        bad["spec"]["hostNetwork"] = False
        r = run("run-pod", manifest=bad)
        report(r.returncode == 2 and not fake.calls and "spec.hostNetwork must be true" in r.stderr,
               "a pod without hostNetwork is refused before any call", r.stderr)
        bad = json.loads(json.dumps(POD))
        bad["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "lots"
        r = run("run-pod", manifest=bad)
        report(r.returncode == 2 and not fake.calls and "`lots` is not a CPU quantity" in r.stderr,
               "a bad CPU limit is refused before any call, naming it", r.stderr)
        r = run("resize", "ctr-app")
        report(r.returncode == 2 and not fake.calls and "resize CONTAINER_ID CPU_LIMIT" in r.stderr,
               "a call with missing arguments says its usage", r.stderr)
    finally:
        server.stop(0)


def main():
    cc = load_client()
    test_derivations(cc)
    with tempfile.TemporaryDirectory() as tmp:
        test_calls(tmp)
    print(f"1..{n}")
    print(f"cri-client: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
