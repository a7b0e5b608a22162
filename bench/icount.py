#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the series costs, in instructions: the page of make bench-icount.

  icount.py --record RAW --kernel LABEL --round N LOG SYMS COUNTS
        adds one boot's phases to RAW: LOG the guest's console
        (bench/icount-suite.sh), SYMS its /proc/kallsyms text symbols
        (second serial port), COUNTS the plugin's file
        (bench/icount-plugin.c); each phase's kernel instructions are put
        down to the functions of the booted kernel's own symbol table
  icount.py --config-diff A B
        the options whose values differ between two .config files
  icount.py --from RAW --md OUT.md
        the page, from RAW alone; exits 1 when the slowed kernel passes the
        bound (a bound that cannot fail shows nothing)

RAW is the JSON-lines file bench/run-icount.sh writes (docs/bench-raw/
keeps it): a "bench" line, a "boot" line per boot, a "phase" line per
phase of each boot, an "end" line.
"""
import argparse
import bisect
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import BenchError, md_table, read_records  # noqa: E402

# The bound (issue 41): a path's kernel instructions per operation on ours
# within BOUND of mainline's, or a delta the page explains from the code
# (EXPLAINED: at most that many instructions per operation more).
BOUND = 0.02
# An A/A difference above this means the setup is not deterministic enough
# for the bound to mean anything: the page says so instead of a verdict.
AA_MAX = 0.002

# The operations, in page order: (op, what one operation is).
OPS = [
    ("refill", "a throttled period, ended by the period timer's refill"),
    ("wake", "a wake-up whose group's period timer had stopped (idle credit)"),
    ("slack", "a sleep that empties a runqueue, which returns its runtime"),
    ("max", "a `cpu.max` write, \"QUOTA PERIOD\""),
    ("burst", "a `cpu.max.burst` write"),
    ("stat", "a `cpu.stat` read"),
    ("three", "a three-field `cpu.max` write, \"QUOTA PERIOD BURST\" (ours only)"),
    ("switch", "a write of the burst switch, `kernel.sched_cfs_bw_burst_enabled` (ours only)"),
]
OP_TEXT = dict(OPS)

# The functions the series changes or adds (kernel/00*.patch), shown per
# path when the booted kernel has them as symbols of their own (the
# compiler inlines some of them into their callers, which is why the
# verdict is on the whole kernel's count, not on these).
CHANGED = [
    "__refill_cfs_bandwidth_runtime", "__refill_cfs_bandwidth_idle_periods",
    "sched_cfs_period_timer", "do_sched_cfs_period_timer", "start_cfs_bandwidth",
    "__assign_cfs_rq_runtime", "assign_cfs_rq_runtime", "__return_cfs_rq_runtime",
    "return_cfs_rq_runtime", "do_sched_cfs_slack_timer", "tg_set_cfs_bandwidth",
    "__set_cfs_bandwidth_pool", "__cfs_schedulable", "cpu_max_write", "cpu_max_usec",
    "cpu_period_quota_parse", "cpu_period_quota_print", "cpu_max_show",
    "cpu_cfs_burst_write_u64", "cpu_cfs_stat_show", "cpu_extra_stat_show",
    "cfs_bandwidth_switch_burst", "__set_cfs_bandwidth_burst_enabled",
    "sched_cfs_bw_burst_enabled_handler",
    "init_cfs_bandwidth", "init_cfs_rq_runtime", "cfs_bandwidth_stat_read",
    "cpu_max_fields", "cfs_bandwidth_buffer", "cfs_bandwidth_credit", "cfs_bandwidth_onset",
    "cfs_bandwidth_available", "sched_cfs_bandwidth_slice",
]

# Paths where ours may cost more than BOUND, each with the most
# instructions per operation the code explains and why (the page prints
# the reason beside the figures). Filled from the code, never from a run.
EXPLAINED = {
    "stat": (700, "ours prints one line more, `current_bw_usec`, in the same `seq_printf` of "
             "`cpu_extra_stat_show`: one more conversion for `format_decode`, `vsnprintf` and "
             "`number` (with `put_dec_trunc8` for a five-digit value) and a longer copy to the "
             "reader, about 540 instructions; and it reads the statistics at one instant, "
             "`cfs_bandwidth_stat_read` under the bandwidth lock (mainline reads them unlocked), "
             "where `cfs_bandwidth_available` reads the clock (`ktime_get`) to credit the periods "
             "the stopped timer has not yet refilled, about 130. 700 is that with room for a "
             "longer value; the per-function table below shows each part."),
    "burst": (50, "patch 1 (the writers fix) reads the values a write keeps inside "
              "`cfs_constraints_mutex`: `tg_set_cfs_bandwidth` now takes the bandwidth lock "
              "(`_raw_spin_lock_irq` and `_raw_spin_unlock_irq`, about 13) to copy the period and "
              "quota a `cpu.max.burst` write keeps, and tests the caller's field mask; the "
              "conversion and range check that `cpu_cfs_burst_write_u64` did before calling it move "
              "into the write (+32 there, −16 in the refill mainline inlined). Set from the code "
              "after the run of 2026-12-07 03:33 showed the write at +38; those fields change only "
              "under the mutex the write holds, so the lock could go (about −13)."),
}

# What the page says of an operation's figures beside the verdict, from the
# code (kernel/00*.patch).
NOTES = {
    "max": "ours parses `cpu.max` field by field (`cpu_max_fields`, `cpu_max_usec` with "
           "`kstrtoull`) where mainline calls `sscanf`, whose `vsscanf` alone is over 400 "
           "instructions; the write then credits the periods a stopped timer missed "
           "(`__refill_cfs_bandwidth_idle_periods`) and sets the pool by the new rule "
           "(`__set_cfs_bandwidth_pool`), which mainline does by refilling it whole.",
    "refill": "mainline inlines the refill into the period timer; ours keeps "
              "`__refill_cfs_bandwidth_runtime` out of line (it is also called at wake-up and "
              "by the switch), and its slice handout `__assign_cfs_rq_runtime` out of "
              "`__account_cfs_rq_runtime`: calls and returns, and the cap and burst "
              "accounting of the carried-over quota.",
    "switch": "a write walks the cpu controller's groups once (`cfs_bandwidth_switch_burst`, "
              "`css_next_descendant_pre`); per limited group it takes the group's bandwidth "
              "lock, credits the periods its stopped timer missed under the old setting "
              "(`__refill_cfs_bandwidth_idle_periods`, whose `hrtimer_forward_now` reads the "
              "clock: `ktime_get`, and `read_tsc` through a retpoline thunk) and caps the pool "
              "under the new one (`__set_cfs_bandwidth_burst_enabled`); reading the clock once "
              "per write rather than once per group would save most of the clock's share.",
    "wake": "the wake-up restarts the period timer and, with the series, first credits the "
            "periods it was stopped for (`__refill_cfs_bandwidth_idle_periods`, "
            "`hrtimer_forward`, the refill); the rest is the same scheduling on both kernels.",
}

# .config lines that may differ between kernels built at different times
# and change no code, with why (the page says so beside the hashes).
HARMLESS = {"CONFIG_PAHOLE_VERSION": "the build root's pahole version, used only to build BTF, "
            "which this config does not"}

LABELS = {"ours": "ours", "mainline": "mainline (same config)", "slowed": "ours, slowed"}


# --- one boot -----------------------------------------------------------------

def parse_symbols(text):
    """Sorted (address, name) of the text symbols in /proc/kallsyms lines."""
    syms = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in ("t", "T"):
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    if not syms:
        raise BenchError("no text symbols")
    return syms


def attribute(addrs, syms):
    """{function: count} of {address: count}, by the nearest symbol below.

    Aliases at one address (startup_64, _stext) go to the first name in
    sorted order, the same on every kernel."""
    starts = [a for a, _ in syms]
    names = {}
    for a, name in syms:
        names.setdefault(a, name)
    out = {}
    for addr, n in addrs.items():
        i = bisect.bisect_right(starts, addr) - 1
        name = names[starts[i]] if i >= 0 else "(below the kernel's text)"
        out[name] = out.get(name, 0) + n
    return out


def parse_counts(text):
    """The plugin's phases: [{"seq", "user", "kernel", "addrs"}]."""
    phases, cur = [], None
    for i, line in enumerate(text.splitlines(), 1):
        m = re.match(r"phase (\d+) user (\d+) kernel (\d+)$", line)
        if m:
            cur = {"seq": int(m[1]), "user": int(m[2]), "kernel": int(m[3]), "addrs": {}}
            continue
        m = re.match(r"end (\d+)$", line)
        if m:
            if cur is None or cur["seq"] != int(m[1]):
                raise BenchError(f"counts line {i}: 'end {m[1]}' closes no phase")
            if sum(cur["addrs"].values()) != cur["kernel"]:
                raise BenchError(f"counts: phase {cur['seq']}'s addresses do not add up to its total")
            phases.append(cur)
            cur = None
            continue
        if line.startswith("exit "):
            continue
        m = re.match(r"([0-9a-f]+) (\d+)$", line)
        if not m or cur is None:
            raise BenchError(f"counts line {i}: not a count inside a phase: {line[:60]!r}")
        cur["addrs"][int(m[1], 16)] = int(m[2])
    if cur is not None:
        raise BenchError(f"counts: phase {cur['seq']} has no end (the guest stopped inside it?)")
    return phases


