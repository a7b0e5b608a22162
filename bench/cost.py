#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the series costs: the page of make bench-cost, from its raw file.

  cost.py --from RAW --md OUT.md [--png OUT.png]

RAW is the JSON-lines file bench/run-cost.sh writes (docs/bench-raw/ keeps
it): a "bench" line, a "boot" line per boot, a "run" line per result of
bench/cost-suite.sh, an "end" line. Every table, ratio and the plot are
computed from RAW alone; a file without its end line, or a round without
every boot, is refused. Figures only: nothing is judged.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import BenchError, fmt_spread, md_table, spread  # noqa: E402

NAMES = {"ours": "ours", "mainline": "mainline (same config)",
         "mainline-aa": "mainline, booted again"}
# The fleet's configurations, in column order: the same setting on both
# kernels first, then what only ours allows.
FLEETS = [("ours", "fleet-1000", "ours, burst = quota"),
          ("mainline", "fleet-1000", "mainline, burst = quota"),
          ("ours", "fleet-3000", "ours, burst 3 ms")]


def load(path):
    meta, runs, boots, end = None, [], [], None
    with open(path) as f:
        for i, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise BenchError(f"{path}:{i}: not JSON ({e})") from e
            kind = rec.get("type")
            if kind == "bench":
                meta = rec
            elif kind == "boot":
                boots.append(rec)
            elif kind == "run":
                runs.append(rec)
            elif kind == "end":
                end = rec
    if meta is None or end is None:
        raise BenchError(f"{path}: no {'bench' if meta is None else 'end'} line: not a whole run")
    reps = int(meta["repetitions"])
    for rep in range(1, reps + 1):
        for k in NAMES:
            if not any(r["rep"] == rep and r["kernel"] == k and r["run"] == "pipe" for r in runs):
                raise BenchError(f"{path}: round {rep} has no hot-path result of {k}")
    return meta, runs, boots, end


def per_round(runs, kernel, run, key, groups=None):
    """{round: the median of that boot's results (the hot path's tries)}."""
    out = {}
    for r in runs:
        if r["kernel"] == kernel and r["run"] == run and (groups is None or r.get("groups") == groups):
            out.setdefault(r["rep"], []).append(r["result"][key])
    return {rep: spread(v)[0] for rep, v in out.items()}


def ratio(num, den):
    reps = sorted(num.keys() & den.keys())
    return {rep: num[rep] / den[rep] for rep in reps if den[rep]}


def f1(v):
    return f"{v:,.1f}"


def f3(v):
    return f"{v:.3f}"


def overhead(runs):
    ns = {k: per_round(runs, k, "pipe", "ns_per_round_trip") for k in NAMES}
    r_ours = ratio(ns["ours"], ns["mainline"])
    r_aa = ratio(ns["mainline-aa"], ns["mainline"])
    rows = []
    for rep in sorted(ns["mainline"]):
        rows.append([str(rep)] + [f"{ns[k][rep]:,.0f}" if rep in ns[k] else "–" for k in NAMES]
                    + [f3(r_ours[rep]) if rep in r_ours else "–", f3(r_aa[rep]) if rep in r_aa else "–"])
    rows.append(["median [min–max]"] + [fmt_spread(spread(ns[k].values()), lambda v: f"{v:,.0f}") for k in NAMES]
                + [fmt_spread(spread(r_ours.values()), f3), fmt_spread(spread(r_aa.values()), f3)])
    table = md_table(["round"] + [f"{NAMES[k]}, ns" for k in NAMES]
                     + ["ours / mainline", "mainline again / mainline (A/A)"], rows, 1)
    return table, spread(r_ours.values()), spread(r_aa.values())


def fleet_value(runs, kernel, run, groups, key):
    if key == "overhead_pct":
        a = per_round(runs, kernel, run, "system_pct", groups)
        b = per_round(runs, kernel, run, "softirq_pct", groups)
        return {rep: a[rep] + b[rep] for rep in a.keys() & b.keys()}
    return per_round(runs, kernel, run, key, groups)


def fleet_sizes(runs):
    return sorted({r["groups"] for r in runs if r["run"].startswith("fleet-")})


