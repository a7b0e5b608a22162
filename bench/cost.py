#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the series costs: the page of make bench-cost, from its raw file.

  cost.py --from RAW --md OUT.md [--png OUT.png]
  cost.py --disturbed LOG [--best-rate R]
                             prints why the boot of LOG is to be booted again
                             (the emulator disturbed its path windows, or ran
                             it below SPEED_MIN of the fastest boot's rate R),
                             or nothing
  cost.py --rate LOG         prints the boot's rate alone (loop units per ns)

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
from report import BenchError, fmt_spread, md_table, parse_log, read_records, spread  # noqa: E402

NAMES = {"ours": "ours", "mainline": "mainline (same config)",
         "mainline-aa": "mainline, booted again"}
# The fleet's configurations, in column order: the same setting on both
# kernels first, then what only ours allows.
FLEETS = [("ours", "fleet-1000", "ours, burst = quota"),
          ("mainline", "fleet-1000", "mainline, burst = quota"),
          ("ours", "fleet-3000", "ours, burst 3 ms")]


def load(path):
    meta, recs, end = read_records(path, ("boot", "run"))
    runs, boots = recs["run"], recs["boot"]
    reps = int(meta["repetitions"])
    for rep in range(1, reps + 1):
        for k in NAMES:
            for p in PATHS:
                if not any(r["rep"] == rep and r["kernel"] == k and r["run"] == f"path-{p}" for r in runs):
                    raise BenchError(f"{path}: round {rep} has no {p} result of {k}")
    return meta, runs, boots, end


# The changed paths, in the page's order, with what one operation is.
PATHS = {"refill": "a throttled period ended by the period timer's refill",
         "wake": "a wake-up whose group's period timer had stopped",
         "slack": "a sleep that empties a runqueue, which returns its runtime"}
# A loaded window counts only when the CPU's rate alone, measured just
# before and just after it, agrees to this fraction: otherwise the emulator
# sped up or slowed down around it and the window's cost is the emulator's.
DRIFT_MAX = 0.05
# A boot with fewer windows than this share kept, in any path, was
# disturbed: bench/run-cost.sh boots it again.
KEEP_MIN = 0.5


def kept_pairs(result):
    return [p for p in result["pairs"] if p["rate_drift"] <= DRIFT_MAX and p["ops"] > 0]


def pair_rate(p):
    """The CPU's rate alone around a window, loop units per ns."""
    return (p["alone_before_units"] / p["alone_before_ns"] + p["alone_after_units"] / p["alone_after_ns"]) / 2


def path_cost(result):
    """Loop units per operation of one run: the median over its kept windows
    of the window's ns per operation at the CPU's rate around it, or None.
    In units, a boot the emulator ran slower throughout costs the same."""
    kept = kept_pairs(result)
    return spread(p["overhead_ns_per_op"] * pair_rate(p) for p in kept)[0] if kept else None


def reference_rate(runs):
    """The median CPU rate alone over every kept window of every boot, loop
    units per ns: the speed the tables' ns are given at."""
    rates = [pair_rate(p) for r in runs if r["run"].startswith("path-") for p in kept_pairs(r["result"])]
    rates += [r["result"]["rate_units_per_ns"] for r in runs
              if r["run"] == "config" and r["result"].get("rate_units_per_ns")]
    return spread(rates)[0] if rates else None


# A boot whose CPU ran, alone, slower than this share of the fastest boot
# counted before it was slowed by the host throughout: the emulator slows
# the kernel's code and the meter's loop unequally, so its figures in units
# are not comparable either. bench/run-cost.sh boots it again.
SPEED_MIN = 0.9


def boot_rate(runs):
    """The median rate alone over a boot's path windows, loop units per ns."""
    rates = [pair_rate(p) for r in runs if r["run"].startswith("path-") for p in r["result"]["pairs"]]
    return spread(rates)[0] if rates else None


def disturbed(runs, best=None):
    """Why a boot's path runs cannot be used, or None. best: the rate of the
    fastest boot counted so far."""
    rate = boot_rate(runs)
    if best and rate is not None and rate < SPEED_MIN * best:
        return (f"its CPU ran at {rate * 1e6:,.0f} loop units per ms alone, below "
                f"{SPEED_MIN:.0%} of the fastest boot's {best * 1e6:,.0f}: the host was slower throughout")
    for r in runs:
        if r["run"].startswith("path-"):
            res = r["result"]
            kept = len(kept_pairs(res))
            if kept < KEEP_MIN * len(res["pairs"]):
                drifts = ", ".join(f"{p['rate_drift']:.3f}" for p in res["pairs"])
                return (f"{r['run']}: {kept} of {len(res['pairs'])} windows kept: the CPU's rate "
                        f"alone moved by {drifts} across them, more than {DRIFT_MAX:.0%} in the rest")
    return None


def per_round(runs, kernel, run, key, groups=None):
    """{round: the median of that boot's results for KEY}."""
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


def path_rounds(runs, kernel, path, ref):
    """{round: ns per operation at the reference rate} of one kernel on one path."""
    out = {}
    for r in runs:
        if r["kernel"] == kernel and r["run"] == f"path-{path}":
            v = path_cost(r["result"])
            if v is not None:
                out[r["rep"]] = v / ref
    return out


def config_rounds(runs, kernel, key, ref):
    """{round: ns per operation at the reference rate}: the boot's own ns
    scaled by its rate over the reference."""
    return {r["rep"]: r["result"][key] * r["result"].get("rate_units_per_ns", ref) / ref for r in runs
            if r["kernel"] == kernel and r["run"] == "config" and key in r["result"]}


# (what, ours' key, mainline's key): the configuration operations.
CONFIG_OPS = [("cpu.max write, \"QUOTA PERIOD\"", "cpu_max_ns", "cpu_max_ns"),
              ("cpu.max.burst write", "cpu_max_burst_ns", "cpu_max_burst_ns"),
              ("quota, period and burst: ours one three-field cpu.max write, mainline "
               "cpu.max then cpu.max.burst", "cpu_max_three_ns", None),
              ("cpu.stat read", "cpu_stat_read_ns", "cpu_stat_read_ns")]


def cost_row(what, ours, mainline, aa):
    r_ours, r_aa = ratio(ours, mainline), ratio(aa, mainline)
    n0 = lambda v: f"{v:,.0f}"  # noqa: E731
    return [what, fmt_spread(spread(ours.values()), n0), fmt_spread(spread(mainline.values()), n0),
            fmt_spread(spread(aa.values()), n0),
            fmt_spread(spread(r_ours.values()), f3) if r_ours else "–",
            fmt_spread(spread(r_aa.values()), f3) if r_aa else "–"], spread(r_ours.values()), spread(r_aa.values())


COST_HEAD = ["operation", "ours, ns", "mainline (same config), ns", "mainline, booted again, ns",
             "ours / mainline", "mainline again / mainline (A/A)"]


def paths_table(runs, ref):
    rows, ratios = [], {}
    for p, what in PATHS.items():
        row, r, aa = cost_row(f"**{p}**: {what}", *(path_rounds(runs, k, p, ref) for k in NAMES))
        rows.append(row)
        ratios[p] = (r, aa)
    return md_table(COST_HEAD, rows, 1), ratios


def config_table(runs, ref):
    rows = []
    for what, ours_key, main_key in CONFIG_OPS:
        ours = config_rounds(runs, "ours", ours_key, ref)
        if main_key:
            main, aa = (config_rounds(runs, k, main_key, ref) for k in ("mainline", "mainline-aa"))
        else:
            # Mainline sets the three with two writes.
            main, aa = ({rep: a[rep] + b[rep] for rep in a.keys() & b.keys()}
                        for a, b in ((config_rounds(runs, k, "cpu_max_ns", ref),
                                      config_rounds(runs, k, "cpu_max_burst_ns", ref))
                                     for k in ("mainline", "mainline-aa")))
        rows.append(cost_row(what, ours, main, aa)[0])
    return md_table(COST_HEAD, rows, 1)


def verdict_text(ratios):
    """Each path's ratio range against its A/A range, in words."""
    inside, outside = [], []
    for p, (r, aa) in ratios.items():
        if not r or not aa:
            continue
        (inside if aa[1] <= r[0] <= aa[2] else outside).append(p)
    floor = [v for r in ratios.values() if r[1] for v in r[1][1:]]
    if not floor:
        return ""
    text = (f"Here the A/A ratios alone spread from {min(floor):.3f} to {max(floor):.3f}: "
            "this emulator resolves a path's cost only to that, far coarser than 2 %. ")
    if inside:
        text += f"Within it, {', '.join(inside)}: the median ratio lies inside its A/A range. "
    if outside:
        text += f"**{', '.join(outside)}: the median ratio lies outside its A/A range.** "
    return text


def windows_text(runs):
    pairs = [p for r in runs if r["run"].startswith("path-") for p in r["result"]["pairs"]]
    kept = [p for p in pairs if p["rate_drift"] <= DRIFT_MAX and p["ops"] > 0]
    return len(pairs), len(kept)


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
              f'QEMU TCG, 1 vCPU; median of {reps}, bars min–max"',
              "set logscale x", "set xlabel 'limited groups'", "set ylabel '% of all CPU time'",
              "set grid", "set key top left", "set offsets 0, 0, 1, 0",
              f"set xrange [{sizes[0] * 0.7}:{sizes[-1] * 1.4}]",
              "plot " + ", ".join(series)]
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    return True


