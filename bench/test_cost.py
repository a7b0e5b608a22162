#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of bench/cost.py (make check-bench) on a synthetic raw
file: the paths' cost per operation from the windows the drift rule keeps,
ratios and their A/A floor paired by round, the configuration table, the
scaling table, the disturbed-boot rule, and the refusal of a file that is
not a whole run."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost  # noqa: E402

# ns per operation by round, the same on every path; each boot's windows
# are the value, two around it, and one the emulator disturbed (its rates
# alone 10 % apart), which must not count.
PIPE = {"ours": [1010, 2040, 990, 1005, 1030],
        "mainline": [1000, 2000, 1000, 1000, 1000],
        "mainline-aa": [990, 2020, 1000, 980, 1020]}


def pairs(v, rate=1.0):
    """A run's windows at this CPU rate (loop units per ns)."""
    win = [(v, 0.0), (v - 7, 0.01), (v + 9, 0.02), (50 * v, 0.1)]
    return [{"rate_drift": d, "ops": 100, "overhead_ns_per_op": ns / rate,
             "alone_before_ns": 10**9, "alone_before_units": rate * 10**9,
             "alone_after_ns": 10**9, "alone_after_units": rate * 10**9} for ns, d in win]


def path(p, v):
    return {"mode": "path", "path": p, "op": "x", "groups": 1, "quota_us": 1000, "period_us": 2000,
            "burst_us": 1000, "spin_us": 0 if p == "refill" else 200, "sleep_us": 8000,
            "window_ms": 1000, "pairs": pairs(v)}


def fleet(groups, system, softirq, throttled):
    return {"mode": "fleet", "groups": groups, "system_pct": system, "softirq_pct": softirq,
            "nr_throttled": throttled, "nr_periods": groups * 50, "window_ns": 5000000000}


def lines(reps=5, end=True, drop=None):
    out = [{"type": "bench", "repetitions": reps, "date": "2026-12-05 02:00 UTC", "commit": "abc",
            "host_cpus": 2, "host_model": "test", "loadavg_before": "0 0 0", "guest": "QEMU test"}]
    for rep in range(1, reps + 1):
        for k, values in PIPE.items():
            out.append({"type": "boot", "rep": rep, "kernel": k, "host_cpu_pressure_pct": rep})
            if (rep, k) == drop:
                continue
            v = values[rep - 1]
            for p in cost.PATHS:
                out.append({"type": "run", "rep": rep, "kernel": k, "run": f"path-{p}",
                            "release": f"6.1-{k}", "config": "cfg", "config_sha256": f"sha-{k}",
                            "result": path(p, v)})
            conf = {"mode": "config", "ops": 2000, "rate_units_per_ns": 1.0, "cpu_max_ns": v, "cpu_max_burst_ns": v / 2,
                    "cpu_stat_read_ns": 3 * v}
            if k == "ours":
                conf["cpu_max_three_ns"] = v
            out.append({"type": "run", "rep": rep, "kernel": k, "run": "config", "release": f"6.1-{k}",
                        "result": conf})
            for n in (1, 500):
                runs = [("fleet-1000", fleet(n, n / 100 + rep / 10, n / 1000, n * 5))]
                if k == "ours":
                    runs.append(("fleet-3000", fleet(n, n / 100, n / 1000, 0)))
                    runs[0] = ("fleet-1000", fleet(n, 1.1 * (n / 100 + rep / 10), n / 1000, n * 5))
                for name, res in runs:
                    out.append({"type": "run", "rep": rep, "kernel": k, "run": name, "groups": n,
                                "release": f"6.1-{k}", "result": res})
    if end:
        out.append({"type": "end", "loadavg_after": "1 1 1", "boots_s": 100, "elapsed_s": 120})
    return out


def row_cells(text, start):
    """The cells of the page's first table row that starts with START."""
    row = next(line for line in text.splitlines() if line.startswith(start))
    return [c.strip() for c in row.strip("|").split("|")]