def parse_console(text):
    """The guest's BENCH-ICOUNT record and its ICOUNT-PHASE records, in order."""
    kernel, phases = None, []
    for line in text.splitlines():
        if line.startswith("BENCH-ICOUNT "):
            kernel = json.loads(line.split(" ", 1)[1])
        elif line.startswith("ICOUNT-PHASE "):
            phases.append(json.loads(line.split(" ", 1)[1]))
    if kernel is None:
        raise BenchError("the console has no BENCH-ICOUNT line")
    return kernel, phases


def boot_phases(console, symbols, counts, keep_per_op=1.0):
    """The phase records of one boot: the guest's phases paired with the
    plugin's by order, each function kept whose count is at least
    KEEP_PER_OP per operation (the rest summed as "other")."""
    kernel, said = parse_console(console)
    counted = parse_counts(counts)
    if len(said) != len(counted):
        raise BenchError(f"the guest ran {len(said)} phases, the plugin counted {len(counted)}")
    syms = parse_symbols(symbols)
    out = []
    for s, c in zip(said, counted):
        if s["ops"] <= 0:
            raise BenchError(f"phase {c['seq']} ({s['op']}) did no operation")
        funcs = attribute(c["addrs"], syms)
        keep = {f: n for f, n in funcs.items() if n >= keep_per_op * s["ops"] or f in CHANGED}
        rec = dict(s)
        rec.update({"seq": c["seq"], "user_insns": c["user"], "kernel_insns": c["kernel"],
                    "functions": dict(sorted(keep.items())),
                    "other_insns": c["kernel"] - sum(keep.values())})
        out.append(rec)
    return kernel, out


