#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench guests' serial logs into tables, ratios and a plot.

Usage: bench/report.py --template T --setup S --generator G --md OUT.md --png OUT.png
                       --info INFO LOG...

Reads every "BENCH-JSON {...}" line of the logs (bench/suite.sh prints one
per run), prints the tables and the ratios the issue names, writes OUT.md
from the template (@RUN@, @TABLES@, @RATIOS@; @SETUP@ is the text of S, how
this setup runs the cases; @GENERATOR@ the command G; @PNG@ the plot's name) and plots the latency
percentiles per scenario on a log scale with gnuplot. Figures only: a missed
target is reported as missed, never an error.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PCTS = ["p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9"]
KERNELS = {"patched": "ours", "stock": "stock"}
# Runs in table order; the name says the scenario (bench/suite.sh).
ORDER = ["s1-nolimit", "s1-quota", "s1-burst", "s2-nolimit", "s2-capped", "s2-burst",
         "s3-burst-off"]
SCENARIOS = [
    (1, "Scenario 1: the seed's shape, scaled to 2 vCPUs",
     "quota 70 ms / period 100 ms (0.7 CPU), burst 40 ms; batches of 2 x 50 ms "
     "every 202 ms (0.495 CPU, 5/7 of quota; 100 ms per batch = 1.43 x quota)"),
    (2, "Scenario 2: a burst larger than the quota",
     "quota 10 ms / period 50 ms (0.2 CPU); batches of 2 x 15 ms every 210 ms "
     "(0.143 CPU, 5/7 of quota; 30 ms per batch = 3 x quota). Stock refuses a "
     "burst above quota, so it runs capped at burst = quota; ours runs with burst = 30 ms"),
    (3, "Scenario 3: control, our kernel with kernel.sched_cfs_bw_burst_enabled=0",
     "scenario 2's group with burst = 30 ms, burst switched off globally"),
]


def load(paths):
    """The runs that count, by (kernel, run), and the tries discarded."""
    runs, discarded = {}, []
    for path in paths:
        with open(path, errors="replace") as f:
            for line in f:
                tag, _, text = line.partition(" ")
                if tag not in ("BENCH-JSON", "BENCH-DISCARD"):
                    continue
                try:
                    r = json.loads(text)
                except json.JSONDecodeError as e:
                    print(f"report: {path}: unreadable {tag} line ({e})", file=sys.stderr)
                    continue
                if tag == "BENCH-JSON":
                    runs[(r["kernel"], r["run"])] = r
                else:
                    discarded.append(r)
    return runs, discarded


def discarded_table(discarded):
    rows = [[KERNELS.get(r["kernel"], r["kernel"]), r["run"], str(r["attempt"]),
             f"{r['result']['request_overrun_max_us'] / 1000:.1f}",
             us(r["result"]["latency_us"]["p99"]), us(r["result"]["latency_us"]["max"])]
            for r in discarded]
    return md_table(["kernel", "run", "try", "max request overrun ms", "p99 µs", "max µs"],
                    rows, right_from=2)


def us(v):
    return "n/a" if v is None else f"{v:,.0f}"


def rate(v):
    return "n/a" if v is None else f"{v:.2f}"


def limit(r):
    if r["quota_us"] is None:
        return "max", "–"
    return f"{r['quota_us'] // 1000} / {r['period_us'] // 1000} ms", f"{r['burst_us'] // 1000} ms"


def usage(r):
    """(usage s, average use / quota, bound s, usage / bound) or Nones."""
    res, st = r["result"], r["result"]["cpu_stat"]
    u = st.get("usage_usec")
    if u is None:
        return None, None, None, None
    el = res["elapsed_us"]
    if r["quota_us"] is None:
        return u / 1e6, None, None, None
    per_quota = (u / el) / (r["quota_us"] / r["period_us"])
    b = res.get("bound_usec")
    return u / 1e6, per_quota, b / 1e6 if b else None, u / b if b else None


def achieved_rps(res):
    """The rate a run served, or None from a burstbench before "rps_elapsed_s",
    whose "rps" divided by the scheduled window: that says the requested rate
    for a run that fell behind, so it is not shown as achieved."""
    return res["rps"] if "rps_elapsed_s" in res else None


def ordered(runs, scenario):
    keys = [k for k in runs if runs[k]["scenario"] == scenario]
    return sorted(keys, key=lambda k: (ORDER.index(k[1]) if k[1] in ORDER else 99,
                                       k[0] != "patched"))


def latency_table(runs, keys):
    head = ["kernel", "run", "cpu.max", "burst"] + PCTS + ["min", "max", "requests", "rps"]
    rows = []
    for k in keys:
        r = runs[k]
        lat, res = r["result"]["latency_us"], r["result"]
        q, b = limit(r)
        if r.get("burst_enabled") == 0:
            b += " (off)"
        rows.append([KERNELS.get(k[0], k[0]), k[1], q, b] + [us(lat[p]) for p in PCTS] +
                    [us(lat["min"]), us(lat["max"]), str(res["requests"]), rate(achieved_rps(res))])
    return md_table(head, rows, right_from=4)


def bandwidth_table(runs, keys):
    head = ["kernel", "run", "nr_periods", "nr_throttled", "throttled ms", "nr_bursts",
            "burst ms", "usage s", "use / quota", "quota·N + burst s", "usage / bound",
            "max request overrun ms", "try"]
    rows = []
    for k in keys:
        r = runs[k]
        st, res = r["result"]["cpu_stat"], r["result"]
        u, per_q, bound, frac = usage(r)

        def n(key, scale=1):
            v = st.get(key)
            return "n/a" if v is None else f"{v / scale:,.0f}" if scale == 1 else f"{v / scale:,.1f}"
        rows.append([KERNELS.get(k[0], k[0]), k[1], n("nr_periods"), n("nr_throttled"),
                     n("throttled_usec", 1000), n("nr_bursts"), n("burst_usec", 1000),
                     "n/a" if u is None else f"{u:.3f}",
                     "–" if per_q is None else f"{per_q:.2f}",
                     "–" if bound is None else f"{bound:.3f}",
                     "–" if frac is None else f"{frac:.2f}",
                     f"{res.get('request_overrun_max_us', 0) / 1000:.1f}",
                     str(r.get("attempt", 1))])
    return md_table(head, rows, right_from=2)


def md_table(head, rows, right_from):
    out = ["| " + " | ".join(head) + " |",
           "| " + " | ".join("---:" if i >= right_from else "---" for i in range(len(head))) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def p99(runs, kernel, run):
    r = runs.get((kernel, run))
    return None if r is None else r["result"]["latency_us"]["p99"]


def ratio_rows(runs):
    rows = []

    def ratio(what, num, den, target, good):
        if num is None or den is None or den == 0:
            rows.append([what, "n/a", target, "not measured"])
            return
        v = num / den
        verdict = "" if target in ("–", "(none)") else "met" if good(v) else "**missed**"
        rows.append([what, f"{v:.2f} ({num:,.0f} / {den:,.0f} µs)", target, verdict])

    ratio("scenario 1, ours: p99 quota without burst / p99 with burst",
          p99(runs, "patched", "s1-quota"), p99(runs, "patched", "s1-burst"), "≥ 10",
          lambda v: v >= 10)
    ratio("(context) scenario 1, ours: p99 quota without burst / p99 no limit, "
          "about the most the first ratio can show on this guest",
          p99(runs, "patched", "s1-quota"), p99(runs, "patched", "s1-nolimit"), "–",
          lambda v: True)
    ratio("scenario 2: p99 stock, burst capped at quota / p99 ours, burst 30 ms",
          p99(runs, "stock", "s2-capped"), p99(runs, "patched", "s2-burst"), "≥ 5",
          lambda v: v >= 5)
    ratio("scenario 1, ours: p99 with burst / p99 no limit",
          p99(runs, "patched", "s1-burst"), p99(runs, "patched", "s1-nolimit"), "≤ 1.5",
          lambda v: v <= 1.5)
    ratio("scenario 2, ours: p99 with burst / p99 no limit",
          p99(runs, "patched", "s2-burst"), p99(runs, "patched", "s2-nolimit"), "≤ 1.5",
          lambda v: v <= 1.5)
    ratio("scenario 3, control: p99 burst switched off / p99 burst on (scenario 2, ours)",
          p99(runs, "patched", "s3-burst-off"), p99(runs, "patched", "s2-burst"),
          "> 1 (burst off throttles)", lambda v: v > 1)
    ratio("scenario 1, stock (extra): p99 quota without burst / p99 with burst",
          p99(runs, "stock", "s1-quota"), p99(runs, "stock", "s1-burst"), "–",
          lambda v: True)
    limited = [(k, usage(r)) for k, r in sorted(runs.items()) if r["quota_us"] is not None]
    fracs = [(u[3], k) for k, u in limited if u[3] is not None]
    if fracs:
        worst, wk = max(fracs)
        over = [f"{KERNELS.get(k[0], k[0])} {k[1]}" for f, k in fracs if f > 1]
        rows.append(["long-run usage / (quota·N + burst), every limited run: the largest",
                     f"{worst:.2f} ({KERNELS.get(wk[0], wk[0])} {wk[1]}, {len(fracs)} runs)",
                     "≤ 1", "met" if not over else "**missed**: " + ", ".join(over)])
    return md_table(["ratio", "measured", "target", ""], rows, right_from=9)


# Line colour per kind of run; stock's lines are dashed.
COLOURS = {"nolimit": "#7f7f7f", "quota": "#1f77b4", "burst": "#2ca02c",
           "capped": "#d62728", "burst-off": "#9467bd"}


def style(key):
    kind = key[1].split("-", 1)[1]
    dash = "dt 2" if key[0] == "stock" else "dt 1"
    return f'lc rgb "{COLOURS.get(kind, "black")}" {dash} lw 2 pt {7 if key[0] == "patched" else 6}'


def plot(runs, png):
    """Latency percentiles per scenario, log scale; one panel per scenario."""
    xs = PCTS + ["max"]
    panels = []
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, title, _ in SCENARIOS:
            keys = ordered(runs, scenario)
            if scenario == 3:   # the control next to what it controls
                keys = [k for k in ordered(runs, 2) if k[0] == "patched"] + keys
            if not keys:
                continue
            dat = os.path.join(tmp, f"s{scenario}.dat")
            with open(dat, "w") as f:
                f.write("pct " + " ".join(f'"{KERNELS.get(k[0], k[0])} {k[1]}"' for k in keys) + "\n")
                for x in xs:
                    vals = [max(runs[k]["result"]["latency_us"][x], 1) for k in keys]
                    f.write(f"{x} " + " ".join(f"{v}" for v in vals) + "\n")
            panels.append((dat, title.split(":")[0], keys))
        if not panels:
            return False
        gp = [f'set terminal pngcairo size {560 * len(panels)},500 font "sans,9"',
              f'set output "{png}"',
              f"set multiplot layout 1,{len(panels)} title "
              '"burstbench latency beyond CPU time, QEMU TCG, 2 vCPUs"',
              "set logscale y", "set format y '10^{%L}'", "set grid ytics mytics",
              "set ylabel 'latency (µs)'",
              "set key below font ',8' maxrows 3", "set yrange [100:*]", "set style data linespoints"]
        for dat, title, keys in panels:
            series = [f'"{dat}" using {i + 2}:xtic(1) title columnheader({i + 2}) {style(k)}'
                      for i, k in enumerate(keys)]
            gp += [f'set title "{title}"', "plot " + ", ".join(series)]
        gp.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--template", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--info", help="file of 'key: value' lines about the run")
    ap.add_argument("--setup", required=True, help="markdown: how the runs were made")
    ap.add_argument("--generator", required=True, help="the command that regenerates OUT.md")
    ap.add_argument("logs", nargs="+")
    a = ap.parse_args()

    runs, discarded = load(a.logs)
    if not runs:
        sys.exit("report: no BENCH-JSON lines in " + " ".join(a.logs))
    tables = []
    for scenario, title, shape in SCENARIOS:
        keys = ordered(runs, scenario)
        if not keys:
            continue
        tables += [f"### {title}", "", shape + ".", "",
                   "Latency beyond CPU time (µs):", "", latency_table(runs, keys), "",
                   "Bandwidth over the measured window (cpu.stat deltas):", "",
                   bandwidth_table(runs, keys), ""]
    if discarded:
        tables += ["### Discarded tries", "",
                   "Tries run again because the host stalled a request (see Method):", "",
                   discarded_table(discarded), ""]
    else:
        tables += ["No try was discarded for a host stall.", ""]
    tables = "\n".join(tables).rstrip() + "\n"
    ratios = ratio_rows(runs) + "\n"
    info = open(a.info).read().rstrip() + "\n" if a.info else ""

    print(tables)
    print("### Ratios\n")
    print(ratios)
    plotted = plot(runs, a.png)
    with open(a.template) as f:
        doc = f.read()
    run = "\n".join(f"- {line}" for line in info.splitlines() if line.strip())
    doc = doc.replace("@RUN@", run).replace("@TABLES@", tables.rstrip())
    doc = doc.replace("@RATIOS@", ratios.rstrip())
    with open(a.setup) as f:
        doc = doc.replace("@SETUP@", f.read().rstrip())
    doc = doc.replace("@GENERATOR@", a.generator).replace("@PNG@", os.path.basename(a.png))
    with open(a.md, "w") as f:
        f.write(doc)
    print(f"report: wrote {a.md}" + (f" and {a.png}" if plotted else " (no plot)"))


if __name__ == "__main__":
    main()
