#!/usr/bin/env python3
"""The frontier's raw file and its page (make bench-frontier).

bench/run-frontier.sh writes one JSON-lines file: a "bench" header, the
runs of every boot ("run": bench/frontier-suite.sh's FRONTIER-JSON with
the round and the boot; "advise": what burstctl advise said about each
recorded load), and an "end" line. Everything on the page is computed
from that file alone:

  python3 bench/frontier.py --from RAW --md PAGE.md --png PAGE.png

For each load and long-run share the page compares, per percentile (p99,
p99.9) of the latency a request waited beyond its own CPU time:

  ours       our kernel at 100 ms, with the burst burstctl advise found on
             a recording of the load (the period a Kubernetes user has);
  best       mainline (the same tree without the series, the same config)
             at the setting of the sweep that did best at that percentile,
             chosen after the fact: periods 10 ms to 1 s, burst = quota, the
             quota keeping the share; an oracle no user has;
  at 100 ms  mainline at 100 ms with burst = quota: what a pod can have;
  control    our kernel at 100 ms with burst = quota (the same setting as
             mainline at 100 ms: tells the setting from the kernel).

The ratio ours / best has a 95 % interval from a block bootstrap: each
run's requests, in the order they were due, are cut into blocks of
BLOCK consecutive requests (a throttle delays neighbours together), blocks
are drawn with replacement within each run, the rounds pooled, and the
oracle's choice is made again in every resample. The verdict is decided
by the interval: win when it lies below 1/(1 + MARGIN), lose above
1 + MARGIN, tie inside [1/(1 + MARGIN), 1 + MARGIN], undecided otherwise.
Latencies below FLOOR_US count as FLOOR_US in ratios: two tails that
small carry no throttling to compare.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import BenchError, read_records  # noqa: E402

PCTS = (("p99", 99.0), ("p99.9", 99.9))
BLOCK = 10
RESAMPLES = 1000
MARGIN = 0.10
FLOOR_US = 500
SEED = 20261207
LOAD_TEXT = {
    "schbench": "the seed's schbench shape: 30 ms of CPU every 210 ms (0.143 CPU)",
    "heavytail": "a request every 100 ms, Pareto sizes (shape 1.5, mean 10 ms, at most 1 s; 0.096 CPU)",
    "rare": "2 ms every 50 ms, and 400 ms every 5 s (0.12 CPU), two workers",
    "pod": "schbench in a one-container pod: container and pod cgroup both limited, 100 ms",
}


def fail(msg):
    print(f"frontier: {msg}", file=sys.stderr)
    sys.exit(1)


# --- the raw file -------------------------------------------------------------

def kv(pairs):
    out = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep:
            fail(f"'{p}': expected KEY=VALUE")
        out[k] = int(v) if v.isdigit() else v
    return out


def append(raw, rec):
    with open(raw, "a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")


def collect(raw, log, fields):
    """The FRONTIER- lines of one boot's log, with the round and the boot."""
    n = 0
    release = str(fields.get("release", ""))
    with open(log) as f:
        for line in f:
            line = line.rstrip("\r\n")
            for tag, kind in (("FRONTIER-JSON ", "run"), ("FRONTIER-ADVISE ", "advise")):
                if line.startswith(tag):
                    rec = json.loads(line[len(tag):])
                    if kind == "run" and release and not release.startswith(rec["release"] + " "):
                        fail(f"{log}: the guest ran {rec['release']}, not the bzImage's {release}")
                    rec.update({k: v for k, v in fields.items() if k != "release"})
                    rec["type"] = kind
                    append(raw, rec)
                    n += kind == "run"
    return n


def load_raw(path):
    try:
        head, recs, end = read_records(path, ("run", "advise"))
    except BenchError as e:
        fail(str(e))
    return head, recs["run"], recs["advise"], end


# --- statistics -----------------------------------------------------------------