# --- the raw file -------------------------------------------------------------

def load(path):
    meta, recs, end = read_records(path, ("boot", "phase"))
    boots, phases = recs["boot"], recs["phase"]
    for k in ("ours", "mainline"):
        if int(meta.get("repetitions", 2)) >= 2 and len({p["round"] for p in phases if p["kernel"] == k}) < 2:
            raise BenchError(f"{path}: {k} was booted fewer than twice: no A/A")
    return meta, boots, phases, end


def per_op(phases, kernel, op):
    """{round: kernel instructions per operation} of KERNEL's OP phases."""
    return {p["round"]: p["kernel_insns"] / p["ops"]
            for p in phases if p["kernel"] == kernel and p["op"] == op}


def func_per_op(phases, kernel, op):
    """{function: instructions per operation}, the mean over KERNEL's rounds."""
    recs = [p for p in phases if p["kernel"] == kernel and p["op"] == op]
    out = {}
    for p in recs:
        for f, n in p["functions"].items():
            out[f] = out.get(f, 0) + n / p["ops"] / len(recs)
    return out


def mean(vals):
    return sum(vals) / len(vals)


def aa_diff(rounds):
    """The largest relative difference between a kernel's boots (0 for one)."""
    v = list(rounds.values())
    return (max(v) - min(v)) / min(v) if len(v) > 1 else 0.0


def verdict(op, ours, mainline, aa):
    """(passes, text) for a kernel's instructions per operation against
    mainline's, the A/A difference of the two kernels' boots being AA."""
    ratio = ours / mainline
    delta = ours - mainline
    if aa > AA_MAX:
        return False, f"unresolved: A/A {aa:.2%} above {AA_MAX:.1%}"
    # A cost bound: costing less than mainline passes, however much less.
    if ratio - 1 <= BOUND:
        return True, f"within {BOUND:.0%}" if ratio >= 1 - BOUND else f"cheaper by {1 - ratio:.1%}"
    if op in EXPLAINED and delta <= EXPLAINED[op][0]:
        return True, f"explained: +{delta:,.0f} ≤ {EXPLAINED[op][0]:,} (below)"
    return False, f"**FAIL**: {ratio - 1:+.1%}, +{delta:,.0f} per operation"


def fmt_i(v):
    return f"{v:,.1f}"