class Cost(unittest.TestCase):
    def render(self, recs):
        with tempfile.TemporaryDirectory() as tmp:
            raw = os.path.join(tmp, "cost-x.jsonl")
            with open(raw, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in recs)
            md = os.path.join(tmp, "out.md")
            err = io.StringIO()
            with redirect_stdout(io.StringIO()), redirect_stderr(err):
                rc = cost.main(["--from", raw, "--md", md])
            text = ""
            if rc == 0:
                with open(md) as f:
                    text = f.read()
            return rc, text, err.getvalue()

    def test_ratios_paired_by_round(self):
        rc, text, _ = self.render(lines())
        self.assertEqual(rc, 0)
        # ours / mainline per round 1.010 1.020 0.990 1.005 1.030; A/A
        # 0.990 1.010 1.000 0.980 1.020; round 2's mainline is twice the
        # others', so only pairing by round gives these. The disturbed
        # window (50 x) counts nowhere.
        cells = row_cells(text, "| **refill**")
        self.assertEqual(cells[1:], ["1,010 [990–2,040]", "1,000 [1,000–2,000]", "1,000 [980–2,020]",
                                     "1.010 [0.990–1.030]", "1.000 [0.980–1.020]"])
        self.assertIn("Largest ratio away from 1 (ours / mainline, any path, any round): 1.030**", text)
        self.assertIn("the A/A floor reaches 0.980", text)
        self.assertIn("135 of 180 windows kept", text)
        self.assertIn("sha256 ours sha-ours, mainline sha-mainline", text)

    def test_a_slower_boot_costs_the_same(self):
        # Round 3's mainline-aa boot ran at half speed throughout: twice the
        # ns per operation, at half the rate alone, and half the rate in its
        # configuration timing too. In the CPU's units it is the same.
        recs = lines()
        for r in recs:
            if r.get("type") == "run" and r["rep"] == 3 and r["kernel"] == "mainline-aa":
                if r["run"].startswith("path-"):
                    r["result"]["pairs"] = pairs(1000, rate=0.5)
                elif r["run"] == "config":
                    r["result"].update(rate_units_per_ns=0.5, cpu_max_ns=2000)
        rc, text, _ = self.render(recs)
        self.assertEqual(rc, 0)
        self.assertEqual(row_cells(text, "| **slack**")[5], "1.000 [0.980–1.020]")
        self.assertEqual(row_cells(text, "| cpu.max write")[5], "1.000 [0.980–1.020]")

    def test_reruns_and_a_kept_disturbed_boot_are_said(self):
        recs = lines()
        at = next(i for i, r in enumerate(recs) if r.get("type") == "boot" and r["rep"] == 2
                  and r["kernel"] == "ours")
        recs.insert(at, {"type": "boot", "rep": 2, "kernel": "ours", "disturbed": "path-wake: 1 of 4"})
        recs[at + 1].update(disturbed="path-slack: 0 of 4", kept=1)
        rc, text, _ = self.render(recs)
        self.assertEqual(rc, 0)
        self.assertIn("1 boot booted again: round 2 ours: path-wake: 1 of 4.", text)
        self.assertIn("**1 boot still disturbed at the third boot, counted all the same**: "
                      "round 2 ours: path-slack: 0 of 4.", text)

    def test_config_table(self):
        rc, text, _ = self.render(lines())
        self.assertEqual(rc, 0)
        # Mainline sets the three values with two writes: 1.5 x its cpu.max.
        cells = row_cells(text, "| quota, period and burst")
        self.assertEqual(cells[2], "1,500 [1,500–3,000]")
        self.assertEqual(cells[4], "0.673 [0.660–0.687]")

    def test_disturbed_boot(self):
        recs = [r for r in lines() if r.get("type") == "run" and r["rep"] == 1 and r["kernel"] == "ours"]
        self.assertIsNone(cost.disturbed(recs))
        # Alone at 1 unit per ns: within 90 % of a fastest boot at 1.1, not of one at 1.2.
        self.assertIsNone(cost.disturbed(recs, best=1.1))
        self.assertIn("below 90% of the fastest boot's 1,200,000", cost.disturbed(recs, best=1.2))
        for p in recs[0]["result"]["pairs"][:3]:
            p["rate_drift"] = 0.3
        self.assertIn("path-refill: 0 of 4 windows kept", cost.disturbed(recs))

    def test_scaling_table(self):
        rc, text, _ = self.render(lines())
        self.assertEqual(rc, 0)
        # 500 groups: mainline system 5 + rep/10 (5.1-5.5), softirq 0.5;
        # ours at the same setting 1.1 x the system share.
        cells = row_cells(text, "| 500 |")
        self.assertEqual(cells[2], "5.8 [5.6–6.0] / 2,500")
        self.assertEqual(cells[3], "5.5 / 0")
        # The A/A boot's fleet equals mainline's here: its floor is 1.
        self.assertEqual(cells[1], "6.3 [6.1–6.6] / 2,500")
        # (1.1 s + 0.5) / (s + 0.5) for s = 5.1 ... 5.5
        self.assertTrue(cells[4].startswith("1.09"), cells[4])
        self.assertEqual(cells[5], "1.00")

    def test_refuses_a_missing_round(self):
        rc, _, err = self.render(lines(drop=(4, "mainline-aa")))
        self.assertEqual(rc, 1)
        self.assertIn("round 4 has no refill result of mainline-aa", err)

    def test_refuses_an_unfinished_file(self):
        rc, _, err = self.render(lines(end=False))
        self.assertEqual(rc, 1)
        self.assertIn("no end line", err)


if __name__ == "__main__":
    unittest.main(verbosity=1)
