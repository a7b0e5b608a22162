#!/usr/bin/python3
"""Check every example of oci-spec/ (TAP).

- each examples/*.json validates against the runtime-spec JSON schema that
  Debian's crun is built with;
- each config, and each container of the pod, gives the burst listed in
  examples/expected.txt when crun's own parser reads it;
- each row of the table in annotation.md gives its result through that
  parser;
- the containerd setting lets run.oci.cpu.burst through; the CRI-O example's
  allowed_annotations are names CRI-O accepts, and CRI-O's prefix rule lets
  through (and keeps out) what its comments say;
- the admission policy is a ValidatingAdmissionPolicy and its binding that
  guard pod.yaml's RuntimeClass and the annotation by a namespace label.

Usage: check-examples.py OCI_SPEC_DIR UNIT_TEST_BINARY [SCHEMA_DIR]
The unit test binary (tests_libcrun_cpu_burst, built with the package) parses
with `annotation VALUE NAME QUOTA` and `config FILE`.
"""
import json
import os
import re
import subprocess
import sys
import tomllib
import warnings

import jsonschema
import yaml

ANNOTATION = "run.oci.cpu.burst"
PERIOD_US = 100000  # kubelet's CFS period

spec_dir, parser = sys.argv[1], sys.argv[2]
schema_dir = sys.argv[3] if len(sys.argv) > 3 else \
    "/usr/share/gocode/src/github.com/opencontainers/runtime-spec/schema"
examples = os.path.join(spec_dir, "examples")
n = 0
failed = 0


def report(ok, what):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(f"{'' if ok else 'not '}ok {n} - {what}")


def parse(*args):
    r = subprocess.run([parser, *args], capture_output=True, text=True)
    return r.stdout.strip() or r.stderr.strip()


def quota_of(limit):
    """The CFS quota kubelet gives a CPU limit ("500m", "2", "0.5")."""
    if limit is None:
        return 0
    limit = str(limit)
    milli = int(limit[:-1]) if limit.endswith("m") else int(float(limit) * 1000)
    return milli * PERIOD_US // 1000


# --- the configs against the schema ---------------------------------------------
with open(os.path.join(schema_dir, "config-schema.json")) as f:
    schema = json.load(f)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    resolver = jsonschema.RefResolver(f"file://{schema_dir}/", schema)
    validator = jsonschema.Draft4Validator(schema, resolver=resolver)
    burst_schema = schema_dir + "/config-linux.json"
    report('"burst"' in open(burst_schema).read(), f"{burst_schema} defines linux.resources.cpu.burst")
    configs = sorted(f for f in os.listdir(examples) if f.endswith(".json"))
    report(len(configs) > 0, f"{len(configs)} config examples")
    for name in configs:
        with open(os.path.join(examples, name)) as f:
            config = json.load(f)
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(config)]
        report(not errors, f"{name} is valid against the runtime-spec schema"
                           + (f": {'; '.join(errors)}" if errors else ""))
    # The schema must reject what crun would refuse as malformed.
    bad = {"ociVersion": "1.0.2", "root": {"path": "rootfs"},
           "linux": {"resources": {"cpu": {"burst": -1}}}}
    report(not validator.is_valid(bad), "the schema rejects a negative burst")

# --- expected results of configs and pod -----------------------------------------
expected = []
with open(os.path.join(examples, "expected.txt")) as f:
    for line in f:
        line = line.split("#")[0].strip()
        if line:
            words = line.split()
            target = words[0]
            container = words[1] if len(words) > 2 else None
            expected.append((target, container, " ".join(words[-2:])))

pods = {}
for target, container, want in expected:
    path = os.path.join(examples, target)
    if target.endswith(".json"):
        got = parse("config", path)
        report(got == want, f"{target}: crun's parser gives '{got}', expected '{want}'")
        continue
    if target not in pods:
        with open(path) as f:
            pods[target] = [d for d in yaml.safe_load_all(f) if d and d.get("kind") == "Pod"][0]
    pod = pods[target]
    value = pod["metadata"]["annotations"][ANNOTATION]
    spec = {c["name"]: c for c in pod["spec"]["containers"]}
    c = spec.get(container)
    if c is None:
        report(False, f"{target}: no container {container}")
        continue
    quota = quota_of(c.get("resources", {}).get("limits", {}).get("cpu"))
    got = parse("annotation", value, container, str(quota))
    report(got == want, f"{target} container {container} (quota {quota}us): '{value}' gives '{got}', expected '{want}'")