def scaling(runs):
    sizes = fleet_sizes(runs)
    rows = []
    for n in sizes:
        row = [f"{n:,}"]
        for k, run, _ in FLEETS:
            cpu = fleet_value(runs, k, run, n, "overhead_pct")
            thr = fleet_value(runs, k, run, n, "nr_throttled")
            row.append(f"{fmt_spread(spread(cpu.values()), f1)} / {fmt_spread(spread(thr.values()), lambda v: f'{v:,.0f}')}"
                       if cpu else "–")
        base = fleet_value(runs, "mainline", "fleet-1000", n, "overhead_pct")
        for k in ("ours", "mainline-aa"):
            r = ratio(fleet_value(runs, k, "fleet-1000", n, "overhead_pct"), base)
            row.append(fmt_spread(spread(r.values()), lambda v: f"{v:.2f}") if r else "–")
        rows.append(row)
    return md_table(["groups"] + [f"{t}: system + softirq % / throttled periods" for *_, t in FLEETS]
                    + ["ours / mainline, system + softirq (burst = quota)",
                       "mainline again / mainline (A/A)"], rows, 1)


def plot(runs, png, reps):
    if shutil.which("gnuplot") is None:
        print("cost: no gnuplot here (make bench-deps installs it): no plot", file=sys.stderr)
        return False
    sizes = fleet_sizes(runs)
    if not sizes:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        series = []
        for i, (k, run, title) in enumerate(FLEETS):
            dat = os.path.join(tmp, f"{i}.dat")
            with open(dat, "w") as f:
                for n in sizes:
                    s = spread(fleet_value(runs, k, run, n, "overhead_pct").values())
                    if s:
                        f.write(f"{n} {s[0]} {s[1]} {s[2]}\n")
            series.append(f'"{dat}" using 1:2:3:4 with yerrorlines title "{title}" lw 2 pt {7 - 2 * i}')
        gp = ['set terminal pngcairo size 720,480 font "sans,9"', f'set output "{png}"',
              f'set title "guest system + softirq CPU, limited groups spinning 3 ms every 2 s; '
              f'QEMU TCG, 2 vCPUs; median of {reps}, bars min–max"',
              "set logscale x", "set xlabel 'limited groups'", "set ylabel '% of all CPU time'",
              "set grid", "set key top left", "set offsets 0, 0, 1, 0",
              f"set xrange [{sizes[0] * 0.7}:{sizes[-1] * 1.4}]",
              "plot " + ", ".join(series)]
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    return True


def throttled_text(pipe):
    counts = [r.get("group_nr_throttled") for r in pipe]
    if any(c is None for c in counts):
        return "not recorded"
    return "0 in every run" if not any(counts) else f"**up to {max(counts)}**: the quota was reached"