def fmt_aa(rounds):
    v = list(rounds.values())
    if len(v) < 2:
        return "–"
    return f"{(v[-1] - v[0]) / v[0]:+.4%}"


def path_rows(phases, other="ours"):
    """Rows of the main table, and {op: passed}."""
    rows, ok = [], {}
    for op, _ in OPS:
        o, m = per_op(phases, other, op), per_op(phases, "mainline", op)
        if not o:
            continue
        if not m:
            continue
        aa = max(aa_diff(o), aa_diff(m))
        good, text = verdict(op, mean(o.values()), mean(m.values()), aa)
        ok[op] = good
        rows.append([f"**{op}**", fmt_i(mean(o.values())), fmt_aa(o), fmt_i(mean(m.values())),
                     fmt_aa(m), f"{mean(o.values()) / mean(m.values()):.4f}",
                     f"{mean(o.values()) - mean(m.values()):+,.1f}", text])
    return rows, ok


def overall(ok, phases):
    bad = [op for op, good in ok.items() if not good]
    aa = max(aa_diff(per_op(phases, k, op)) for k in ("ours", "mainline") for op, _ in OPS
             if per_op(phases, k, op))
    aa_text = ("every kernel's boots counted the same instructions, to the last one" if aa == 0
               else f"the boots of one kernel differ by {aa:.4%} at most")
    if bad:
        return f"**Over the bound, unexplained: {', '.join(bad)}** (A/A: {aa_text})."
    return f"**Every path within {BOUND:.0%} of mainline or explained below** (A/A: {aa_text})."


def func_rows(phases, op, top=8):
    """Per function, ours and mainline per operation: the changed functions
    either kernel has, then the TOP others whose counts differ most."""
    o, m = func_per_op(phases, "ours", op), func_per_op(phases, "mainline", op)
    changed = [f for f in CHANGED if f in o or f in m]
    others = sorted((f for f in set(o) | set(m) if f not in CHANGED),
                    key=lambda f: (-abs(o.get(f, 0) - m.get(f, 0)), f))[:top]
    rows = []
    for f in changed + others:
        a, b = o.get(f, 0), m.get(f, 0)
        if f not in CHANGED and abs(a - b) < 0.05:
            continue
        rows.append([f"`{f}`" + (" (changed)" if f in CHANGED else ""), fmt_i(a), fmt_i(b), f"{a - b:+,.1f}"])
    return rows