for target, pod in pods.items():
    listed = {c for t, c, _ in expected if t == target}
    names = {c["name"] for c in pod["spec"]["containers"]}
    report(listed == names, f"{target}: expected.txt covers every container ({', '.join(sorted(names))})")
    # The sandbox has no container name and usually no quota: it gets nothing.
    got = parse("annotation", pod["metadata"]["annotations"][ANNOTATION], "", "0")
    report(got == "none", f"{target}: the pod sandbox gets no burst ('{got}')")

# --- the table in annotation.md ----------------------------------------------------
with open(os.path.join(spec_dir, "annotation.md")) as f:
    text = f.read()
m = re.search(r"<!-- annotation-examples:.*?-->\n(.*?)<!-- end of annotation-examples -->", text, re.S)
rows = []
if m:
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("annotation", "---"):
            continue
        rows.append(cells)
report(len(rows) >= 20, f"annotation.md has {len(rows)} example rows")
for value, name, quota, want in rows:
    value = value[1:-1] if value.startswith("`") and value.endswith("`") else value
    got = parse("annotation", value, name, quota or "0")
    if want.startswith("error: "):
        ok = got.startswith("error: ") and want[len("error: "):] in got
    else:
        ok = got == want
    report(ok, f"annotation.md: '{value}' for {name or '(unnamed)'} quota {quota or '(none)'}: '{got}'"
               f"{'' if ok else ', expected ' + repr(want)}")

# --- containerd and CRI-O ----------------------------------------------------------
with open(os.path.join(examples, "containerd-config.toml"), "rb") as f:
    containerd = tomllib.load(f)