def percentile(sorted_v, p):
    """Nearest rank, as burstbench reports: the smallest value with p% at or below it."""
    if not sorted_v:
        return None
    k = max(1, -(-len(sorted_v) * p // 100))
    return sorted_v[int(k) - 1]


def latencies(run):
    """A run's measured latencies, us, in the order the requests were due;
    an unfinished request counts as the longest wait of the run."""
    lat = run["result"]["latencies_us"]
    longest = max([v for v in lat if v >= 0] or [0])
    return [v if v >= 0 else longest for v in lat]


def blocks(lat):
    return [lat[i:i + BLOCK] for i in range(0, len(lat), BLOCK)]


def resample(block_lists, rng):
    out = []
    for bl in block_lists:
        for _ in range(len(bl)):
            out.extend(bl[rng.randrange(len(bl))])
    out.sort()
    return out


def pcts(sorted_v):
    return {name: percentile(sorted_v, p) for name, p in PCTS}


def floor(v):
    return max(v, FLOOR_US)


def verdict(lo, hi):
    if hi < 1 / (1 + MARGIN):
        return "win"
    if lo > 1 + MARGIN:
        return "lose"
    if lo >= 1 / (1 + MARGIN) and hi <= 1 + MARGIN:
        return "tie"
    return "undecided"


def quantile(sorted_v, q):
    i = min(len(sorted_v) - 1, max(0, round(q * (len(sorted_v) - 1))))
    return sorted_v[i]


class Cell:
    """One load at one share: its settings' runs, pooled over the rounds."""

    def __init__(self, load, share, runs):
        self.load, self.share = load, share
        self.by = {}
        for r in runs:
            self.by.setdefault(r["setting"], []).append(r)
        self.sweep = sorted((s for s in self.by if s.startswith("mainline-")),
                            key=lambda s: int(s.split("-")[1]))

    def pooled(self, setting):
        v = sorted(x for r in self.by.get(setting, []) for x in latencies(r))
        return pcts(v) if v else None

    def throttles(self, setting, key="nr_throttled"):
        rs = self.by.get(setting, [])
        vals = [r["result"]["cpu_stat"].get(key) for r in rs]
        return sum(vals) if rs and None not in vals else None

    def pod_throttles(self, setting):
        total = 0
        for r in self.by.get(setting, []):
            st = dict(zip(*[iter((r.get("pod_cpu_stat") or "").split())] * 2))
            if "nr_throttled" not in st:
                return None
            total += int(st["nr_throttled"])
        return total if self.by.get(setting) else None

    def compare(self, ours="ours-advised", rng=None):
        """Per percentile: ours, the oracle's best setting and value, and
        the ratio with its bootstrap interval and verdict."""
        if ours not in self.by or not self.sweep:
            return None
        rng = rng or random.Random(SEED)
        point = {s: self.pooled(s) for s in [ours] + self.sweep}
        bl = {s: [blocks(latencies(r)) for r in self.by[s]] for s in [ours] + self.sweep}
        ratios = {name: [] for name, _ in PCTS}
        for _ in range(RESAMPLES):
            o = pcts(resample(bl[ours], rng))
            m = [pcts(resample(bl[s], rng)) for s in self.sweep]
            for name, _ in PCTS:
                best = min(floor(x[name]) for x in m)
                ratios[name].append(floor(o[name]) / best)
        out = {}
        for name, _ in PCTS:
            best_s = min(self.sweep, key=lambda s: (point[s][name], abs(int(s.split("-")[1]) - 100)))
            r = sorted(ratios[name])
            lo, hi = quantile(r, 0.025), quantile(r, 0.975)
            out[name] = {"ours": point[ours][name], "best": point[best_s][name], "best_setting": best_s,
                         "ratio": floor(point[ours][name]) / floor(point[best_s][name]),
                         "lo": lo, "hi": hi, "verdict": verdict(lo, hi)}
        return out


def cells(runs):
    keys = sorted({(r["load"], r["share_pct"]) for r in runs},
                  key=lambda k: (list(LOAD_TEXT).index(k[0]) if k[0] in LOAD_TEXT else 99, k[1]))
    return [Cell(load, share, [r for r in runs if (r["load"], r["share_pct"]) == (load, share)])
            for load, share in keys]


# --- the model's throttles ------------------------------------------------------

PHASES = 20
# burstbench calibrates its spin loop for 20 ms of CPU, then posts batch 0
# 20 ms later (bench/burstbench.c): the run's demand from the limit's start.
CALIBRATE_US = 20000


def run_trace(run):
    """The run's own demand as a trace burstctl reads, from the moment its
    limit was set: the calibration, then each request at the time it was
    due, and where the measured window starts. Requests before the window
    (the warm-up) asked what the options say; the JSON lists the measured
    ones (sizes_us), the warm-up ones are recomputed from it only when all
    requests ask the same, so a tail run starts its trace at the window
    with a full pool."""
    res = run["result"]
    sizes, interval = res["sizes_us"], res["batch_interval_ns"] / 1000
    batch = res["batch"]
    warm_batches = round(res["warmup_s"] * 1e6 / interval + 0.4999)
    fixed = "tail" not in res and "large" not in res
    rows, t = ["# cpus: 1", "time_us,cpu_us", "0,0"], 0
    if fixed:
        warm = [res["cputime_us"]] * (warm_batches * batch)
        start = CALIBRATE_US * 2
        rows.append(f"{CALIBRATE_US},{CALIBRATE_US}")
        t = CALIBRATE_US
    else:
        warm, start = [], 1
    window = start + len(warm) // batch * interval
    for k, size in enumerate(warm + sizes):
        due = int(start + k // batch * interval)
        if due <= t:
            due = t + 1
        rows += [f"{due},0", f"{due + 1},{size}"]
        t = due + 1
    return "\n".join(rows) + "\n", window, fixed


def model_throttles(run, burstctl):
    """The throttled periods the model gives the run's own demand in its
    measured window, over PHASES phases of the period: (fewest, most)."""
    trace, window, fixed = run_trace(run)
    period = run["period_us"]
    counts = []
    for i in range(1, PHASES + 1):
        phase = max(1, period * i // PHASES)
        p = subprocess.run([burstctl, "simulate", "-", "--quota", str(run["quota_us"]), "--period", str(period),
                            "--burst", str(run["burst_us"]), "--cpus", "1", "--phase", str(phase), "--csv"]
                           + ([] if fixed else ["--start", "full"]),
                           input=trace, capture_output=True, text=True)
        if p.returncode:
            fail(f"burstctl simulate: {p.stderr.strip()}")
        n = 0
        for line in p.stdout.splitlines()[1:]:
            f = line.split(",")
            if int(f[7]) and int(f[2]) > window:
                n += 1
        counts.append(n)
    return min(counts), max(counts)


def needless(runs, burstctl):
    """Per run: the kernel's throttled periods against the model's range.
    Under -icount no host stall reaches the guest, so a throttle the model
    gives in no phase is unexplained; one more than its most is allowed,
    for a boundary at the window's edge counted on the other side."""
    out = []
    for r in runs:
        kern = r["result"]["cpu_stat"].get("nr_throttled")
        if kern is None or "sizes_us" not in r["result"]:
            continue
        lo, hi = model_throttles(r, burstctl)
        out.append((r, kern, lo, hi, max(0, kern - hi - 1)))
    return out


# --- the page ---------------------------------------------------------------------

def ms(us):
    return "–" if us is None else f"{us / 1000:,.1f}"


def period_of(setting):
    return f"{int(setting.split('-')[1])} ms"


def frontier_rows(cell, cmp):
    rows = []
    for name, _ in PCTS:
        c = cmp[name] if cmp else None
        at100 = cell.pooled("mainline-100")
        control = cell.pooled("ours-capped")
        if c:
            best = "– (the period is the node's)" if cell.load == "pod" else \
                f"{ms(c['best'])} ({period_of(c['best_setting'])})"
            rows.append([f"{cell.share} %", name, ms(c["ours"]), best,
                         ms(at100[name]) if at100 else "–", ms(control[name]) if control else "–",
                         f"{c['ratio']:.2f} [{c['lo']:.2f}–{c['hi']:.2f}]", f"**{c['verdict']}**"])
        else:
            ours = cell.pooled("ours-advised")
            ratio = "–"
            if ours and at100:
                ratio = f"{floor(ours[name]) / floor(at100[name]):.2f} (to 100 ms)"
            rows.append([f"{cell.share} %", name, ms(ours[name]) if ours else "–", "– (the period is the node's)",
                         ms(at100[name]) if at100 else "–", ms(control[name]) if control else "–", ratio, "–"])
    return rows


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(head) - 1)) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def analyse(runs):
    rng = random.Random(SEED)
    out = []
    for cell in cells(runs):
        # The pod's only mainline setting is the node's 100 ms: its "best" is that one.
        out.append((cell, cell.compare(rng=rng)))
    return out


def advise_lines(advice):
    lines = []
    for a in sorted(advice, key=lambda a: (a.get("rep", 0), a["load"], a["share_pct"])):
        adv = a.get("advice") or {}
        ml = adv.get("mainline") or {}
        best = ml.get("best") or {}
        if not best:
            continue
        if not best.get("meets_goal"):
            say = "no mainline setting meets it: **needs the patched kernel**" if adv.get("burst_us") is not None \
                else "neither kernel meets it"
        else:
            say = (f"mainline meets it at {best['period_us'] // 1000} ms, burst = quota"
                   + ("; not at 100 ms" if ml.get("needs_patched_kernel_at_own_period") else ""))
        lines.append(f"| {a.get('rep', '?')} | {a['load']} | {a['share_pct']} % | {ms(a['burst_us'])} | {say} |")
    if not lines:
        return []
    return ["| round | load | share | advised burst, ms | advise's verdict on mainline (0 throttled periods, worst of 20 phases) |",
            "| ---: | --- | ---: | ---: | --- |"] + lines


def plot(results, png):
    if shutil.which("gnuplot") is None:
        print("frontier: no gnuplot here (make bench-deps installs it): no plot", file=sys.stderr)
        return False
    loads = []
    for cell, cmp in results:
        if cmp and cell.load not in loads:
            loads.append(cell.load)
    if not loads:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        gp = ['set terminal pngcairo size 1000,760 font "sans,9"', f'set output "{png}"',
              f"set multiplot layout {(len(loads) + 1) // 2},2 title "
              '"latency beyond CPU time against long-run share: ours (100 ms, burst from burstctl advise) against '
              'mainline at its best period (burst = quota)\\n'
              f'QEMU TCG -icount, 1 vCPU; below {FLOOR_US / 1000} ms drawn at {FLOOR_US / 1000} ms"',
              "set tmargin 4",
              "set logscale y", "set xlabel 'long-run share (% of a CPU)'", "set ylabel 'ms'",
              "set grid", "set key top right font ',8'"]
        for load in loads:
            dat = os.path.join(tmp, f"{load}.dat")
            with open(dat, "w") as f:
                for cell, cmp in results:
                    if cell.load != load or not cmp:
                        continue
                    at100 = cell.pooled("mainline-100")
                    f.write(f"{cell.share} " + " ".join(
                        f"{floor(cmp[n]['ours']) / 1000} {floor(cmp[n]['best']) / 1000} "
                        f"{floor(at100[n]) / 1000 if at100 else 'NaN'}" for n, _ in PCTS) + "\n")
            best_title = "mainline at 100 ms" if load == "pod" else "mainline, best period"
            gp += [f"set title '{load}'",
                   f'plot "{dat}" using 1:2 with linespoints lw 2 pt 7 title "ours p99", '
                   f'"" using 1:3 with linespoints lw 2 pt 5 title "{best_title} p99", '
                   f'"" using 1:5 with linespoints lw 2 dt 2 pt 7 title "ours p99.9", '
                   f'"" using 1:6 with linespoints lw 2 dt 2 pt 5 title "{best_title} p99.9"'
                   + ('' if load == "pod" else ', "" using 1:4 with linespoints lw 1 pt 1 title "mainline at 100 ms p99"')]
        gp.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    return True


def page(raw, md, png, burstctl=None):
    head, runs, advice, end = load_raw(raw)
    results = analyse(runs)
    have_png = plot(results, png) if png else False
    counts = {}
    for cell, cmp in results:
        for name, _ in PCTS:
            if cmp:
                counts[cmp[name]["verdict"]] = counts.get(cmp[name]["verdict"], 0) + 1
    out = ["# Benchmarks: the series against mainline's best setting", "",
           "<!-- Generated by `make bench-frontier` (bench/run-frontier.sh, bench/frontier.py) from the raw "
           "file named below; edit bench/frontier.py, not this file. -->", "",
           "A user of a kernel without the series who is throttled has one knob besides burst: the period. "
           "At the same long-run share (quota / period) a longer period gives a larger pool (at most two quotas), "
           "at the price of a longer wait when it does run dry. This page asks where a burst above quota "
           "(**ours**: our kernel at the 100 ms period a Kubernetes node fixes, with the burst `burstctl advise` "
           "finds on a recording of the load) wins, ties or loses against **mainline at its best setting** for "
           "the same share: the same tree without the series, built with the same config, swept over periods "
           "10, 20, 50, 100, 200, 500 and 1000 ms with burst = quota (all mainline allows, and its best at each "
           "period), the best taken per percentile after the fact. That choice is an oracle no user can make: it "
           "flatters mainline. **at 100 ms** is mainline at the kubelet's period with burst = quota, what a pod "
           "can have; **control** is our kernel at that same setting, which tells the kernel from the setting.", "",
           f"Latency is the time a request waited beyond its own CPU time (burstbench), in ms. Ratio: ours / best "
           f"(or / at 100 ms for the pod), each latency below {FLOOR_US / 1000} ms counted as {FLOOR_US / 1000} ms; "
           f"[95 % interval] from a block bootstrap ({RESAMPLES} resamples; blocks of {BLOCK} consecutive requests "
           f"drawn within each run, the rounds pooled; the oracle chooses again in every resample). "
           f"**Verdict, fixed before the runs**: win when the whole interval lies below {1 / (1 + MARGIN):.2f}, "
           f"lose above {1 + MARGIN:.2f}, tie inside [{1 / (1 + MARGIN):.2f}, {1 + MARGIN:.2f}], undecided otherwise.", "",
           "**The frontier**: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in ("win", "tie", "lose", "undecided"))
           + " (load × share × percentile).", ""]
    if have_png:
        out += [f"![p99 and p99.9 against long-run share, per load]({os.path.basename(png)})", ""]
    for load in [l for l in LOAD_TEXT if any(c.load == l for c, _ in results)]:
        out += [f"## {load}: {LOAD_TEXT[load]}", ""]
        rows = []
        for cell, cmp in results:
            if cell.load == load:
                rows += frontier_rows(cell, cmp)
        cols = ["share", "pct", "ours", "mainline, best (period)" if load != "pod" else "mainline, best",
                "mainline at 100 ms", "control: ours, burst = quota", "ours / mainline", "verdict"]
        out += md_table(cols, rows) + [""]
        thr = []
        for cell, _ in results:
            if cell.load != load:
                continue
            row = [f"{cell.share} %"]
            for s in ["ours-advised", "ours-capped"] + cell.sweep:
                t = cell.throttles(s)
                row.append("–" if t is None else f"{t:,}")
            thr.append((["share", "ours", "control"] + [period_of(s) for s in cell.sweep], row))
        if thr:
            out += ["Throttled periods (container level; summed over the rounds):", ""]
            out += md_table(thr[0][0], [r for _, r in thr]) + [""]
        if load == "pod":
            rows = []
            for cell, _ in results:
                if cell.load == "pod":
                    rows.append([f"{cell.share} %"] + ["–" if cell.pod_throttles(s) is None else f"{cell.pod_throttles(s):,}"
                                                       for s in ("ours-advised", "ours-capped", "mainline-100")])
            out += ["Throttled periods at the pod level:", ""]
            out += md_table(["share", "ours", "control", "mainline at 100 ms"], rows) + [""]
    if burstctl:
        checks = needless(runs, burstctl)
        extra = [c for c in checks if c[4]]
        out += ["## Throttles the model does not explain", "",
                "**The rule, fixed before the runs**: each run's own demand (every request's CPU time at the "
                "time it was due, and burstbench's calibration before them) is replayed through the reference "
                f"model (`burstctl simulate`) under the run's own limit at {PHASES} phases of the period; the "
                "kernel's throttled periods in the measured window should lie within the model's fewest and most, "
                "one more allowed for a boundary at the window's edge. Under -icount no host stall reaches the "
                "guest, so nothing else explains a throttle: every one beyond is **unexplained**. (A run with "
                "heavy-tailed or large requests starts the model at the window with a full pool.)", "",
                f"{len(checks)} runs checked; **{sum(c[4] for c in extra)} unexplained throttled periods** in "
                f"{len(extra)} runs" + (":" if extra else "."), ""]
        if extra:
            out += md_table(["run", "round", "kernel", "model (fewest–most)", "unexplained"],
                            [[f"{r['load']} {r['share_pct']} % {r['setting']}", r.get("rep", "?"), k, f"{lo}–{hi}", x]
                             for r, k, lo, hi, x in extra]) + [""]
    adv = advise_lines(advice)
    if adv:
        out += ["## What `burstctl advise` said about mainline, on the recordings", "",
                "Ours' bursts come from `burstctl advise` on a recording of each load (another seed: yesterday's "
                "traffic, not the run's), 0 throttled periods as the goal; advise also replays mainline's rules "
                "on the same recording (docs/burstctl.md, \"Does the load need the patched kernel?\").", ""]
        out += adv + [""]
    out += ["## Limits", "",
            "- **-icount**: guest time is instructions × 2^shift ns, so figures do not depend on the host and a "
            "boot repeats itself; idle guest time is skipped. It shows the scheduler's rules (when a group is "
            "throttled, for how long), not hardware's costs: no cache misses, no lock contention across CPUs "
            "(one vCPU), and kernel code costs what its instruction count says.",
            "- **p99.9** of a run rests on its top few requests; its interval is wide and often decides nothing.",
            "- The loads are synthetic: a recorded load of one's own, replayed by `burstctl advise`, answers the "
            "same question for that load.", "",
            "## This run", ""]
    out += [f"- raw data: [{os.path.basename(raw)}](bench-raw/{os.path.basename(raw)})",
            f"- {head.get('date')}, commit {head.get('commit')}; host {head.get('host_cpus')} CPUs ({head.get('host_model')})",
            f"- guest: {head.get('guest')}; ours {head.get('ours_release')}, mainline {head.get('mainline_release')}; "
            f"config {head.get('config')}; .config sha256 ours {head.get('ours_config_sha256')}, "
            f"mainline {head.get('mainline_config_sha256')}",
            f"- {head.get('reps')} rounds (round r: seed r of the heavy-tailed sizes and of each run's start "
            f"phase; under -icount the boots' order cannot matter), {head.get('requests')} measured requests "
            f"per run, {len(runs)} runs; "
            f"{end.get('elapsed_s')} s in all"]
    with open(md, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--header", nargs="+", metavar=("RAW", "KEY=VALUE"))
    ap.add_argument("--collect", nargs="+", metavar=("RAW", "LOG"))
    ap.add_argument("--footer", nargs="+", metavar=("RAW", "KEY=VALUE"))
    ap.add_argument("--from", dest="src")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--burstctl", help="burstctl, for the model's throttles of each run")
    a = ap.parse_args(argv)
    if a.header:
        rec = kv(a.header[1:])
        rec.update(type="bench", format=1, generator="make bench-frontier")
        append(a.header[0], rec)
    elif a.collect:
        if len(a.collect) < 2:
            fail("--collect RAW LOG [KEY=VALUE...]")
        n = collect(a.collect[0], a.collect[1], kv(a.collect[2:]))
        if not n:
            fail(f"{a.collect[1]}: no FRONTIER-JSON line")
    elif a.footer:
        rec = kv(a.footer[1:])
        rec["type"] = "end"
        append(a.footer[0], rec)
    elif a.src:
        if not a.md:
            fail("--from needs --md")
        page(a.src, a.md, a.png, a.burstctl)
    else:
        ap.error("one of --header, --collect, --footer, --from")


if __name__ == "__main__":
    main()