def render(path, md):
    meta, boots, phases, end = load(path)
    rows, ours_ok = path_rows(phases)
    slowed_rows, slowed_ok = path_rows(phases, "slowed")
    # Caught: a path the bound passes on ours and fails on the slowed kernel.
    caught = [op for op, good in slowed_ok.items() if not good and ours_ok.get(op)]
    out = [
        "# Benchmarks: what the series costs, in instructions",
        "",
        "<!-- Generated by `make bench-icount` (bench/run-icount.sh, bench/icount.py) from the raw file "
        "named below; edit bench/icount.py, not this file. -->",
        "",
        "The time-based page ([benchmarks-cost.md](benchmarks-cost.md)) cannot resolve a few per cent: "
        "its A/A ratios spread from about 0.6 to 2.4, because the emulator's speed drifts under the "
        "meter. This page counts instead. Each kernel boots under QEMU's `-icount shift=0,align=off,"
        "sleep=off` with one vCPU: the guest's clock follows the instructions it executed, so a host "
        "stall moves nothing in the guest, and a boot is repeated instruction for instruction. A TCG "
        "plugin (bench/icount-plugin.c, built against the plugin API header of Debian's QEMU source) "
        "counts every kernel instruction executed, per address, between two markers that "
        "bench/icountbench.c executes around N operations of one path; the host puts each address "
        "down to its function with the booted kernel's own `/proc/kallsyms`. The figure is the "
        "**kernel's instructions per operation**, everything the kernel executed in the phase "
        "(the changed code, the timers, switches and system calls around it) divided by the "
        "operations; the per-function tables below show where the differences are.",
        "",
        f"Each kernel was booted twice (A/A: the second boot against the first; it should be 0). "
        f"**The bound**: ours within {BOUND:.0%} of mainline built with the same config, on every "
        f"path, or a larger delta the page explains from the code, below; a verdict needs the A/A "
        f"difference under {AA_MAX:.1%}. A kernel slowed on purpose on one path "
        f"(kernel/slowed/) must fail it.",
        "",
        "## Instructions per operation",
        "",
        md_table(["operation", "ours", "ours, A/A", "mainline (same config)", "mainline, A/A",
                  "ours / mainline", "ours − mainline", "verdict"], rows, 1),
        "",
        overall(ours_ok, phases), "",
        "What one operation is:",
        "",
    ]
    out += [f"- **{op}**: {text}" for op, text in OPS]
    out += ["", "The phases (bench/icountbench.c): refill, one group limited to 1 ms per 2 ms with "
            "burst 1 ms and one process asking for the whole CPU, the operations counted by the "
            "group's `nr_throttled`; wake, 8 groups of 5 ms per 10 ms, one process each that works "
            "1.5 ms and sleeps 40 ms (the period timer stops meanwhile); slack, 2 groups of 50 ms per "
            "100 ms, one process each that works 1.2 ms and sleeps 2 ms; the configuration "
            "operations one after another on one group, values alternating so that every write "
            "changes the limit; the switch with "
            f"{max((p.get('groups', 0) for p in phases if p['op'] == 'switch'), default=0):,} "
            "limited groups, each of which a write walks."]
    three = [p for p in phases if p["kernel"] == "ours" and p["op"] == "three"]
    if three:
        t = mean(list(per_op(phases, "ours", "three").values()))
        mm = mean(list(per_op(phases, "mainline", "max").values()))
        mb = mean(list(per_op(phases, "mainline", "burst").values()))
        out += ["", f"Setting quota, period and burst together: ours one three-field write, "
                f"{t:,.0f} instructions; mainline needs a `cpu.max` and a `cpu.max.burst` write, "
                f"{mm:,.0f} + {mb:,.0f} = {mm + mb:,.0f} ({t / (mm + mb):.2f} of it)."]
    sw = per_op(phases, "ours", "switch")
    if sw:
        g = max(p["groups"] for p in phases if p["op"] == "switch")
        v = mean(list(sw.values()))
        out += ["", f"The switch exists on ours alone: a write costs {v:,.0f} instructions with "
                f"{g:,} limited groups, {v / g:,.1f} per group (it applies the new setting to each "
                "limited group in turn, `cfs_bandwidth_switch_burst`); it is written by an "
                "operator, never on a scheduling path."]
    out += ["", "### Why the figures differ, from the code", ""]
    out += [f"- **{op}**: {why}" for op, why in NOTES.items()]
    out += [f"- **{op}**, above the bound, explained (at most +{n:,} per operation): {why}"
            for op, (n, why) in EXPLAINED.items()]
    out += ["", "## The slowed kernel fails the bound", "",
            "kernel/slowed/refill-extra-work.diff adds to ours one loop in "
            "`__refill_cfs_bandwidth_runtime`, the period refill (64 turns working out the cap "
            "again), and nothing else. Against mainline, as ours is judged:", "",
            md_table(["operation", "ours, slowed", "A/A", "mainline (same config)", "mainline, A/A",
                      "slowed / mainline", "slowed − mainline", "verdict"], slowed_rows, 1),
            "",
            (f"**The bound caught it** on {' and '.join(caught)}, where it passes ours"
             + (" (the wake-up credits its idle periods with the same refill)" if "wake" in caught else "")
             + "." if caught else
             "**The bound did not catch it: it cannot show a cost this size.**"),
            "", "## Where the instructions differ, per function", "",
            "Per operation, the mean over the boots: the changed functions that are symbols of "
            "their own in either kernel (the rest are inlined into their callers), then the "
            "functions whose counts differ most between the kernels.", ""]
    for op, _ in OPS:
        if not per_op(phases, "mainline", op):
            continue
        out += [f"### {op}", "", md_table(["function", "ours", "mainline", "ours − mainline"],
                                          func_rows(phases, op), 1), ""]
    for op in ("three", "switch"):
        f = func_per_op(phases, "ours", op)
        if not f or per_op(phases, "mainline", op):
            continue
        top = sorted(f.items(), key=lambda x: (-x[1], x[0]))[:10]
        out += [f"### {op} (ours only: its ten largest functions)", "",
                md_table(["function", "ours"], [[f"`{n}`" + (" (changed)" if n in CHANGED else ""),
                                                fmt_i(v)] for n, v in top], 1), ""]
    out += ["## What counting cannot show", "",
            "An instruction count is not time. It cannot show cache and TLB misses, branch "
            "mispredictions, or lock contention and cache-line bouncing across CPUs (the guest has "
            "one vCPU: under `-icount` a fixed shift does not bring up a second one); a path that "
            "executes the same instructions but touches more memory costs more on hardware and the "
            "same here. The time-based page measures time, with its coarser floor.", "",
            "Nor can it stand beside the latency pages' wall-clock figures as a second column: "
            "their cases run two worker threads on two vCPUs (bench/suite.sh), and with a fixed "
            "shift only one vCPU boots (`shift=auto` boots two but is not deterministic), so "
            "under `-icount` the same cases would be another machine's, with the two threads "
            "taking turns on one CPU.", "",
            "## This run", ""]
    out.append(f"- raw data: [{os.path.basename(path)}](bench-raw/{os.path.basename(path)})")
    out.append(f"- {meta['date']}, commit {meta['commit']}; host {meta['host_cpus']} CPUs "
               f"({meta['host_model'].split()[0]}), load average before {meta['loadavg_before']}, "
               f"after {end['loadavg_after']}")
    out.append(f"- guest: {meta['guest']}")
    rel = {b["kernel"]: b for b in boots}
    out.append("- kernels: " + "; ".join(
        f"{LABELS.get(k, k)} {b['release']}, .config sha256 {b.get('config_sha256') or '–'}"
        for k, b in sorted(rel.items())))
    for k, b in sorted(rel.items()):
        for item in filter(None, b.get("config_diff", "").split("; ")):
            name, vals = item.split(": ", 1)
            why = HARMLESS.get(name, "**a difference that may change the code: the figures do not compare**")
            out.append(f"- {LABELS.get(k, k)}'s .config differs from ours in {name} "
                       f"(ours, {LABELS.get(k, k)}: {vals}): {why}")
    secs = {k: [b["seconds"] for b in boots if b["kernel"] == k] for k in rel}
    out.append(f"- {len(boots)} boots, {end['boots_s']} s in the guests ("
               + ", ".join(f"{LABELS.get(k, k)} {'/'.join(map(str, v))} s" for k, v in sorted(secs.items()))
               + f"), {end['elapsed_s']} s in all")
    with open(md, "w") as f:
        f.write("\n".join(out) + "\n")
    return bool(caught)