try:
    runtime = containerd["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["crun"]
    ok = (containerd.get("version") == 2 and ANNOTATION in runtime["pod_annotations"]
          and runtime["runtime_type"] == "io.containerd.runc.v2"
          and runtime["options"]["BinaryName"] == "/usr/bin/crun")
except (KeyError, TypeError):
    ok = False
report(ok, "containerd-config.toml: runtime crun runs /usr/bin/crun and passes run.oci.cpu.burst (pod_annotations)")
# CRI-O's rule, as its source has it (pkg/config/config.go,
# ValidateRuntimeAllowedAnnotations; pkg/config/workloads.go,
# FilterDisallowedAnnotations): a handler's allowed_annotations must each be
# exactly a name of AllAllowedAnnotations (pkg/annotations/annotations.go,
# CRI-O 1.30-1.33; else "invalid allowed_annotation" and the handler is
# dropped); an annotation reaches the container unless it starts with one
# of the names the handler does not allow.
CRIO_ALLOWED = {
    "io.kubernetes.cri-o.userns-mode", "io.kubernetes.cri-o.cgroup2-mount-hierarchy-rw",
    "io.kubernetes.cri-o.UnifiedCgroup", "io.kubernetes.cri-o.ShmSize", "io.kubernetes.cri-o.Devices",
    "cpu-load-balancing.crio.io", "cpu-quota.crio.io", "irq-load-balancing.crio.io",
    "io.containers.trace-syscall", "io.kubernetes.cri.rdt-class",
    "io.kubernetes.cri-o.TrySkipVolumeSELinuxLabel", "cpu-c-states.crio.io", "cpu-freq-governor.crio.io",
    "io.kubernetes.cri-o.seccompNotifierAction", "io.kubernetes.cri-o.umask",
    "io.kubernetes.cri-o.PodLinuxOverhead", "io.kubernetes.cri-o.PodLinuxResources",
    "io.kubernetes.cri-o.LinkLogs", "cpu-shared.crio.io", "bundle", "org.systemd.property.",
    "org.criu.config", "module.wasm.image/variant", "io.kubernetes.cri.container-type", "run.oci.",
    "seccomp-profile.kubernetes.cri-o.io", "io.kubernetes.cri-o.DisableFIPS",
}


def crio_passes(allowed, annotation):
    return not any(annotation.startswith(d) for d in CRIO_ALLOWED - set(allowed))


with open(os.path.join(examples, "crio-crun-burst.conf"), "rb") as f:
    crio = tomllib.load(f)
try:
    handlers = crio["crio"]["runtime"]["runtimes"]
    burst, unified = handlers["crun-burst"], handlers["crun-unified"]
    ok = all(h["runtime_path"] == "/usr/bin/crun" for h in (burst, unified))
except (KeyError, TypeError):
    burst = unified = {}
    ok = False
report(ok, "crio-crun-burst.conf: handlers crun-burst and crun-unified run /usr/bin/crun")
for name, handler in (("crun-burst", burst), ("crun-unified", unified)):
    bad = [a for a in handler.get("allowed_annotations", []) if a not in CRIO_ALLOWED]
    report(handler.get("allowed_annotations") and not bad,
           f"crio-crun-burst.conf: {name}'s allowed_annotations are names CRI-O accepts"
           f"{' (refused: ' + ', '.join(bad) + ')' if bad else ''}")
# What CRI-O's rule lets through, and what it does not.
checks = [
    ("crun-burst", burst, ANNOTATION, True),
    ("crun-burst", burst, "run.oci.seccomp.receiver", True),
    ("crun-burst", burst, "io.kubernetes.cri-o.UnifiedCgroup.web", False),
    ("crun-unified", unified, "io.kubernetes.cri-o.UnifiedCgroup.web", True),
    ("crun-unified", unified, ANNOTATION, False),
    ("crun-unified", unified, "run.oci.seccomp.receiver", False),
]
for name, handler, annotation, want in checks:
    got = crio_passes(handler.get("allowed_annotations", []), annotation)
    report(got == want, f"crio-crun-burst.conf: {name} {'lets' if got else 'keeps'} {annotation} "
                        f"{'through' if got else 'out'}, as its comments say")
# The old example's entry is refused by CRI-O: the rule has teeth.
report(ANNOTATION not in CRIO_ALLOWED, f"CRI-O refuses allowed_annotations = [\"{ANNOTATION}\"] (not in its list)")
with open(os.path.join(examples, "pod.yaml")) as f:
    docs = [d for d in yaml.safe_load_all(f) if d]
classes = {d["metadata"]["name"]: d["handler"] for d in docs if d.get("kind") == "RuntimeClass"}
pod = [d for d in docs if d.get("kind") == "Pod"][0]
report(classes.get(pod["spec"].get("runtimeClassName")) == "crun",
       "pod.yaml: the pod's RuntimeClass maps to containerd's handler crun")


# --- the admission policy -----------------------------------------------------------
# No CEL evaluator is packaged in Debian 12: the manifest is checked for its
# shape (what the API server's schema requires of a ValidatingAdmissionPolicy
# and its binding, admissionregistration.k8s.io/v1) and for naming what it
# must guard: pod.yaml's RuntimeClass, the annotation, the namespace label.
with open(os.path.join(examples, "admission-policy.yaml")) as f:
    adm = {d["kind"]: d for d in yaml.safe_load_all(f) if d}
policy, binding = adm.get("ValidatingAdmissionPolicy", {}), adm.get("ValidatingAdmissionPolicyBinding", {})
report(all(d.get("apiVersion") == "admissionregistration.k8s.io/v1" for d in (policy, binding)) and len(adm) == 2,
       "admission-policy.yaml: a ValidatingAdmissionPolicy and its binding, admissionregistration.k8s.io/v1")
pspec, bspec = policy.get("spec") or {}, binding.get("spec") or {}
rules = (pspec.get("matchConstraints") or {}).get("resourceRules") or []
report(any(r.get("apiGroups") == [""] and "pods" in r.get("resources", []) and "CREATE" in r.get("operations", [])
           and r.get("apiVersions") for r in rules) and pspec.get("failurePolicy") in ("Fail", "Ignore"),
       "admission-policy.yaml: the policy matches the creation of pods (core group, v1)")
report(bspec.get("policyName") == policy.get("metadata", {}).get("name") and bspec.get("validationActions") == ["Deny"],
       "admission-policy.yaml: the binding names the policy and denies")
validations = pspec.get("validations") or []
names = [v.get("name") for v in pspec.get("variables") or []]
text = " ".join(v.get("expression", "") for v in (pspec.get("variables") or []) + validations)
report(validations and all(v.get("expression") and (v.get("message") or v.get("messageExpression"))
                           for v in validations)
       and all(ref in names for ref in re.findall(r"variables\.(\w+)", text)),
       "admission-policy.yaml: every validation has an expression and a message; every variable used is defined")
runtime_class = pod["spec"].get("runtimeClassName")
report(f"object.spec.runtimeClassName != '{runtime_class}'" in text and f"'{ANNOTATION}' in" in text
       and "'burst-cfs.example/cpu-burst'" in text and "== 'allowed'" in text and "startsWith('run.oci.')" in text,
       f"admission-policy.yaml: it guards RuntimeClass {runtime_class} (pod.yaml's), {ANNOTATION} and the other "
       "run.oci.* annotations, by the namespace label burst-cfs.example/cpu-burst=allowed")
report(text.count("(") == text.count(")") and text.count("'") % 2 == 0,
       "admission-policy.yaml: the CEL expressions' parentheses and quotes balance")

print(f"1..{n}")
sys.exit(1 if failed else 0)
