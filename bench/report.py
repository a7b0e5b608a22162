#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark's figures: tables, ratios and a plot from its runs.

  report.py --from RAW  --template T --setup S --generator G --md OUT.md --png OUT.png
  report.py --append RAW [--str KEY=VALUE]... [--num KEY=NUMBER]... [--uncounted WHY] [LOG]
  report.py --min-samples PCT

RAW is the JSON-lines file of one benchmark invocation (bench/run-latency.sh
writes it; docs/bench-raw/ keeps it): a "bench" line first (settings, host,
guest), a "boot" line per boot (its host pressure), a "run" line per run
that counts (bench/suite.sh's JSON, burstbench's result inside, plus the
kernel, its image and config, the repetition and its boot's host pressure),
a "discard" line per try set aside, an "end" line last. --from computes
every table and ratio from RAW alone, and fails when RAW does not hold what
it says: a run with fewer requests than its floor, a case without every
repetition, no end line.

--append adds lines to RAW: with no LOG one line of the given fields, with
LOG (a guest's serial log, its "BENCH-JSON"/"BENCH-DISCARD" lines, which
bench/suite.sh prints) one line per run or discarded try in it, the fields added (all as
discards, with WHY, when --uncounted). --min-samples prints the sample count
percentile PCT (p99) needs, by the rule below.

The outputs: OUT.md from the template (@RUN@, @SAMPLES@, @TABLES@, @RATIOS@;
@SETUP@ the text of S, how this setup runs the cases; @GENERATOR@ the command
G; @PNG@ the plot's name), and the latency percentiles per scenario plotted
on a log scale with gnuplot. Figures only: a missed target is reported as
missed, never an error.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from fractions import Fraction

PCTS = ["p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9"]
# A percentile is printed only with at least TAIL samples beyond it: with
# fewer it is one of the last few samples, a fact about them rather than
# about the distribution. Five puts p99 at 500 samples.
TAIL = 5
# Kernels in column order: ours, then the comparator that differs from it
# by the series alone, then Debian's packaged kernel (its own config too).
KERNELS = ["ours", "mainline", "stock"]
KERNEL_NAMES = {"ours": "ours", "mainline": "mainline (same config)", "stock": "Debian's"}
# Suites before BENCH_KERNEL named our kernel by what it expects.
LEGACY_KERNELS = {"patched": "ours"}
# Runs in table order; the name says the scenario (bench/suite.sh).
ORDER = ["s1-nolimit", "s1-quota", "s1-burst", "s2-nolimit", "s2-capped", "s2-burst", "s2-stretched",
         "s3-burst-off"]
SCENARIOS = [
    (1, "Scenario 1: the seed's shape, scaled to 2 vCPUs",
     "quota 70 ms / period 100 ms (0.7 CPU), burst 40 ms; batches of 2 x 50 ms "
     "every 202 ms (0.495 CPU, 5/7 of quota; 100 ms per batch = 1.43 x quota). "
     "Our kernel only: burst within quota is a mainline feature"),
    (2, "Scenario 2: a burst larger than the quota",
     "quota 10 ms / period 50 ms (0.2 CPU); batches of 2 x 15 ms every 210 ms "
     "(0.143 CPU, 5/7 of quota; 30 ms per batch = 3 x quota). A kernel without "
     "the series refuses a burst above quota, so it runs capped at burst = quota; "
     "ours runs that capped case too, as a control, and with burst = 30 ms"),
    (3, "Scenario 3: control, our kernel with kernel.sched_cfs_bw_burst_enabled=0",
     "scenario 2's group with burst = 30 ms, burst switched off globally"),
]
RAW_FORMAT = 1
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The reference model's replay (model/bw-replay.c) through its command-line
# front end: the throttles it says a run could not avoid.
BURSTCTL = os.environ.get("BURSTCTL") or os.path.join(TOP, "build", "burstctl", "burstctl")
# Phases of the period the model is replayed at: a run meets the period at
# a phase nobody recorded.
MODEL_PHASES = 20


class BenchError(Exception):
    """Data that cannot give honest figures; the report refuses it."""


# --- the support rule ---------------------------------------------------------

def min_samples(name):
    """The fewest samples percentile NAME ("p99") needs: TAIL samples beyond it.

    burstbench's pXX of n samples is the value of rank ceil(XX/100 * n)
    (nearest rank, bench/stats.c), so n - rank samples lie beyond it; that
    is at least TAIL exactly when n * (1 - XX/100) >= TAIL."""
    p = Fraction(name[1:]) / 100
    return math.ceil(TAIL / (1 - p))


def supported(name, n):
    return n >= min_samples(name)


# --- reading runs ---------------------------------------------------------------

def kernel_of(rec):
    k = rec.get("kernel", "")
    return LEGACY_KERNELS.get(k, k)


def parse_log(path):
    """[(kind, suite line)] in log order: kind "run" for BENCH-JSON, "discard"
    for BENCH-DISCARD."""
    out = []
    with open(path, errors="replace") as f:
        for i, line in enumerate(f, 1):
            tag, _, text = line.rstrip("\r\n").partition(" ")
            if tag not in ("BENCH-JSON", "BENCH-DISCARD"):
                continue
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as e:
                raise BenchError(f"{path}:{i}: unreadable {tag} line ({e})") from e
            rec["kernel"] = kernel_of(rec)
            out.append(("run" if tag == "BENCH-JSON" else "discard", rec))
    return out


class Data:
    """One benchmark invocation: its settings, boots, runs and discarded tries."""

    def __init__(self, meta=None):
        self.meta = meta or {}
        self.boots, self.runs, self.discards = [], [], []
        self.end = None
        self.source = None      # the raw file, for the page to name

    def cases(self):
        """{(kernel, run): [runs by repetition]}."""
        out = {}
        for r in self.runs:
            out.setdefault((r["kernel"], r["run"]), []).append(r)
        for recs in out.values():
            recs.sort(key=lambda r: r["rep"])
        return out

    def kernels(self):
        present = {r["kernel"] for r in self.runs}
        return [k for k in KERNELS if k in present] + sorted(present - set(KERNELS))


def floor_of(data, rec):
    return max(int(data.meta.get("min_requests") or 0), int(rec.get("min_requests") or 0))


def check(data):
    """Refuse data that cannot give the figures it claims: a run short of its
    floor, a run twice, no end line, a case without every repetition."""
    short = [f"{r['kernel']} {r['run']} repetition {r['rep']}: {r['result']['requests']} requests, "
             f"fewer than {floor_of(data, r)}"
             for r in data.runs if r["result"]["requests"] < floor_of(data, r)]
    if short:
        raise BenchError("runs with fewer requests than their floor (their percentiles would "
                         "not be supported):\n  " + "\n  ".join(short))
    seen = set()
    for r in data.runs:
        key = (r["kernel"], r["run"], r["rep"])
        if key in seen:
            raise BenchError(f"{key[0]} {key[1]} repetition {key[2]} appears twice")
        seen.add(key)
    if data.end is None:
        raise BenchError("no 'end' line: the benchmark did not finish")
    reps = int(data.meta.get("repetitions") or 0)
    if reps < 1:
        raise BenchError("the 'bench' line says no repetitions")
    want = list(range(1, reps + 1))
    gaps = [f"{k} {run}: repetitions {[r['rep'] for r in recs]}, not {want}"
            for (k, run), recs in sorted(data.cases().items())
            if [r["rep"] for r in recs] != want]
    if gaps:
        raise BenchError("cases without every repetition:\n  " + "\n  ".join(gaps))


def read_records(path, kinds):
    """A raw JSON-lines file of make bench-cost, bench-icount or
    bench-frontier: its "bench" line, a list of records for each type in
    KINDS, and its "end" line. BenchError for a line that is not JSON, a
    type outside KINDS, or a file without its bench or end line (a run
    that was cut short)."""
    meta, end, recs = None, None, {k: [] for k in kinds}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise BenchError(f"{path}:{i}: not JSON ({e})") from e
            kind = rec.get("type")
            if kind == "bench":
                meta = rec
            elif kind == "end":
                end = rec
            elif kind in recs:
                recs[kind].append(rec)
            else:
                raise BenchError(f"{path}:{i}: unknown record type {kind!r}")
    if meta is None or end is None:
        raise BenchError(f"{path}: no {'bench' if meta is None else 'end'} line: not a whole run (interrupted?)")
    return meta, recs, end


def load_raw(path):
    lines = []
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as e:
                raise BenchError(f"{path}:{i}: not JSON ({e})") from e
    if not lines or lines[0].get("type") != "bench":
        raise BenchError(f"{path}: the first line is not the 'bench' line")
    if lines[0].get("format") != RAW_FORMAT:
        raise BenchError(f"{path}: format {lines[0].get('format')}, this report reads {RAW_FORMAT}")
    data = Data(lines[0])
    data.source = path
    for i, line in enumerate(lines[1:], 2):
        kind = line.get("type")
        if kind in ("run", "discard"):
            if not isinstance(line.get("rep"), int):
                raise BenchError(f"{path}: line {i}: a {kind} without a repetition index")
            (data.runs if kind == "run" else data.discards).append(line)
        elif kind == "boot":
            data.boots.append(line)
        elif kind == "end":
            data.end = line
        else:
            raise BenchError(f"{path}: line {i}: unknown type {kind!r}")
    check(data)
    return data


def append(raw, fields, log=None, uncounted=None):
    """Append to RAW the fields as one line, or with LOG one line per run or
    discarded try in it with the fields added; returns how many lines."""
    if log is None:
        lines = [dict(fields)]
    else:
        lines = []
        for kind, rec in parse_log(log):
            line = dict(fields)
            for key, value in rec.items():
                if key in line and line[key] != value:
                    raise BenchError(f"{log}: the guest says {key} {value!r}, the runner {line[key]!r}")
                line[key] = value
            if uncounted:
                kind, line["why"] = "discard", uncounted
            elif kind == "discard":
                line["why"] = "host stall"
            line["type"] = kind
            lines.append(line)
    with open(raw, "a") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    return len(lines)


# --- aggregation over repetitions ------------------------------------------------

def spread(values):
    """(median, min, max) of values, one per repetition; None for none."""
    values = list(values)
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def pct_spread(recs, name):
    """Percentile NAME over the repetitions recs: (spread or None, [n per run]).
    None unless every repetition's sample supports it."""
    ns = [r["result"]["requests"] for r in recs]
    if not recs or not all(supported(name, n) for n in ns):
        return None, ns
    return spread(r["result"]["latency_us"][name] for r in recs), ns


def ratio_spread(num, den, name="p99"):
    """Percentile NAME of num over that of den, per repetition: the runs of
    the same repetition are paired (for two kernels, boots of one round,
    minutes apart). Returns (spread or None, [(rep, ratio)], why not)."""
    a = {r["rep"]: r for r in num}
    b = {r["rep"]: r for r in den}
    reps = sorted(a.keys() & b.keys())
    if not reps:
        return None, [], "not measured"
    ns = [a[rep]["result"]["requests"] for rep in reps] + [b[rep]["result"]["requests"] for rep in reps]
    if not all(supported(name, n) for n in ns):
        return None, [], f"n/a: {name} needs n ≥ {min_samples(name):,} (n = {fmt_n(ns)})"
    pairs = []
    for rep in reps:
        x, y = a[rep]["result"]["latency_us"][name], b[rep]["result"]["latency_us"][name]
        if not y:
            return None, [], f"n/a: {name} is 0 in repetition {rep}"
        pairs.append((rep, x / y))
    return spread(v for _, v in pairs), pairs, None


# --- formatting ---------------------------------------------------------------------

def us(v):
    return "n/a" if v is None else f"{v:,.0f}"


def fmt_n(ns):
    lo, hi = min(ns), max(ns)
    return f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"


def fmt_spread(s, fmt=us):
    """median [min–max]; the median alone when the repetitions agree or are one."""
    med, lo, hi = s
    return fmt(med) if lo == hi else f"{fmt(med)} [{fmt(lo)}–{fmt(hi)}]"


def fmt_pct(recs, name):
    s, ns = pct_spread(recs, name)
    return f"n/a (n={fmt_n(ns)})" if s is None else fmt_spread(s)


def md_table(head, rows, right_from):
    out = ["| " + " | ".join(head) + " |",
           "| " + " | ".join("---:" if i >= right_from else "---" for i in range(len(head))) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def limit(r):
    if r["quota_us"] is None:
        return "max", "–"
    b = f"{r['burst_us'] // 1000} ms"
    if r.get("burst_enabled") == 0:
        b += " (off)"
    return f"{r['quota_us'] // 1000} / {r['period_us'] // 1000} ms", b


def usage(r):
    """(average use / quota, usage / bound) of one run, or Nones."""
    res = r["result"]
    u, b = res["cpu_stat"].get("usage_usec"), res.get("bound_usec")
    if u is None or r["quota_us"] is None:
        return None, None
    per_quota = (u / res["elapsed_us"]) / (r["quota_us"] / r["period_us"])
    return per_quota, (u / b if b else None)


def achieved_rps(res):
    """The rate a run served, or None from a burstbench before "rps_elapsed_s",
    whose "rps" divided by the scheduled window: that says the requested rate
    for a run that fell behind, so it is not shown as achieved."""
    return res["rps"] if "rps_elapsed_s" in res else None


def ordered(cases, scenario):
    keys = [k for k, recs in cases.items() if recs[0]["scenario"] == scenario]
    return sorted(keys, key=lambda k: (ORDER.index(k[1]) if k[1] in ORDER else 99,
                                       KERNELS.index(k[0]) if k[0] in KERNELS else 9, k))


def stat_spread(recs, get, fmt):
    vals = [get(r) for r in recs]
    if any(v is None for v in vals):
        return "–" if all(v is None for v in vals) else "n/a"
    return fmt_spread(spread(vals), fmt)


# --- tables -----------------------------------------------------------------------

def latency_table(cases, keys):
    head = (["kernel", "run", "cpu.max", "burst", "reps", "n per run"] + PCTS +
            ["min", "max", "rps"])
    rows = []
    for k in keys:
        recs = cases[k]
        q, b = limit(recs[0])
        lat = lambda name: stat_spread(recs, lambda r: r["result"]["latency_us"][name], us)
        rows.append([k[0], k[1], q, b, str(len(recs)),
                     fmt_n([r["result"]["requests"] for r in recs])] +
                    [fmt_pct(recs, p) for p in PCTS] + [lat("min"), lat("max"),
                     stat_spread(recs, lambda r: achieved_rps(r["result"]), lambda v: f"{v:.2f}")])
    return md_table(head, rows, right_from=4)


def bandwidth_table(cases, keys):
    head = ["kernel", "run", "reps", "nr_throttled", "throttled ms", "nr_bursts", "burst ms",
            "use / quota", "usage / (quota·N + burst)", "max request overrun ms", "tries"]
    rows = []
    for k in keys:
        recs = cases[k]

        def st(key, scale=1, fmt=lambda v: f"{v:,.0f}"):
            return stat_spread(recs, lambda r: None if r["result"]["cpu_stat"].get(key) is None
                               else r["result"]["cpu_stat"][key] / scale, fmt)
        one = lambda v: f"{v:,.1f}"
        two = lambda v: f"{v:.2f}"
        over = max(r["result"].get("request_overrun_max_us", 0) for r in recs) / 1000
        rows.append([k[0], k[1], str(len(recs)), st("nr_throttled"), st("throttled_usec", 1000, one),
                     st("nr_bursts"), st("burst_usec", 1000, one),
                     stat_spread(recs, lambda r: usage(r)[0], two),
                     stat_spread(recs, lambda r: usage(r)[1], two),
                     f"{over:.1f}", ", ".join(str(r.get("attempt", 1)) for r in recs)])
    return md_table(head, rows, right_from=2)


def batch_cpu_us(res):
    """The CPU one batch brings: what its requests used, by their threads'
    CPU clocks (requests_cpu_us per measured batch), or the nominal CPU
    without it. Not the group's usage: that adds the message thread's work,
    spread over the whole interval, to the batch's spike."""
    used, n = res.get("requests_cpu_us"), res["requests"]
    if used and n:
        return round(used * res["batch"] / n)
    return res["batch"] * res["cputime_us"]


def demand_trace(res):
    """burstbench's demand as a burstctl trace (CSV): each batch's CPU
    (batch_cpu_us) arrives within 1 ms of when it was due, from the run's
    start (warm-up included) to the end of its measured window."""
    iv = round(res["batch"] / res["rate"] * 1e9) // 1000       # bb_interval_ns, in us
    if iv <= 1000:
        raise BenchError(f"a batch every {iv} us: the model's trace needs more than the 1 ms "
                         "a batch's demand is spread over")
    end = int((res["warmup_s"] + res["rps_elapsed_s"]) * 1e6)
    cpu = batch_cpu_us(res)
    rows = ["# cpus: %d" % res["threads"], "time_us,cpu_us", "0,0"]
    t = 0
    while t < end:
        if t:
            rows.append(f"{t},0")
        rows.append(f"{t + 1000},{cpu}")
        t += iv
    return "\n".join(rows) + "\n"


def model_throttles(rec):
    """(fewest, most) throttled periods the model gives the run's measured
    window over MODEL_PHASES phases, or None: no limit, no burstctl, or a
    run from before burstbench reported its elapsed window."""
    res = rec["result"]
    if rec["quota_us"] is None or "rps_elapsed_s" not in res:
        return None
    if not os.access(BURSTCTL, os.X_OK):
        print(f"report: no burstctl at {BURSTCTL} (make burstctl): no model comparison",
              file=sys.stderr)
        return None
    burst = rec["burst_us"] if rec.get("burst_enabled", 1) != 0 else 0
    period = rec["period_us"]
    start, end = res["warmup_s"] * 1e6, (res["warmup_s"] + res["rps_elapsed_s"]) * 1e6
    counts = []
    with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
        f.write(demand_trace(res))
        f.flush()
        for i in range(1, MODEL_PHASES + 1):
            out = subprocess.run([BURSTCTL, "simulate", f.name, "--quota", str(rec["quota_us"]),
                                  "--period", str(period), "--burst", str(burst),
                                  "--phase", str(period * i // MODEL_PHASES), "--json"],
                                 capture_output=True, text=True)
            if out.returncode:
                raise BenchError(f"burstctl simulate: {out.stderr.strip()}")
            periods = json.loads(out.stdout)["periods"]
            # The kernel counts a throttled period at the boundary that ends it.
            counts.append(sum(1 for p in periods if p["throttled"] and start < p["end_us"] <= end))
    return min(counts), max(counts)


def needless_table(cases):
    """Per limited case: the throttled periods the kernel counted and the
    model's range over the phases. Where the model needs none at any phase,
    every counted throttle is needless; where it needs some, counts alone
    cannot tell the needless ones from the needed (they may cancel), and
    the row says so. Returns (table, needless, runs where the model needs
    none) or None."""
    rows, needless_total, free_runs = [], 0, 0
    for k in sorted(cases, key=lambda k: (ORDER.index(k[1]) if k[1] in ORDER else 99,
                                          KERNELS.index(k[0]) if k[0] in KERNELS else 9)):
        recs = [r for r in cases[k] if r["quota_us"] is not None]
        if not recs:
            continue
        models = [model_throttles(r) for r in recs]
        if any(m is None for m in models):
            return None
        seen = [r["result"]["cpu_stat"]["nr_throttled"] for r in recs]
        count = "{:,.0f}".format
        if all(m[1] == 0 for m in models):
            needless = fmt_spread(spread(seen), count)
            needless_total += sum(seen)
            free_runs += len(recs)
        else:
            needless = "not told by counts"
        rows.append([k[0], k[1], str(len(recs)), fmt_spread(spread(seen), count),
                     ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in models), needless])
    if not rows:
        return None
    table = md_table(["kernel", "run", "reps", "nr_throttled seen", "the model's, fewest–most over "
                      f"{MODEL_PHASES} phases, per repetition", "needless"], rows, right_from=2)
    return table, needless_total, free_runs


KEPT_PER_CPU_US = 1000


def needless_causes(cases):
    """Each needless throttle (a run the model says needs none that the kernel
    throttled) put down to what the run measured: the emulator when one of
    its requests was charged more CPU beyond its spin (request_overrun_max_us,
    a vCPU the host descheduled) than the pool had to spare over a batch
    (quota + burst - the batch's CPU), else unexplained. Only the cases
    needless_table counts: the model needs no throttle in any of their runs.
    Returns (throttles put down to the emulator, unexplained throttles, one
    line per throttled run)."""
    emulator, unexplained, lines = 0, 0, []
    for k, recs in cases.items():
        # The cases needless_table counts: the model needs none in any run.
        recs = [r for r in recs if r["quota_us"] is not None]
        models = [model_throttles(r) for r in recs]
        if not recs or any(m is None or m[1] != 0 for m in models):
            continue
        for r in recs:
            seen = r["result"]["cpu_stat"]["nr_throttled"]
            if not seen:
                continue
            res = r["result"]
            burst = r["burst_us"] if r.get("burst_enabled", 1) != 0 else 0
            # What one CPU can draw: the pool less the batch, less what each
            # other CPU's runqueue keeps when it goes idle (the kernel's
            # min_cfs_rq_runtime, 1 ms), which the model does not hold back.
            kept = KEPT_PER_CPU_US * (r.get("cpus", 1) - 1)
            spare = r["quota_us"] + burst - batch_cpu_us(res) - kept
            stall = res.get("request_overrun_max_us")
            also = f", less the {kept / 1000:g} ms the other CPUs' runqueues keep" if kept else ""
            if stall is not None and stall > spare:
                emulator += seen
                why = (f"the emulator: a request was charged {stall / 1000:.1f} ms beyond its spin, "
                       f"more than the {spare / 1000:.1f} ms the pool had to spare over a batch{also}")
            else:
                unexplained += seen
                why = ("**unexplained**: no request was charged more than "
                       f"{(stall or 0) / 1000:.1f} ms beyond its spin, within the "
                       f"{spare / 1000:.1f} ms the pool had to spare over a batch{also}")
            lines.append(f"- {k[0]} {k[1]}, repetition {r.get('rep', '?')}: {seen} throttled "
                         f"period{'s' if seen != 1 else ''}; {why}")
    return emulator, unexplained, sorted(lines)


def discarded_table(discards):
    rows = []
    for r in sorted(discards, key=lambda r: (r["rep"], KERNELS.index(r["kernel"])
                                             if r["kernel"] in KERNELS else 9, r["run"])):
        res = r["result"]
        rows.append([r["kernel"], r["run"], str(r["rep"]), str(r.get("attempt", 1)),
                     r.get("why", "host stall"), f"{res['request_overrun_max_us'] / 1000:.1f}",
                     f"{res['requests']:,}", fmt_pct([r], "p99"), us(res["latency_us"]["max"])])
    return md_table(["kernel", "run", "rep", "try", "why", "max request overrun ms", "n",
                     "p99 µs", "max µs"], rows, right_from=3)


# The comparison the pages lead with: at the same long-run share and the
# same pool, mainline given a longer period (what its user can do) against
# ours with a burst above the quota. Capped at burst = quota, mainline's only
# setting at our period, is its worst for this load: a control, not a result.
STRETCHED, OURS_BURST = ("mainline", "s2-stretched"), ("ours", "s2-burst")
STRETCHED_ROW = ("scenario 2, the result, the same share and pool: p99 mainline (same config), "
                 "period doubled, 20 ms per 100 ms with burst = quota (a 40 ms pool, what mainline "
                 "allows for 0.2 CPU) / p99 ours, 10 ms per 50 ms with burst 30 ms")

# (what, numerator case, denominator case, target, test): every ratio is p99
# over p99, per repetition (ratio_spread).
RATIOS = [
    ("scenario 1, ours: p99 quota without burst / p99 with burst",
     ("ours", "s1-quota"), ("ours", "s1-burst"), "≥ 10", lambda v: v >= 10),
    ("(context) scenario 1, ours: p99 quota without burst / p99 no limit, "
     "about the most the first ratio can show on this guest",
     ("ours", "s1-quota"), ("ours", "s1-nolimit"), None, None),
    (STRETCHED_ROW, STRETCHED, OURS_BURST, None, None),
    ("(control) scenario 2, mainline at its worst setting for this load: p99 mainline (same "
     "config), burst capped at quota / p99 ours, burst 30 ms",
     ("mainline", "s2-capped"), OURS_BURST, "≥ 5", lambda v: v >= 5),
    ("(control) scenario 2, Debian's kernel at its worst setting for this load: p99 Debian's "
     "kernel, burst capped at quota / p99 ours, burst 30 ms",
     ("stock", "s2-capped"), OURS_BURST, "≥ 5", lambda v: v >= 5),
    ("(control) scenario 2, ours: p99 burst = quota / p99 burst 30 ms: the setting alone",
     ("ours", "s2-capped"), OURS_BURST, None, None),
    ("(control) scenario 2, burst = quota: p99 ours / p99 mainline (same config): "
     "the series alone, where mainline works too",
     ("ours", "s2-capped"), ("mainline", "s2-capped"), None, None),
    ("scenario 1, ours: p99 with burst / p99 no limit",
     ("ours", "s1-burst"), ("ours", "s1-nolimit"), "≤ 1.5", lambda v: v <= 1.5),
    ("scenario 2, ours: p99 with burst / p99 no limit",
     OURS_BURST, ("ours", "s2-nolimit"), "≤ 1.5", lambda v: v <= 1.5),
    ("scenario 3, control: p99 burst switched off / p99 burst on (scenario 2, ours)",
     ("ours", "s3-burst-off"), OURS_BURST, "> 1 (burst off throttles)", lambda v: v > 1),
]


def ratio_rows(data):
    cases, kernels = data.cases(), set(data.kernels())
    rows = []

    def side(key):
        recs = cases.get(key)
        if not recs:
            return "not measured"
        s, ns = pct_spread(recs, "p99")
        if s is None:
            return f"{key[0]} {key[1]}: n/a (n={fmt_n(ns)})"
        return f"{key[0]} {key[1]}: {fmt_spread(s)} µs, n = {fmt_n(ns)}"

    only = set(filter(None, str(data.meta.get("only") or "").split(",")))
    for what, num, den, target, good in RATIOS:
        # A kernel the setup does not boot, or a run it does not make (make
        # bench runs scenario 2's only), has no row.
        if num[0] not in kernels or den[0] not in kernels:
            continue
        if only and not {num[1], den[1]} <= only:
            continue
        s, pairs, why = ratio_spread(cases.get(num, []), cases.get(den, []))
        if s is None:
            rows.append([what, why, side(num), side(den), target or "–", ""])
            continue
        verdict = ""
        if good is not None:
            met = sum(1 for _, v in pairs if good(v))
            verdict = ("met" if good(s[0]) else "**missed**") + f" (median; {met} of {len(pairs)} repetitions met it)"
        rows.append([what, fmt_spread(s, lambda v: f"{v:.2f}"), side(num), side(den),
                     target or "–", verdict])
    fracs = [(usage(r)[1], r) for r in data.runs if usage(r)[1] is not None]
    if fracs:
        worst, wr = max(fracs, key=lambda f: f[0])
        over = sorted({f"{r['kernel']} {r['run']} rep {r['rep']}" for f, r in fracs if f > 1})
        # Context, not a check: these loads ask at most 5/7 of their quota, so
        # the fraction stays below 1 whatever the kernel allows. The bound is
        # checked where a load asks more than its quota all the way through:
        # the kernel suite's long run and the e2e suite's case 23.
        rows.append(["(context) long-run usage / (quota·N + burst), every limited run of every "
                     "repetition, the largest: these loads ask at most 5/7 of their quota, so it "
                     "cannot pass 1 whatever the kernel allows; the bound is checked under a load "
                     "asking more than its quota throughout, in the kernel suite's long run and "
                     "the e2e suite", f"{worst:.2f} ({wr['kernel']} {wr['run']}, repetition "
                     f"{wr['rep']}; {len(fracs)} runs)", "–", "–", "–",
                     "" if not over else "**above 1**: " + ", ".join(over)])
    return md_table(["ratio", "median [min–max] over repetitions", "numerator: p99 median [min–max]",
                     "denominator: p99 median [min–max]", "target", ""], rows, right_from=9)


def rule_text():
    """The support rule in words, with every percentile's floor."""
    needs = ", ".join(f"{p} {min_samples(p):,}" for p in PCTS)
    return (f"**Samples.** A percentile is shown only when at least {TAIL} samples lie beyond "
            f"it (`bench/report.py`, `min_samples`): burstbench's pXX of n samples is the one "
            f"of rank ⌈XX/100 · n⌉, and n minus that rank must be at least {TAIL}, so pXX needs "
            f"n ≥ {TAIL} / (1 − XX/100): {needs}. Below that a table says n/a and gives n.")


def samples_text(data):
    """The support rule, and what it meant for these runs."""
    ns = [r["result"]["requests"] for r in data.runs]
    shown = [p for p in PCTS if all(supported(p, n) for n in ns)]
    hidden = [p for p in PCTS if p not in shown]
    reps = sorted({len(recs) for recs in data.cases().values()})
    floor = int(data.meta.get("min_requests") or 0)
    text = rule_text() + f" Here every run has n = {fmt_n(ns)} measured requests"
    if floor:
        text += (f" (the runner sizes each run's window for {floor:,}, what p99 needs, and a run "
                 f"with fewer fails the benchmark)")
    text += (", so " + (", ".join(hidden) + " " + ("is" if len(hidden) == 1 else "are") +
                        " n/a" if hidden else "every percentile is shown") + ". ")
    batches = sorted({r["result"].get("batch", 1) for r in data.runs})
    if ns and batches != [1]:
        n, b = min(ns), max(batches)
        above = n - math.ceil(0.99 * n)
        text += (f"**What p99 rests on**: the requests of a batch (up to {b}) are released "
                 f"together and share their fate, so the {above} requests of a {n:,}-request run "
                 f"that lie above its p99 may come from as few as {math.ceil(above / b)} "
                 f"batches: a run's p99 rests on that many independent tail events, and the "
                 f"repetitions multiply them, not the requests. ")
        k = n // b
        # The widest interval a sample of k gives for its p99, its smallest to
        # its largest value, misses the true p99 with probability 0.99^k + 0.01^k.
        cover = 1 - 0.99 ** k - 0.01 ** k
        need = math.ceil(math.log(0.05) / math.log(0.99))
        if cover < 0.95:
            text += (f"Even counted as independent, a run's {k} batches are too few for a "
                     f"two-sided 95 % interval of p99 from inside the run: the widest one, from "
                     f"its smallest value to its largest, covers the true p99 with probability "
                     f"1 − 0.99^{k} = {cover:.2f} (95 % needs {need} batches). ")
    if reps == [1]:
        text += "Each case ran once; ratios are of single runs."
    else:
        text += (f"Each case ran {' or '.join(map(str, reps))} times (repetitions); a table "
                 f"cell is the median over the repetitions and, in brackets, the smallest and "
                 f"the largest (a range, not an error bar), and a ratio is computed per repetition (see Ratios) and "
                 f"summarised the same way.")
    return text


def ratio_text(s):
    return fmt_spread(s, lambda v: f"{v:.2f}")


def headline(data):
    """The page's result, first: at the same share and pool, mainline's
    stretched period against ours' burst above quota (STRETCHED / OURS_BURST),
    with its range and what it means; then the capped comparison as the
    control it is; then what the brackets are and where the frontier page
    looks further. Every figure from the runs."""
    cases = data.cases()
    ours, theirs = cases.get(OURS_BURST), cases.get(STRETCHED)
    out = "**The result.** "
    s, pairs, why = ratio_spread(theirs or [], ours or [])
    if s is None:
        out += ("This run has no same-share comparison (mainline's `s2-stretched` against "
                f"ours' `s2-burst`: {why}), so it says nothing about a gain over a mainline "
                "user who stretches the period; the capped rows of the ratios are controls. ")
    else:
        o, t = ours[0], theirs[0]
        share = {k: Fraction(r["quota_us"], r["period_us"]) for k, r in (("o", o), ("t", t))}
        pool = {k: (r["quota_us"] + r["burst_us"]) // 1000 for k, r in (("o", o), ("t", t))}
        same = ("the same long-run share ({:g} CPU) and the same {} ms pool".format(
                    float(share["o"]), pool["o"])
                if share["o"] == share["t"] and pool["o"] == pool["t"] else
                "**a different share or pool** (ours {:g} CPU, {} ms; mainline {:g} CPU, {} ms)".format(
                    float(share["o"]), pool["o"], float(share["t"]), pool["t"]))
        med, lo, hi = s
        lower = sum(1 for _, v in pairs if v > 1)
        out += (f"At {same}, mainline given a longer period (`s2-stretched`: "
                f"{t['quota_us'] // 1000} ms per {t['period_us'] // 1000} ms, burst = quota) "
                f"against ours with a burst above the quota (`s2-burst`: {o['quota_us'] // 1000} ms "
                f"per {o['period_us'] // 1000} ms, burst {o['burst_us'] // 1000} ms): p99 mainline "
                f"/ p99 ours = **{ratio_text(s)}** (the median of {len(pairs)} per-round ratios "
                f"[smallest–largest]; above 1 ours is the lower; the p99s: mainline "
                f"{ms_spread(theirs)}, ours {ms_spread(ours)}). Ours' p99 was the lower in "
                f"{lower} of {len(pairs)} rounds. ")
        if lo > 1:
            out += ("Ours was the lower in every round: on this load the series shows a gain "
                    f"over a mainline user who stretches the period, of {med:.2f}× at the "
                    f"median, on {len(pairs)} rounds. ")
        elif hi < 1:
            out += ("Mainline was the lower in every round: on this load the series shows no "
                    "gain over a mainline user who stretches the period; that user does better. ")
        else:
            out += ("The range holds 1: on this load the series shows no gain over a mainline "
                    "user who stretches the period. ")
    capped, cwhy = ratio_spread(cases.get(("mainline", "s2-capped"), []), ours or [])[0::2]
    if capped is not None:
        out += ("**The control**, not the result: against mainline capped at burst = quota, the "
                "only setting mainline accepts at our period and its worst for this load, the "
                f"ratio is {ratio_text(capped)}; it compares ours with mainline given our "
                "configuration, not with what a mainline user would choose. ")
    reps = sorted({len(recs) for recs in cases.values()})
    out += (f"Brackets are the smallest and largest of {' or '.join(map(str, reps))} rounds: a "
            "range, not an error bar or a confidence interval. Where a burst above the quota "
            "wins against mainline's best setting for the same share, if anywhere, is what "
            "`make bench-frontier` measures: [benchmarks-frontier.md](benchmarks-frontier.md).")
    return out


def ms_spread(recs):
    return fmt_spread(pct_spread(recs, "p99")[0], lambda v: f"{v / 1000:.1f}") + " ms"


def minutes(seconds):
    return f"{round(seconds / 60)} min ({seconds:,} s)"


def run_count_text(data):
    """What ran, counted from the raw file: each kernel's cases, the counted
    runs and boots, the boots booted again and tries run again, the time."""
    cases = data.cases()
    per = []
    for k in data.kernels():
        runs = sorted((run for kk, run in cases if kk == k),
                      key=lambda r: ORDER.index(r) if r in ORDER else 99)
        per.append((KERNEL_NAMES.get(k, k), runs))
    listing = [f"{name}{' ran' if i == 0 else ''} {len(runs)} case{'s' if len(runs) != 1 else ''} "
               f"({', '.join(runs)})" for i, (name, runs) in enumerate(per)]
    listing = (", ".join(listing[:-1]) + " and " + listing[-1]) if len(listing) > 1 else "".join(listing)
    counted = [b for b in data.boots if b.get("counted", 1)]
    again = len(data.boots) - len(counted)
    retried = sum(1 for d in data.discards if d.get("why", "host stall") == "host stall")
    out = (f"Here, in each round, {listing}: {len(data.runs)} counted runs in {len(counted)} "
           f"boot{'s' if len(counted) != 1 else ''}")
    if again:
        out += f", and {again} boot{'s' if again != 1 else ''} booted again"
    if retried:
        out += f"; {retried} tr{'ies' if retried != 1 else 'y'} run again after a host stall"
    end = data.end or {}
    if isinstance(end.get("boots_s"), (int, float)):
        out += f". The boots took {minutes(end['boots_s'])} on this {data.meta.get('host_cpus', '?')}-core host"
        if isinstance(data.meta.get("estimate_s"), (int, float)):
            out += (f"; the runner estimated {minutes(data.meta['estimate_s'])} before the "
                    "first boot, by the arithmetic in `bench/run-latency.sh`")
    return out + "."


def windows_text(data):
    """Each scenario's measured window, from the runs."""
    windows = {}
    for r in data.runs:
        windows.setdefault(r["scenario"], set()).add(r["result"]["runtime_s"])
    parts = [f"{'/'.join(f'{v:.1f}' for v in sorted(w))} s" + (f" for scenario {sc}" if len(windows) > 1 else "")
             for sc, w in sorted(windows.items())]
    return ", ".join(parts)


def overrun_text(data):
    """The stall rule's threshold against the overruns the counted runs show."""
    stall = int(data.meta.get("stall_us", 20000)) / 1000
    runs = [r for r in data.runs if r["result"].get("request_overrun_max_us") is not None]
    if not runs:
        return f"Its threshold is {stall:g} ms; these runs did not report their overruns."
    worst = max(runs, key=lambda r: r["result"]["request_overrun_max_us"])
    w = worst["result"]["request_overrun_max_us"] / 1000
    med = statistics.median(r["result"]["request_overrun_max_us"] for r in runs) / 1000
    out = (f"The counted runs' largest overrun is {w:.1f} ms ({worst['kernel']} {worst['run']}, "
           f"repetition {worst['rep']}), their median {med:.1f} ms over {len(runs)} runs")
    if w <= stall:
        return out + (f": the {stall:g} ms threshold is above every counted run, "
                      f"{stall - w:.1f} ms above the largest.")
    return out + (f": above the {stall:g} ms threshold, a second try, which counts whatever "
                  "it shows.")


# Without burst, scenario 1's throttled request waits at most for the rest of
# its period: 100 ms less the 35 ms in which 2 vCPUs use a 70 ms quota.
S1_WAIT_MS = 65


def nolimit_text(data):
    """The no-limit runs' p99s (the guest's wake-up tail) and scenario 1's
    ceiling on its ratio: S1_WAIT_MS over the no-limit p99 at the median."""
    cases = data.cases()
    p99s = [r["result"]["latency_us"]["p99"] for r in data.runs
            if r["quota_us"] is None and supported("p99", r["result"]["requests"])]
    if not p99s:
        return "no no-limit run here to measure it", "not measured here"
    span = f"{min(p99s) / 1000:.1f}–{max(p99s) / 1000:.1f} ms" if min(p99s) != max(p99s) \
        else f"{p99s[0] / 1000:.1f} ms"
    s1 = pct_spread(cases.get(("ours", "s1-nolimit"), []), "p99")[0]
    if s1 is None:
        return f"{span} at p99 in this run's no-limit runs", "not measured here"
    return (f"{span} at p99 in this run's no-limit runs",
            f"about {S1_WAIT_MS * 1000 / s1[0]:.0f} ({S1_WAIT_MS} ms over the scenario 1 "
            f"no-limit p99's median, {s1[0] / 1000:.1f} ms)")


def scenarios_of(data):
    return {r["scenario"] for r in data.runs}


def conditionals(text, data):
    """Keep the template's "@IF sN@ ... [@ELSE@ ...] @ENDIF@" blocks (each
    marker on a line of its own, no nesting) by whether the runs have
    scenario N: a page never describes results of a scenario it lacks."""
    have = {f"s{n}" for n in scenarios_of(data)}

    def pick(m):
        if m.group(1) not in {"s1", "s2", "s3"}:
            raise BenchError(f"template: unknown condition @IF {m.group(1)}@")
        return m.group(2) if m.group(1) in have else (m.group(3) or "")
    out = re.sub(r"^@IF (\S+)@\n(.*?)(?:^@ELSE@\n(.*?))?^@ENDIF@\n", pick, text,
                 flags=re.S | re.M)
    # A dropped paragraph leaves its blank lines behind.
    out = re.sub(r"\n{3,}", "\n\n", out)
    if re.search(r"^@(IF|ELSE|ENDIF)\b", out, re.M):
        raise BenchError("template: an @IF@ block without its @ENDIF@")
    return out


def run_lines(data, md):
    """The "Last run" lines, from the raw file's own records. md: the page,
    which links to the raw file."""
    m, end = data.meta, data.end or {}
    out = [f"date: {m.get('date', '?')}, {m.get('commit', '?')}",
           f"host: {m.get('host_cpus', '?')} CPUs ({m.get('host_model', '?')}), load average "
           f"before {m.get('loadavg_before', '?')}, after {end.get('loadavg_after', '?')}",
           f"guest: {m.get('guest', '?')}"]
    first = {}
    for r in data.runs:
        first.setdefault(r["kernel"], r)
    for k in data.kernels():
        r = first[k]
        out.append(f"{KERNEL_NAMES.get(k, k)}: {r.get('release', '?')} ({r.get('image', '?')}, "
                   f"sha256 {str(r.get('image_sha256', '?'))[:16]}); config: {r.get('config', '?')}"
                   + (f"; the built .config's sha256 {r['config_sha256']}" if r.get("config_sha256") else "")
                   + (f"; {r['stack']}" if r.get("stack") else ""))
    if any("config_sha256" in r for r in first.values()):
        out.append("every boot's `uname -r` and `uname -v` were checked against the version "
                   "string in its bzImage's boot header (bench/runner-lib.sh)")

    def config_of(r):
        return r.get("config_sha256") or r.get("config")
    if "ours" in first and "mainline" in first and config_of(first["ours"]) != config_of(first["mainline"]):
        out.append("**ours and mainline were built with different configs**: the comparison "
                   "is not of the series alone")
    order = ", ".join(m.get("kernels", "").split(","))
    cases = f"the runs {', '.join(m['only'].split(','))}" if m.get("only") else "every case"
    out.append(f"{m.get('repetitions', '?')} repetitions; in each, one boot per kernel in the "
               f"order {order}, running {cases} for that kernel once")
    for b in data.boots:
        again = "" if b.get("counted", 1) else " (not counted: booted again)"
        out.append(f"repetition {b['rep']}, {b['kernel']}, boot {b.get('boot_try', 1)}: host CPU "
                   f"pressure {b.get('host_cpu_pressure_pct', '?')}%, other QEMU guests "
                   f"alongside: {b.get('other_guests', '?')}, {b.get('seconds', '?')} s{again}")
    out.append("host CPU pressure: share of the boot in which some host task waited for a CPU "
               "(/proc/pressure/cpu), our guest's own QEMU threads included")
    windows = {}
    for r in data.runs:
        windows.setdefault(r["scenario"], set()).add(r["result"]["runtime_s"])
    measured = ", ".join(f"scenario {s}: {', '.join(f'{v:g}' for v in sorted(w))} s"
                         for s, w in sorted(windows.items()))
    out.append(f"runs: at least {m.get('min_requests', '?')} requests each, measured over the "
               f"shortest window of whole batches that holds them ({measured}) after "
               f"{m.get('warmup_s', '?')} s warm-up; up to {m.get('attempts', '?')} tries when the "
               f"host stalled a request by more than {int(m.get('stall_us', 20000)) // 1000} ms; "
               f"the boots took {end.get('boots_s', '?')} s ({end.get('elapsed_s', '?')} s with waiting)")
    if data.source:
        src = os.path.relpath(data.source, TOP)
        link = os.path.relpath(data.source, os.path.dirname(os.path.abspath(md)))
        out.append(f"raw data: [`{src}`]({link}); "
                   f"every figure here is computed from it alone: `bench/report.py --from {src} "
                   f"--template bench/benchmarks.md.in --setup {m.get('setup', 'bench/setup-kernel.md')} "
                   f"--generator '{m.get('generator', '?')}' --md OUT.md --png OUT.png` "
                   f"(the model's section replays the runs with `build/burstctl/burstctl`: "
                   f"`make burstctl`)")
    return out


# --- the plot -----------------------------------------------------------------------

# Line colour per kind of run; dashes tell the kernels apart.
COLOURS = {"nolimit": "#7f7f7f", "quota": "#1f77b4", "burst": "#2ca02c",
           "capped": "#d62728", "burst-off": "#9467bd"}
DASHES = {"ours": 1, "mainline": 2, "stock": 3}
POINTS = {"ours": 7, "mainline": 6, "stock": 4}


def style(key):
    kind = key[1].split("-", 1)[1]
    return (f'lc rgb "{COLOURS.get(kind, "black")}" dt {DASHES.get(key[0], 4)} lw 2 '
            f'pt {POINTS.get(key[0], 1)}')


def plot_rows(recs, pcts):
    """(x label, median, min, max) for each of pcts and the max."""
    rows = []
    for x in pcts + ["max"]:
        s = (spread(r["result"]["latency_us"]["max"] for r in recs) if x == "max"
             else pct_spread(recs, x)[0])
        rows.append((x,) + tuple(max(v, 1) for v in s))
    return rows


def plot_panels(cases):
    """[(scenario, title, keys)]: a panel per scenario the runs have; scenario
    3's holds the run it controls (ours, s2-burst) too, and only when the runs
    have scenario 3."""
    out = []
    for scenario, title, _ in SCENARIOS:
        keys = ordered(cases, scenario)
        if not keys:
            continue
        if scenario == 3:   # the control next to what it controls
            keys = [k for k in ordered(cases, 2) if k == OURS_BURST] + keys
        out.append((scenario, title, keys))
    return out


def plot(data, png):
    """Latency percentiles per scenario, log scale, one panel per scenario:
    the median over repetitions with the min–max as error bars."""
    if shutil.which("gnuplot") is None:
        print("report: no gnuplot here (make bench-deps installs it): no plot", file=sys.stderr)
        return False
    cases = data.cases()
    panels = []
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, title, keys in plot_panels(cases):
            # Only what every case here supports, so no line crosses an n/a.
            pcts = [p for p in PCTS
                    if all(supported(p, r["result"]["requests"]) for k in keys for r in cases[k])]
            files = []
            for i, k in enumerate(keys):
                dat = os.path.join(tmp, f"s{scenario}-{i}.dat")
                with open(dat, "w") as f:
                    for row in plot_rows(cases[k], pcts):
                        f.write(" ".join(str(v) for v in row) + "\n")
                files.append((dat, k))
            panels.append((title.split(":")[0], files))
        if not panels:
            return False
        reps = max(len(recs) for recs in cases.values())
        # Wide enough for the title when there is one panel only.
        gp = [f'set terminal pngcairo size {max(560 * len(panels), 840)},520 font "sans,9"',
              f'set output "{png}"',
              f"set multiplot layout 1,{len(panels)} title "
              f'"burstbench latency beyond CPU time, QEMU TCG, 2 vCPUs; median of {reps}, '
              f'bars min–max (a range, not an error bar); n/a percentiles left out"',
              "set logscale y", "set format y '10^{%L}'", "set grid ytics mytics",
              "set ylabel 'latency (µs)'",
              "set key below font ',8' maxrows 3", "set yrange [100:*]", "set offsets 0.3, 0.3, 0, 0"]
        for title, files in panels:
            series = [f'"{dat}" using 0:2:3:4:xtic(1) with yerrorlines title "{k[0]} {k[1]} '
                      f'(n={fmt_n([r["result"]["requests"] for r in cases[k]])})" {style(k)}'
                      for dat, k in files]
            gp += [f'set title "{title}"', "plot " + ", ".join(series)]
        gp.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    return True


# --- the page -------------------------------------------------------------------------

def tables(data):
    cases = data.cases()
    out = []
    for scenario, title, shape in SCENARIOS:
        keys = ordered(cases, scenario)
        if not keys:
            continue
        reps = max(len(cases[k]) for k in keys)
        how = "median [min–max] over the repetitions" if reps > 1 else "one run each"
        out += [f"### {title}", "", shape + ".", "",
                f"Latency beyond CPU time (µs; {how}; n per run: measured requests):", "",
                latency_table(cases, keys), "",
                f"Bandwidth over the measured window (cpu.stat deltas; {how}):", "",
                bandwidth_table(cases, keys), ""]
    needless = needless_table(cases)
    if needless:
        table, total, runs = needless
        out += ["### Throttles the model says were avoidable", "",
                "Each limited run's demand (its batches, when they were due, each bringing "
                "the CPU its requests used) replayed through the reference model of the "
                "refill rule (`model/bw-replay.c`, via `burstctl simulate`) from the run's "
                "start, with the run's quota, period and burst, at "
                f"{MODEL_PHASES} phases of the period; the model's throttled periods are those "
                "ending in the measured window. Where the model needs no throttle at any "
                "phase, every throttle the kernel counted is one the pool rule did not "
                "require: needless, and the physical limit is 0. Where the model needs "
                "some, the counts cannot tell needless throttles from needed ones (a run "
                "can have both, and they cancel in a count), and the kernel is not the "
                "model: it hands runtime to each CPU in 5 ms slices, returns a CPU's unused "
                "slice only after the slack timer, and lets a CPU overrun by up to a tick "
                "before it throttles, so at a pool just below a batch's demand it throttles "
                "some batches the model throttles and lets others through.", "", table, "",
                f"Needless: **{total:,}** throttled periods in the {runs} limited runs whose "
                "pool the model says covers every batch.", ""]
        emulator, unexplained, lines = needless_causes(cases)
        if lines:
            out += [f"Each needless throttle set beside what its run measured "
                    f"(`needless_causes`): **{emulator:,}** in runs where some request was "
                    f"charged a stall larger than the pool's spare over a batch, which the "
                    f"emulator could explain; **{unexplained:,}** in runs with no such stall, "
                    "unexplained. The rule is loose: it compares the run's largest stall, "
                    "wherever in the run it fell, with the spare, so one stall 'explains' "
                    "every throttle of its run, none tied to a throttle in time; and its "
                    "allowance for what the other CPUs' runqueues keep was added after the "
                    "runs of 2026-12-06 had been seen. Read \"the emulator\" below as a "
                    "stall that could explain them, not as a cause shown.", ""] + lines + [""]
    if data.discards:
        out += ["### Discarded tries and boots", "",
                "Tries run again because the host stalled a request, and runs of boots booted "
                "again because another guest ran alongside (see Method); none of them counts:", "",
                discarded_table(data.discards), ""]
    else:
        out += ["No try was discarded for a host stall.", ""]
    return "\n".join(out).rstrip() + "\n"


def page(data, template_text, setup_text, generator, md, png, body, ratios):
    """The page: the template with the setup's text, its conditional blocks
    kept or dropped by the runs' scenarios, and every @KEY@ replaced by what
    the runs give. A key the report does not know is an error, so no
    placeholder reaches a page and no figure stays template prose."""
    doc = conditionals(template_text.replace("@SETUP@", setup_text.rstrip()), data)
    p99s, ceiling = nolimit_text(data)
    values = {
        "RUN": lambda: "\n".join(f"- {line}" for line in run_lines(data, md)),
        "SAMPLES": lambda: samples_text(data),
        "TABLES": lambda: body.rstrip(),
        "RATIOS": lambda: ratios.rstrip(),
        "GENERATOR": lambda: generator,
        "PNG": lambda: os.path.basename(png),
        "HEADLINE": lambda: headline(data),
        "RUNCOUNT": lambda: run_count_text(data),
        "WINDOWS": lambda: windows_text(data),
        "INTERVALS": lambda: ", ".join(f"{v:g} ms" for v in sorted(
            {round(r["result"]["batch"] / r["result"]["rate"] * 1000) for r in data.runs})),
        "FLOOR": lambda: f"{int(data.meta.get('min_requests') or 0):,}",
        "WARMUP": lambda: f"{data.meta.get('warmup_s', '?'):g} s",
        "ROUNDS": lambda: str(data.meta.get("repetitions", "?")),
        "STALL": lambda: f"{int(data.meta.get('stall_us', 20000)) / 1000:g} ms",
        "OVERRUN": lambda: overrun_text(data),
        "NOLIMIT_P99": lambda: p99s,
        "S1_CEILING": lambda: ceiling,
    }

    def value(m):
        if m.group(1) not in values:
            raise BenchError(f"template: unknown placeholder @{m.group(1)}@")
        return values[m.group(1)]()
    # One pass: what a value brings in (a table, a command line) is not scanned again.
    return re.sub(r"@([A-Z][A-Z0-9_]*)@", value, doc)


def render(data, template, setup, generator, md, png):
    body = tables(data)
    ratios = ratio_rows(data) + "\n"
    print(body)
    print("### Ratios\n")
    print(ratios)
    with open(template) as f, open(setup) as g:
        doc = page(data, f.read(), g.read(), generator, md, png, body, ratios)
    plotted = plot(data, png)
    with open(md, "w") as f:
        f.write(doc)
    print(f"report: wrote {md}" + (f" and {png}" if plotted else " (no plot)"))


def field(text, number):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    if number:
        try:
            value = int(value)
        except ValueError:
            try:
                value = float(value)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None
    return key, value


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="raw", metavar="RAW", help="the raw JSON-lines file to report")
    ap.add_argument("--append", metavar="RAW", help="add lines to RAW (see above)")
    ap.add_argument("--str", action="append", default=[], type=lambda t: field(t, False),
                    metavar="KEY=VALUE", help="--append: a text field")
    ap.add_argument("--num", action="append", default=[], type=lambda t: field(t, True),
                    metavar="KEY=NUMBER", help="--append: a number field")
    ap.add_argument("--uncounted", metavar="WHY", help="--append: LOG's runs do not count, because WHY")
    ap.add_argument("--min-samples", metavar="PCT", help="print the samples PCT (p99) needs")
    ap.add_argument("--template")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--setup", help="markdown: how the runs were made")
    ap.add_argument("--generator", help="the command that regenerates OUT.md")
    ap.add_argument("logs", nargs="*")
    a = ap.parse_args(argv)

    try:
        if a.min_samples:
            if a.min_samples not in PCTS:
                ap.error(f"--min-samples: one of {', '.join(PCTS)}")
            print(min_samples(a.min_samples))
            return 0
        if a.append:
            if len(a.logs) > 1:
                ap.error("--append takes one LOG at most")
            n = append(a.append, dict(a.str + a.num), a.logs[0] if a.logs else None, a.uncounted)
            if a.logs and n == 0:
                raise BenchError(f"{a.logs[0]}: no BENCH-JSON or BENCH-DISCARD line")
            return 0
        missing = [o for o in ("template", "setup", "generator", "md", "png") if not getattr(a, o)]
        if missing:
            ap.error("the report needs --" + ", --".join(missing))
        if not a.raw or a.logs:
            ap.error("the page comes from --from RAW alone (a LOG goes with --append)")
        data = load_raw(a.raw)
        render(data, a.template, a.setup, a.generator, a.md, a.png)
    except BenchError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
