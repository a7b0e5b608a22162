#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of bench/icount.py (make check-bench): addresses put down
to functions by the symbol table, the plugin's file read and checked, the
guest's phases paired with the plugin's, the bound's verdicts (within it,
over it, explained, A/A too wide), and the page from a synthetic raw file,
which must fail when the slowed kernel passes the bound."""
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icount  # noqa: E402
from report import BenchError  # noqa: E402

SYMS = """ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81000100 t __refill_cfs_bandwidth_runtime
ffffffff81000180 T schedule
ffffffff81000200 D some_data
ffffffff81000300 T vfs_write
"""


class Symbols(unittest.TestCase):
    def test_text_only_sorted(self):
        syms = icount.parse_symbols(SYMS)
        self.assertEqual([n for _, n in syms],
                         ["_stext", "startup_64", "__refill_cfs_bandwidth_runtime", "schedule", "vfs_write"])

    def test_attribute_by_nearest_below(self):
        syms = icount.parse_symbols(SYMS)
        got = icount.attribute({0xffffffff81000100: 3, 0xffffffff8100017f: 2,
                                0xffffffff81000180: 5, 0xffffffff81000250: 7,
                                0xffffffff81000001: 1, 0xffffffff80000000: 4}, syms)
        # Data symbols do not end a function; aliases go to the first name.
        self.assertEqual(got, {"__refill_cfs_bandwidth_runtime": 5, "schedule": 12, "_stext": 1,
                               "(below the kernel's text)": 4})

    def test_no_text_symbols(self):
        with self.assertRaises(BenchError):
            icount.parse_symbols("ffffffff81000200 D some_data\n")


COUNTS = """phase 1 user 100 kernel 10
ffffffff81000100 4
ffffffff81000180 6
end 1
phase 2 user 5 kernel 3
ffffffff81000300 3
end 2
exit phases 2 addresses 3
"""
CONSOLE = """GUEST-BEGIN
BENCH-ICOUNT {"release":"6.1-x","version":"#1","expect":"patched"}
ICOUNT-PHASE {"op":"refill","ops":2,"groups":1}
ok 2 - refill
ICOUNT-PHASE {"op":"max","ops":3,"groups":1}
"""


class Boot(unittest.TestCase):
    def test_phases_paired_in_order(self):
        kernel, recs = icount.boot_phases(CONSOLE, SYMS, COUNTS)
        self.assertEqual(kernel["release"], "6.1-x")
        self.assertEqual([(r["op"], r["ops"], r["kernel_insns"], r["user_insns"]) for r in recs],
                         [("refill", 2, 10, 100), ("max", 3, 3, 5)])
        self.assertEqual(recs[0]["functions"], {"__refill_cfs_bandwidth_runtime": 4, "schedule": 6})
        self.assertEqual(recs[0]["other_insns"], 0)

    def test_small_functions_summed_as_other(self):
        _, recs = icount.boot_phases(CONSOLE, SYMS, COUNTS, keep_per_op=2.5)
        # schedule (3 per op) kept, a changed function always kept.
        self.assertEqual(recs[0]["functions"], {"__refill_cfs_bandwidth_runtime": 4, "schedule": 6})
        self.assertEqual(recs[1]["functions"], {})
        self.assertEqual(recs[1]["other_insns"], 3)

    def test_phase_counts_disagree(self):
        with self.assertRaisesRegex(BenchError, "ran 1 phases, the plugin counted 2"):
            icount.boot_phases(CONSOLE.split("ICOUNT-PHASE {\"op\":\"max\"")[0], SYMS, COUNTS)

    def test_counts_must_add_up(self):
        with self.assertRaisesRegex(BenchError, "do not add up"):
            icount.parse_counts(COUNTS.replace("kernel 10", "kernel 11"))

    def test_phase_without_end(self):
        with self.assertRaisesRegex(BenchError, "has no end"):
            icount.parse_counts(COUNTS.split("end 2")[0])

    def test_count_outside_a_phase(self):
        with self.assertRaises(BenchError):
            icount.parse_counts("ffffffff81000100 4\n")

    def test_no_operation(self):
        with self.assertRaisesRegex(BenchError, "did no operation"):
            icount.boot_phases(CONSOLE.replace('"ops":2', '"ops":0'), SYMS, COUNTS)


class Verdict(unittest.TestCase):
    def test_within_bound(self):
        self.assertTrue(icount.verdict("refill", 10150, 10000, 0)[0])
        self.assertTrue(icount.verdict("refill", 9810, 10000, 0)[0])

    def test_cheaper_passes(self):
        self.assertEqual(icount.verdict("max", 6000, 10000, 0), (True, "cheaper by 40.0%"))

    def test_over_bound_fails(self):
        ok, text = icount.verdict("refill", 10300, 10000, 0)
        self.assertFalse(ok)
        self.assertIn("FAIL", text)

    def test_explained_allowance(self):
        saved = dict(icount.EXPLAINED)
        try:
            icount.EXPLAINED["stat"] = (400, "a line more")
            self.assertTrue(icount.verdict("stat", 5400, 5000, 0)[0])
            self.assertFalse(icount.verdict("stat", 5401, 5000, 0)[0])
            self.assertFalse(icount.verdict("max", 5400, 5000, 0)[0])
        finally:
            icount.EXPLAINED.clear()
            icount.EXPLAINED.update(saved)

    def test_aa_too_wide_gives_no_verdict(self):
        ok, text = icount.verdict("refill", 10000, 10000, 0.01)
        self.assertFalse(ok)
        self.assertIn("unresolved", text)


def raw_lines(slowed_refill):
    """Ours and mainline twice each, the slowed kernel once; per operation:
    refill 10,000 on mainline, 10,100 on ours, SLOWED_REFILL slowed."""
    out = [{"type": "bench", "repetitions": 2, "date": "2026-12-07 02:00 UTC", "commit": "abc",
            "host_cpus": 2, "host_model": "Test CPU", "loadavg_before": "0 0 0", "guest": "QEMU test"}]
    per_op = {"ours": {"refill": 10100, "max": 2900, "burst": 2900, "stat": 5000, "three": 3000, "switch": 500000},
              "mainline": {"refill": 10000, "max": 2900, "burst": 2900, "stat": 5000},
              "slowed": {"refill": slowed_refill, "max": 2900, "burst": 2900, "stat": 5000, "three": 3000,
                         "switch": 500000}}
    for k, rounds in (("ours", 2), ("mainline", 2), ("slowed", 1)):
        for r in range(1, rounds + 1):
            out.append({"type": "boot", "kernel": k, "round": r, "seconds": 40, "rc": 0,
                        "release": f"6.1-{k}", "config_sha256": "cfg",
                        "config_diff": "" if k == "ours" else
                        "CONFIG_PAHOLE_VERSION: 0, 124" if k == "mainline" else "CONFIG_HZ: 1000, 250"})
            for op, v in per_op[k].items():
                ops = 10 if op == "switch" else 100
                out.append({"type": "phase", "kernel": k, "round": r, "op": op, "ops": ops,
                            "groups": 10000 if op == "switch" else 1, "kernel_insns": v * ops,
                            "user_insns": 1, "other_insns": 0,
                            "functions": {"__refill_cfs_bandwidth_runtime": v * ops // 100,
                                          "schedule": v * ops - v * ops // 100}})
    out.append({"type": "end", "loadavg_after": "0 0 0", "boots_s": 200, "elapsed_s": 210})
    return out


class ConfigDiff(unittest.TestCase):
    def test_changed_added_unset(self):
        d = tempfile.mkdtemp()
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        with open(a, "w") as f:
            f.write("# comment\nCONFIG_PAHOLE_VERSION=0\nCONFIG_X=y\n# CONFIG_Y is not set\nCONFIG_Z=1\n")
        with open(b, "w") as f:
            f.write("CONFIG_PAHOLE_VERSION=124\nCONFIG_X=y\nCONFIG_Y=y\n")
        self.assertEqual(icount.config_diff(a, b),
                         "CONFIG_PAHOLE_VERSION: 0, 124; CONFIG_Y: -, y; CONFIG_Z: 1, -")
        self.assertEqual(icount.config_diff(a, a), "")


class Page(unittest.TestCase):
    def write(self, recs):
        d = tempfile.mkdtemp()
        raw = os.path.join(d, "icount-x.jsonl")
        with open(raw, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        return raw, os.path.join(d, "page.md")

    def test_page(self):
        raw, md = self.write(raw_lines(10600))
        self.assertEqual(icount.main(["--from", raw, "--md", md]), 0)
        with open(md) as f:
            page = f.read()
        self.assertIn("| **refill** | 10,100.0 | +0.0000% | 10,000.0 | +0.0000% | 1.0100 | +100.0 | within 2% |", page)
        self.assertIn("| **refill** | 10,600.0 | – | 10,000.0 | +0.0000% | 1.0600 | +600.0 | **FAIL**", page)
        self.assertIn("The bound caught it** on refill, where it passes ours.", page)
        self.assertIn("Every path within 2% of mainline or explained below** (A/A: every kernel's "
                      "boots counted the same instructions, to the last one)", page)
        self.assertIn("2,900 + 2,900 = 5,800 (0.52 of it)", page)
        self.assertIn("50.0 per group", page)
        self.assertIn("mainline (same config)'s .config differs from ours in CONFIG_PAHOLE_VERSION "
                      "(ours, mainline (same config): 0, 124): the build root's pahole version", page)
        self.assertIn("differs from ours in CONFIG_HZ (ours, ours, slowed: 1000, 250): **a difference "
                      "that may change the code", page)

    def test_slowed_passing_fails_the_run(self):
        raw, md = self.write(raw_lines(10150))
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(icount.main(["--from", raw, "--md", md]), 1)
        self.assertIn("slowed kernel passed the bound", err.getvalue())

    def test_slowed_failing_only_where_ours_fails_is_not_caught(self):
        recs = raw_lines(10000)
        for r in recs:
            if r.get("type") == "phase" and r["op"] == "refill" and r["kernel"] in ("ours", "slowed"):
                r["kernel_insns"] = 10600 * r["ops"]
        raw, md = self.write(recs)
        with redirect_stderr(io.StringIO()):
            self.assertEqual(icount.main(["--from", raw, "--md", md]), 1)
        with open(md) as f:
            page = f.read()
        self.assertIn("Over the bound, unexplained: refill", page)
        self.assertIn("did not catch it", page)

    def test_no_end_line_refused(self):
        raw, md = self.write(raw_lines(10600)[:-1])
        with redirect_stderr(io.StringIO()):
            self.assertEqual(icount.main(["--from", raw, "--md", md]), 1)

    def test_one_boot_is_no_aa(self):
        recs = [r for r in raw_lines(10600) if not (r.get("kernel") == "mainline" and r.get("round") == 2)]
        raw, md = self.write(recs)
        with redirect_stderr(io.StringIO()) as err:
            self.assertEqual(icount.main(["--from", raw, "--md", md]), 1)
        self.assertIn("no A/A", err.getvalue())


if __name__ == "__main__":
    unittest.main(verbosity=1)