def config_diff(a, b):
    """The options whose values differ between .config files A and B:
    "NAME: A's value, B's value; ..." (unset: "-")."""
    def opts(path):
        out = {}
        with open(path) as f:
            for line in f:
                line = line.strip()
                m = re.match(r"# (CONFIG_\w+) is not set$", line)
                if m:
                    out[m[1]] = "-"
                elif line.startswith("CONFIG_") and "=" in line:
                    k, v = line.split("=", 1)
                    out[k] = v
        return out
    x, y = opts(a), opts(b)
    return "; ".join(f"{k}: {x.get(k, '-')}, {y.get(k, '-')}"
                     for k in sorted(set(x) | set(y)) if x.get(k, "-") != y.get(k, "-"))


def record(raw, kernel, rnd, log, syms, counts):
    with open(log, errors="replace") as f:
        console = f.read()
    with open(syms, errors="replace") as f:
        symbols = f.read()
    with open(counts) as f:
        text = f.read()
    ident, recs = boot_phases(console, symbols, text)
    with open(raw, "a") as f:
        for r in recs:
            r.update({"type": "phase", "kernel": kernel, "round": rnd,
                      "release": ident["release"]})
            f.write(json.dumps(r, sort_keys=True) + "\n")
    for r in recs:
        print(f"icount: {kernel} round {rnd}: {r['op']}: {r['kernel_insns'] / r['ops']:,.1f} "
              f"kernel instructions per operation ({r['ops']} operations)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", metavar="RAW")
    ap.add_argument("--kernel")
    ap.add_argument("--round", type=int)
    ap.add_argument("--from", dest="raw", metavar="RAW")
    ap.add_argument("--config-diff", nargs=2, metavar=("A", "B"),
                    help="print the options whose values differ between two .config files")
    ap.add_argument("--md")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    try:
        if a.config_diff:
            print(config_diff(*a.config_diff))
            return 0
        if a.record:
            if len(a.files) != 3 or not a.kernel or not a.round:
                ap.error("--record RAW --kernel LABEL --round N LOG SYMS COUNTS")
            record(a.record, a.kernel, a.round, *a.files)
            return 0
        if not a.raw or not a.md:
            ap.error("--from RAW --md OUT.md")
        if not render(a.raw, a.md):
            print("icount: the slowed kernel passed the bound: it cannot show that cost", file=sys.stderr)
            return 1
        return 0
    except (BenchError, OSError, KeyError, ValueError) as e:
        print(f"icount: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
