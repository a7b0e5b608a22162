#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of bench/cost.py (make check-bench) on a synthetic raw
file: the hot-path ratio and its A/A floor paired by round, the scaling
table, and the refusal of a file that is not a whole run."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost  # noqa: E402

# ns per round trip by round; each boot's three tries are the value and
# two others around it, so the boot's median is the value.
PIPE = {"ours": [1010, 2040, 990, 1005, 1030],
        "mainline": [1000, 2000, 1000, 1000, 1000],
        "mainline-aa": [990, 2020, 1000, 980, 1020]}


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
            for t, ns in enumerate((v, v - 7, v + 9), 1):
                out.append({"type": "run", "rep": rep, "kernel": k, "run": "pipe", "try": t,
                            "release": f"6.1-{k}", "config": "cfg", "group_nr_throttled": 0,
                            "result": {"ns_per_round_trip": ns, "elapsed_ns": 3000000000}})
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
        # others', so only pairing by round gives these.
        self.assertIn("**ours / mainline: 1.010 [0.990–1.030]**", text)
        self.assertIn("**1.000 [0.980–1.020]**", text)
        self.assertIn("| 3 | 990 | 1,000 | 1,000 | 0.990 | 1.000 |", text)
        self.assertIn("two pipes for 3 s", text)
        self.assertIn("runs it 3 times", text)
        self.assertIn("0 in every run", text)

    def test_scaling_table(self):
        rc, text, _ = self.render(lines())
        self.assertEqual(rc, 0)
        # 500 groups: mainline system 5 + rep/10 (5.1-5.5), softirq 0.5;
        # ours at the same setting 1.1 x the system share.
        row = next(line for line in text.splitlines() if line.startswith("| 500 |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
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
        self.assertIn("round 4 has no hot-path result of mainline-aa", err)

    def test_refuses_an_unfinished_file(self):
        rc, _, err = self.render(lines(end=False))
        self.assertEqual(rc, 1)
        self.assertIn("no end line", err)


if __name__ == "__main__":
    unittest.main(verbosity=1)