def page(path, meta, runs, boots, end, png_name):
    table, r_ours, r_aa = overhead(runs)
    pipe = [r for r in runs if r["run"] == "pipe"]
    fleet = [r for r in runs if r["run"].startswith("fleet-")]
    # The settings as the runs report them (COST_* may change them).
    pipe_s = spread(r["result"]["elapsed_ns"] / 1e9 for r in pipe)[0] if pipe else 0
    tries = max((r.get("try", 1) for r in pipe), default=0)
    window_s = spread(r["result"]["window_ns"] / 1e9 for r in fleet)[0] if fleet else 0
    config = next((r.get("config") for r in runs if r.get("config")), "?")
    release = {r["kernel"]: r["release"] for r in runs}
    pressure = [b.get("host_cpu_pressure_pct", 0) for b in boots]
    out = [
        "# Benchmarks: what the series costs the scheduler", "",
        "<!-- Generated by `make bench-cost` (bench/run-cost.sh, bench/cost.py) from the raw file "
        "named below; edit bench/cost.py, not this file. -->", "",
        "Two questions a reviewer asks of a scheduler series: does it slow the hot path "
        "when bandwidth control is on, and what does each limited group cost as their "
        "number grows. Both are measured on our kernel and on **mainline built with "
        "the same config** (the same Debian tree without the series), booted in "
        f"rounds: ours, mainline, mainline again; {meta['repetitions']} rounds.", "",
        "## Hot path", "",
        "`costbench pipe` (bench/costbench.c) passes a byte back and forth between two "
        f"processes through two pipes for {pipe_s:.0f} s, as `perf bench sched pipe` does, both "
        "pinned to CPU 0, in a group limited to 1 s per 100 ms with burst 1 s (the "
        "same on both kernels; 10 CPUs of quota, never reached): every round trip is "
        "two wake-ups and two switches through the group's runtime accounting, and "
        f"nothing is throttled. Each boot runs it {tries} times; a round's figure is "
        f"the median of its boot's {tries}. The second mainline boot of each round "
        "gives the noise floor: mainline against itself, minutes apart.", "",
        f"ns per round trip ({len(pipe)} runs; the group's throttled periods after every "
        f"run: {throttled_text(pipe)}):", "", table, "",
        f"**ours / mainline: {fmt_spread(r_ours, f3)}**, against an A/A noise floor of "
        f"**{fmt_spread(r_aa, f3)}** (median [min–max] over the rounds). "
        "A ratio within the A/A spread is no measurable cost.", "",
        "## Scaling with the number of limited groups", "",
        "`costbench fleet` makes N groups, each limited to 1 ms per 100 ms (the "
        "kernel's least quota), each with a process that spins 3 ms of CPU every 2 s "
        "(the groups' phases spread over the 2 s; 0.75 CPU of demand at 500 groups), "
        f"and measures {window_s:.0f} s after 2 s of warm-up: the guest's CPU time in "
        "system and softirq context (`/proc/stat`, both vCPUs) and the throttled "
        "periods summed over the groups (`cpu.stat`). With burst = quota (all mainline "
        "allows) the pool holds 2 ms and each 3 ms spin is throttled once; ours also "
        "runs with burst 3 ms, "
        "which covers a spin (a few spins are still throttled there: under TCG a vCPU "
        "the host deschedules charges the stall to the task it ran, so a spin can cost "
        "more than the 4 ms pool). The second mainline boot runs the fleet too: its ratio "
        "to the first is the noise floor of the scaling ratios. With few groups the "
        "system share is a few ticks of the window, so those rows' ratios are mostly noise.", "",
        f"Median [min–max] over the rounds ({len(fleet)} runs):", "",
        scaling(runs), "",
    ]
    if png_name:
        out += [f"![system + softirq CPU against the number of limited groups]({png_name})", ""]
    out += [
        "**Limits of the setup.** Under TCG every instruction is emulated and both vCPUs "
        "share one host thread, so absolute figures are far from hardware's; only "
        "ratios between kernels booted alike mean something, and only beyond the "
        "A/A spread. System time includes the spinners' own timer and wake-up work, "
        "the same on both kernels.", "",
        "## This run", "",
        f"- raw data: [{os.path.basename(path)}](bench-raw/{os.path.basename(path)})",
        f"- {meta['date']}, commit {meta['commit']}; host {meta['host_cpus']} CPUs "
        f"({meta['host_model']}), load average before {meta['loadavg_before']}, "
        f"after {end['loadavg_after']}",
        f"- guest: {meta['guest']}; ours {release.get('ours', '?')}, mainline "
        f"{release.get('mainline', '?')}; config {config}",
        f"- {len(boots)} boots, {end['boots_s']} s in the guests, {end['elapsed_s']} s in all; "
        f"host CPU pressure per boot {min(pressure, default=0)}–{max(pressure, default=0)} %",
    ]
    if end.get("note"):
        out.append(f"- note: {end['note']}")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="raw", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--png")
    a = ap.parse_args(argv)
    try:
        meta, runs, boots, end = load(a.raw)
    except (BenchError, KeyError, OSError) as e:
        print(f"cost: {e}", file=sys.stderr)
        return 1
    png_name = None
    if a.png and plot(runs, a.png, meta["repetitions"]):
        png_name = os.path.basename(a.png)
    text = page(a.raw, meta, runs, boots, end, png_name)
    with open(a.md, "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