def page(path, meta, runs, boots, end, png_name):
    ref = reference_rate(runs) or 1.0
    ptable, ratios = paths_table(runs, ref)
    paths = [r for r in runs if r["run"].startswith("path-")]
    fleet = [r for r in runs if r["run"].startswith("fleet-")]
    # The settings as the runs report them (COST_* may change them).
    shape = {r["result"]["path"]: r["result"] for r in paths}
    window_ms = spread(r["result"]["window_ms"] for r in paths)[0] if paths else 0
    npairs = max((len(r["result"]["pairs"]) for r in paths), default=0)
    all_pairs, kept = windows_text(runs)
    ops = next((r["result"]["ops"] for r in runs if r["run"] == "config"), 0)
    window_s = spread(r["result"]["window_ns"] / 1e9 for r in fleet)[0] if fleet else 0
    config = next((r.get("config") for r in runs if r.get("config")), "?")
    release = {r["kernel"]: r["release"] for r in runs}
    kconfig = {r["kernel"]: r["config_sha256"] for r in runs if r.get("config_sha256")}
    pressure = [b.get("host_cpu_pressure_pct", 0) for b in boots]
    reruns = [b for b in boots if b.get("disturbed") and not b.get("kept")]
    kept_disturbed = [b for b in boots if b.get("disturbed") and b.get("kept")]
    def farthest(i):
        """The ratio farthest from 1 over the paths' ranges: side i, 0 ours, 1 the A/A."""
        ends = [v for r in ratios.values() if r[i] for v in r[i][1:]]
        return max(ends, key=lambda v: abs(v - 1), default=float("nan"))
    worst, floor = farthest(0), farthest(1)

    def load_text(p):
        x = shape.get(p, {})
        if not x:
            return "not run"
        each = "asks for the whole CPU" if not x["spin_us"] else \
            f"works {x['spin_us'] / 1000:g} ms and sleeps {x['sleep_us'] / 1000:g} ms, over and over"
        return (f"{x['groups']} group{'s' if x['groups'] != 1 else ''} limited to {x['quota_us'] / 1000:g} ms per "
                f"{x['period_us'] / 1000:g} ms with burst {x['burst_us'] / 1000:g} ms, one process each that {each}")

    out = [
        "# Benchmarks: what the series costs the scheduler", "",
        "<!-- Generated by `make bench-cost` (bench/run-cost.sh, bench/cost.py) from the raw file "
        "named below; edit bench/cost.py, not this file. -->", "",
        "What a reviewer asks of a scheduler series: what does each path it changed cost, "
        "per operation, against the same kernel without it; and what does each limited "
        "group cost as their number grows. Everything is measured on our kernel and on "
        "**mainline built with the same config** (the same Debian tree without the "
        "series), booted in rounds: ours, mainline, mainline again; "
        f"{meta['repetitions']} rounds. The second mainline boot of each round gives the "
        "noise floor: mainline against itself, minutes apart.", "",
        "## The changed paths", "",
        "`costbench path` (bench/costbench.c) runs a load on CPU 0 that goes through one "
        "changed path over and over, beside a *meter*: an unlimited process counting units "
        "of a fixed loop, `SCHED_IDLE` so that it takes only what the load leaves, while the "
        "workers count the same units. Windows with the workers "
        f"stopped and running alternate ({npairs} running windows of {window_ms / 1000:g} s "
        "per run, each between two stopped ones). A stopped window gives the CPU's rate in "
        "units per ns; in a running window the units everyone counted, at that rate, are "
        "the time the loops had, and the rest of the window is what the kernel spent on "
        "the load, divided by the window's operations: ns per operation, the bandwidth "
        "path with the switches and timer interrupts it brings, the same on both kernels "
        "but for the series' code. The loads:", "",
        f"- **refill**: {load_text('refill')}; an operation is a throttled period "
        "(`nr_throttled`), ended by the period timer's refill, where the series carries "
        "unused quota over;",
        f"- **wake**: {load_text('wake')}, long enough for the period timer to stop; an "
        "operation is a wake-up, whose work outlasts the 1 ms a runqueue keeps, so it asks "
        "the pool for a slice, which restarts the timer and, with the series, credits the "
        "periods it was stopped for;",
        f"- **slack**: {load_text('slack')}, never throttled; an operation is a sleep: the "
        "runqueue goes idle with more than the 1 ms it keeps and returns the rest to the "
        "pool, which the series caps.", "",
        f"**The emulator's own drift is measured, not assumed away**: a running window counts "
        f"only when the CPU's rate alone just before and just after it agree to "
        f"{DRIFT_MAX:.0%}; a boot in which any path kept fewer than {KEEP_MIN:.0%} of its "
        f"windows, or whose CPU ran alone below {SPEED_MIN:.0%} of the rate of the fastest "
        "boot counted before it (the host slowed it throughout, and it slows the kernel's "
        "code and the meter's loop unequally), was disturbed and was booted again, twice at "
        f"most (bench/run-cost.sh prints each rerun and its reason). Here: {kept} of {all_pairs} windows kept; "
        f"{len(reruns)} boot{'s' if len(reruns) != 1 else ''} booted again"
        + (": " + "; ".join(f"round {b['rep']} {b['kernel']}: {b['disturbed']}" for b in reruns)
           if reruns else "") + ". "
        + (f"**{len(kept_disturbed)} boot{'s' if len(kept_disturbed) != 1 else ''} still "
           "disturbed at the third boot, counted all the same**: "
           + "; ".join(f"round {b['rep']} {b['kernel']}: {b['disturbed']}" for b in kept_disturbed)
           + ". " if kept_disturbed else "")
        + "**Figures are in the CPU's own units**: the emulator runs some boots faster than "
        "others throughout, so a window's ns per operation is taken times the CPU's rate "
        "around it (units of the meter's loop per operation) and shown in ns at "
        f"{ref * 1e6:,.0f} units per ms, the median rate of every boot's kept windows "
        "(a boot that ran slower costs the same). "
        "A run's figure is the median over its kept windows; the table gives the median "
        "[min–max] over the rounds of the runs' figures and of the ratios, each ratio "
        "taken within a round.", "",
        ptable, "",
        f"**Largest ratio away from 1 (ours / mainline, any path, any round): "
        f"{worst:.3f}**; the A/A floor reaches {floor:.3f}. A ratio inside the "
        "A/A spread is no cost this setup can see; the goal was every path within 2 %. "
        + verdict_text(ratios), "",
        "The same paths counted in instructions, where two boots of one kernel agree "
        "exactly and the 2 % bound can be judged per path, with a kernel slowed on "
        "purpose that fails it: [benchmarks-icount.md](benchmarks-icount.md) "
        "(`make bench-icount`).", "",
        "### Configuration writes and cpu.stat reads", "",
        f"`costbench config` times each operation {ops:,} times in a row on an idle group, "
        "values alternating so every write changes the limit, after 0.3 s of the meter's "
        "loop that gives its boot's rate; ns per operation at the same reference rate:", "",
        config_table(runs, ref), "",
        "Where ours costs more, and why: a `cpu.stat` read takes the bandwidth lock to read "
        "the group's statistics at one instant and prints `current_bw_usec`, a line "
        "mainline lacks (the pool's runtime, computed under that lock); a `cpu.max` or "
        "`cpu.max.burst` write first credits the periods the stopped period timer missed "
        "(`hrtimer_forward_now`) and then sets the pool by the new rule, where mainline "
        "refills it whole. The read's lock is one mainline does not take there (it reads "
        "the counters unlocked, so they can disagree with each other); the write's is one "
        "it holds already. Both costs are per read and per write, never per switch or per "
        "period. "
        "Setting quota, period and burst together, one three-field write replaces "
        "mainline's two.", "",
        "## Scaling with the number of limited groups", "",
        "`costbench fleet` makes N groups, each limited to 1 ms per 100 ms (the "
        "kernel's least quota), each with a process that spins 3 ms of CPU every 2 s "
        "(the groups' phases spread over the 2 s; 0.75 CPU of demand at 500 groups), "
        f"and measures {window_s:.0f} s after 2 s of warm-up: the guest's CPU time in "
        "system and softirq context (`/proc/stat`) and the throttled "
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
        "**Limits of the setup.** Under TCG every instruction is emulated, and the guest "
        "has one vCPU (two would take turns on QEMU's one TCG thread, each slowing the "
        "other's wall-clock rate), so absolute figures are far from hardware's; only "
        "ratios between kernels booted alike mean something, and only beyond the "
        "A/A spread. System time includes the spinners' own timer and wake-up work, "
        "the same on both kernels.", "",
        "## This run", "",
        f"- raw data: [{os.path.basename(path)}](bench-raw/{os.path.basename(path)})",
        f"- {meta['date']}, commit {meta['commit']}; host {meta['host_cpus']} CPUs "
        f"({meta['host_model']}), load average before {meta['loadavg_before']}, "
        f"after {end['loadavg_after']}",
        f"- guest: {meta['guest']}; ours {release.get('ours', '?')}, mainline "
        f"{release.get('mainline', '?')}; config {config}; the built kernels' .config, "
        f"sha256 ours {kconfig.get('ours', 'not recorded')}, mainline {kconfig.get('mainline', 'not recorded')} "
        "(each boot's uname -r and -v checked against its bzImage's own)",
        f"- {len(boots)} boots, {end['boots_s']} s in the guests, {end['elapsed_s']} s in all; "
        f"host CPU pressure per boot {min(pressure, default=0)}–{max(pressure, default=0)} %",
    ]
    if end.get("note"):
        out.append(f"- note: {end['note']}")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="raw")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--disturbed", metavar="LOG")
    ap.add_argument("--best-rate", type=float, help="with --disturbed: the fastest boot's rate so far")
    ap.add_argument("--rate", metavar="LOG", help="prints the boot's rate alone, loop units per ns")
    a = ap.parse_args(argv)
    if a.rate:
        print(f"{boot_rate([rec for kind, rec in parse_log(a.rate) if kind == 'run']) or 0:.9g}")
        return 0
    if a.disturbed:
        why = disturbed([rec for kind, rec in parse_log(a.disturbed) if kind == "run"], a.best_rate)
        if why:
            print(why)
        return 0
    if not a.raw or not a.md:
        ap.error("--from and --md are needed")
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
