#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of bench/report.py (make check-bench), on synthetic runs:
the percentile support rule, the aggregation over repetitions, ratios
across kernels, the raw file (writing, reading, refusing), the page; and
bench/suite.sh's run windows against burstbench's own count of requests.

BURSTBENCH=path also runs the real binary on the suite's arguments."""
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

SUITE = os.path.join(HERE, "suite.sh")
TEMPLATE = os.path.join(HERE, "benchmarks.md.in")
SETUP = os.path.join(HERE, "setup-kernel.md")
SETUP_IMAGE = os.path.join(HERE, "setup-image.md")


def result(requests=502, p99=5000.0, scale=1.0, runtime_s=52.605, max_us=None):
    """burstbench's JSON for a run, latencies scaled from p99."""
    lat = {"p50": p99 * 0.2 * scale, "p75": p99 * 0.4 * scale, "p90": p99 * 0.6 * scale,
           "p95": p99 * 0.8 * scale, "p99": p99 * scale, "p99.5": p99 * 1.1 * scale,
           "p99.9": p99 * 1.2 * scale, "min": 100.0, "max": max_us or p99 * 1.3 * scale,
           "mean": p99 * 0.3 * scale}
    return {"threads": 2, "batch": 2, "rate": 9.5238, "cputime_us": 15000, "runtime_s": runtime_s,
            "warmup_s": 2, "requests": requests, "unfinished": 0, "rps": 9.52,
            "rps_elapsed_s": runtime_s, "latency_us": lat, "cgroup": "/sys/fs/cgroup/bench-x",
            "limit": None,
            "cpu_stat": {"usage_usec": 2200000, "nr_periods": 1050, "nr_throttled": 10,
                         "throttled_usec": 400000, "nr_bursts": 80, "burst_usec": 700000},
            "elapsed_us": int(runtime_s * 1e6), "process_cpu_us": 2300000,
            "requests_cpu_us": 2200000, "request_overrun_max_us": 3000, "bound_usec": 3000000}


CASES = {  # run: (scenario, quota, period, burst, kernels)
    "s1-nolimit": (1, None, 100000, 0, ["ours"]),
    "s1-quota": (1, 70000, 100000, 0, ["ours"]),
    "s1-burst": (1, 70000, 100000, 40000, ["ours"]),
    "s2-nolimit": (2, None, 50000, 0, ["ours"]),
    "s2-capped": (2, 10000, 50000, 10000, ["ours", "mainline", "stock"]),
    "s2-burst": (2, 10000, 50000, 30000, ["ours"]),
    "s2-stretched": (2, 20000, 100000, 20000, ["mainline"]),
    "s3-burst-off": (3, 10000, 50000, 30000, ["ours"]),
}


def suite_line(run, kernel, **res):
    scenario, quota, period, burst, _ = CASES[run]
    return {"run": run, "scenario": scenario, "kernel": kernel,
            "expect": "patched" if kernel == "ours" else "stock", "release": f"6.1.0-{kernel}",
            "version": "#1 SMP", "cpus": 2, "quota_us": quota, "period_us": period,
            "burst_us": burst, "burst_enabled": 0 if run == "s3-burst-off" else 1, "load": "S2",
            "min_requests": 500, "attempt": 1, "result": result(**res)}


def bench_line(reps=3, min_requests=500):
    return {"type": "bench", "format": 1, "generator": "make bench-kernel",
            "date": "2026-12-05 01:00 UTC", "commit": "abc1234", "host_cpus": 2,
            "host_model": "test", "loadavg_before": "0.1 0.1 0.1", "guest": "QEMU test",
            "repetitions": reps, "kernels": "ours,mainline,stock", "min_requests": min_requests,
            "warmup_s": 2, "attempts": 2, "stall_us": 20000}


CONFIG = "x86_64_defconfig + kvm_guest.config + kernel/config/guest.config (sha256 0123)"


def run_line(run, kernel, rep, **res):
    line = suite_line(run, kernel, **res)
    line.update({"type": "run", "rep": rep, "boot_try": 1, "host_cpu_pressure_pct": 1,
                 "other_guests": 0, "image": f"bzImage-{kernel}", "image_sha256": "f" * 64,
                 "config": CONFIG if kernel != "stock" else "Debian's own"})
    return line


def full_runs(reps=3, p99=None):
    """Every case of every kernel, p99 by (kernel, run, rep) or 5000."""
    p99 = p99 or {}
    return [run_line(run, k, rep, p99=p99.get((k, run, rep), 5000.0))
            for rep in range(1, reps + 1) for run, c in CASES.items() for k in c[4]]


def write_raw(path, runs, reps=3, end=True, head=None):
    with open(path, "w") as f:
        f.write(json.dumps(head or bench_line(reps)) + "\n")
        for rep in range(1, reps + 1):
            for k in report.KERNELS:
                f.write(json.dumps({"type": "boot", "rep": rep, "kernel": k, "boot_try": 1,
                                    "counted": 1, "host_cpu_pressure_pct": 2,
                                    "other_guests": 0, "seconds": 60}) + "\n")
        for r in runs:
            f.write(json.dumps(r) + "\n")
        if end:
            f.write(json.dumps({"type": "end", "loadavg_after": "0.2 0.2 0.2", "boots_s": 1500,
                                "elapsed_s": 1560}) + "\n")


def read(path):
    with open(path) as f:
        return f.read()


def quiet(fn, *args):
    """fn(*args) with stdout and stderr captured: (value, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        value = fn(*args)
    return value, out.getvalue(), err.getvalue()


class SupportRule(unittest.TestCase):
    def test_floors(self):
        self.assertEqual([report.min_samples(p) for p in report.PCTS],
                         [10, 20, 50, 100, 500, 1000, 5000])

    def test_rule_is_five_samples_beyond_burstbench_rank(self):
        # burstbench's nearest rank (bench/stats.c), computed as it does.
        for p in report.PCTS:
            q = float(p[1:])
            for n in range(1, 6001):
                rank = min(n, max(1, math.ceil(q / 100.0 * n - 1e-9)))
                self.assertEqual(report.supported(p, n), n - rank >= report.TAIL, (p, n))

    def test_cell_below_and_at_the_floor(self):
        self.assertEqual(report.fmt_pct([run_line("s2-burst", "ours", 1, requests=499)], "p99"),
                         "n/a (n=499)")
        self.assertEqual(report.fmt_pct([run_line("s2-burst", "ours", 1, requests=500)], "p99"),
                         "5,000")
        self.assertEqual(report.fmt_pct([run_line("s2-burst", "ours", 1, requests=500)], "p99.5"),
                         "n/a (n=500)")

    def test_one_short_repetition_hides_the_percentile(self):
        recs = [run_line("s2-burst", "ours", rep, requests=n) for rep, n in ((1, 500), (2, 499), (3, 502))]
        self.assertEqual(report.fmt_pct(recs, "p99"), "n/a (n=499–502)")
        self.assertEqual(report.fmt_pct(recs, "p95"), "4,000")

    def test_cli(self):
        out = subprocess.run([sys.executable, report.__file__, "--min-samples", "p99"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "500\n")
        bad = subprocess.run([sys.executable, report.__file__, "--min-samples", "p98"],
                             capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)


class Aggregation(unittest.TestCase):
    def test_spread(self):
        self.assertEqual(report.spread([3, 1, 2]), (2, 1, 3))
        # Skewed, so a mean (11) would not pass for the median (2).
        self.assertEqual(report.spread([30, 1, 2]), (2, 1, 30))
        self.assertEqual(report.spread([4, 1, 3, 2]), (2.5, 1, 4))
        self.assertIsNone(report.spread([]))

    def test_percentile_over_repetitions(self):
        recs = [run_line("s2-burst", "ours", rep, p99=v) for rep, v in ((1, 10.0), (2, 30.0), (3, 20.0))]
        s, ns = report.pct_spread(recs, "p99")
        self.assertEqual((s, ns), ((20.0, 10.0, 30.0), [502, 502, 502]))
        self.assertEqual(report.fmt_spread(s), "20 [10–30]")
        self.assertEqual(report.fmt_spread((7.0, 7.0, 7.0)), "7")

    def test_latency_table_row(self):
        data = report.Data(bench_line())
        data.runs = [run_line("s2-burst", "ours", rep, p99=v) for rep, v in ((1, 1000.0), (2, 3000.0), (3, 2000.0))]
        table = report.latency_table(data.cases(), [("ours", "s2-burst")])
        row = table.splitlines()[2].split(" | ")
        head = table.splitlines()[0].split(" | ")
        cell = dict(zip(head, row))
        self.assertEqual(cell["reps"], "3")
        self.assertEqual(cell["n per run"], "502")
        self.assertEqual(cell["p99"], "2,000 [1,000–3,000]")
        self.assertEqual(cell["p99.5"], "n/a (n=502)")
        self.assertEqual(cell["p99.9"], "n/a (n=502)")


class Ratios(unittest.TestCase):
    def recs(self, kernel, run, by_rep, reverse=False):
        return [run_line(run, kernel, rep, p99=v) for rep, v in sorted(by_rep.items(), reverse=reverse)]

    def test_paired_by_repetition(self):
        # The two sides in opposite orders: pairing is by index, not position.
        num = self.recs("mainline", "s2-capped", {1: 100.0, 2: 300.0, 3: 200.0}, reverse=True)
        den = self.recs("ours", "s2-burst", {1: 10.0, 2: 50.0, 3: 40.0})
        s, pairs, why = report.ratio_spread(num, den)
        self.assertIsNone(why)
        self.assertEqual(pairs, [(1, 10.0), (2, 6.0), (3, 5.0)])
        # The median of the ratios (6), not the ratio of the medians (200 / 40 = 5).
        self.assertEqual(s, (6.0, 5.0, 10.0))

    def test_only_common_repetitions(self):
        num = self.recs("ours", "s1-quota", {1: 100.0, 2: 300.0, 3: 200.0})
        den = self.recs("ours", "s1-burst", {1: 10.0, 3: 20.0})
        self.assertEqual(report.ratio_spread(num, den)[1], [(1, 10.0), (3, 10.0)])

    def test_unsupported_and_zero(self):
        short = [run_line("s2-capped", "stock", 1, requests=150)]
        den = [run_line("s2-burst", "ours", 1)]
        s, _, why = report.ratio_spread(short, den)
        self.assertIsNone(s)
        self.assertIn("p99 needs n ≥ 500", why)
        zero = [run_line("s2-burst", "ours", 1, p99=0.0)]
        self.assertIn("is 0", report.ratio_spread(den, zero)[2])
        self.assertEqual(report.ratio_spread([], den)[2], "not measured")

    def test_rows_across_kernels(self):
        p99 = {("mainline", "s2-capped", 1): 100.0, ("mainline", "s2-capped", 2): 300.0,
               ("mainline", "s2-capped", 3): 200.0, ("ours", "s2-burst", 1): 10.0,
               ("ours", "s2-burst", 2): 50.0, ("ours", "s2-burst", 3): 40.0,
               ("stock", "s2-capped", 1): 40.0, ("stock", "s2-capped", 2): 300.0,
               ("stock", "s2-capped", 3): 400.0}
        data = report.Data(bench_line())
        data.runs = full_runs(p99=p99)
        rows = {r.split(" | ")[0].lstrip("| "): r for r in report.ratio_rows(data).splitlines()[2:]}
        mainline = rows["(control) scenario 2, mainline at its worst setting for this load: p99 mainline "
                        "(same config), burst capped at quota / p99 ours, burst 30 ms"]
        self.assertIn("| 6.00 [5.00–10.00] |", mainline)
        self.assertIn("met (median; 3 of 3 repetitions met it)", mainline)
        self.assertIn("mainline s2-capped: 200 [100–300] µs, n = 502", mainline)
        stock = rows["(control) scenario 2, Debian's kernel at its worst setting for this load: p99 "
                     "Debian's kernel, burst capped at quota / p99 ours, burst 30 ms"]
        # 4, 6, 10: the target is judged on the median, which meets it; one repetition does not.
        self.assertIn("| 6.00 [4.00–10.00] |", stock)
        self.assertIn("| met (median; 2 of 3 repetitions met it)", stock)
        # The same-share row leads scenario 2's rows; the capped ones follow as controls.
        names = list(rows)
        self.assertEqual(names[2], report.STRETCHED_ROW)
        self.assertTrue(all(n.startswith("(control)") for n in names[3:7]), names[3:7])
        s1 = rows["scenario 1, ours: p99 quota without burst / p99 with burst"]
        self.assertIn("| 1.00 |", s1)
        self.assertIn("**missed** (median; 0 of 3 repetitions met it)", s1)

    def test_no_row_for_a_kernel_the_setup_lacks(self):
        data = report.Data()
        data.runs = [r for r in full_runs(reps=1) if r["kernel"] != "mainline"]
        text = report.ratio_rows(data)
        self.assertNotIn("mainline", text)
        self.assertIn("Debian's kernel", text)


class RawFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name
        self.raw = os.path.join(self.tmp, "kernel-test.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def log(self, lines):
        path = os.path.join(self.tmp, "serial.log.txt")
        with open(path, "w") as f:
            f.write("GUEST-BEGIN kernel=6.1.0 suite=bench-suite expect=stock cpus=2\r\n1..1\r\n")
            for tag, line in lines:
                f.write(f"{tag} {json.dumps(line)}\r\n")
            f.write("ok 1 - s2-capped\r\nKLOG [0.0] noise BENCH-JSON not at the start\r\nGUEST-RESULT rc=0\r\n")
        return path

    def test_append_then_read(self):
        report.append(self.raw, bench_line(reps=1))
        discarded = suite_line("s2-capped", "mainline", requests=502)
        discarded["result"]["request_overrun_max_us"] = 80000
        counted = suite_line("s2-capped", "mainline", requests=502, p99=7000.0)
        counted["attempt"] = 2
        fields = {"rep": 1, "kernel": "mainline", "config": CONFIG, "host_cpu_pressure_pct": 3}
        n = report.append(self.raw, fields, self.log([("BENCH-DISCARD", discarded), ("BENCH-JSON", counted)]))
        self.assertEqual(n, 2)
        report.append(self.raw, {"type": "end", "boots_s": 60, "elapsed_s": 61})
        data = report.load_raw(self.raw)
        self.assertEqual(len(data.runs), 1)
        run = data.runs[0]
        self.assertEqual((run["rep"], run["kernel"], run["config"], run["host_cpu_pressure_pct"],
                          run["attempt"], run["result"]["latency_us"]["p99"]),
                         (1, "mainline", CONFIG, 3, 2, 7000.0))
        self.assertEqual([(d["why"], d["attempt"]) for d in data.discards], [("host stall", 1)])

    def test_uncounted_boot(self):
        report.append(self.raw, {"rep": 2, "kernel": "ours"},
                      self.log([("BENCH-JSON", suite_line("s2-burst", "ours"))]), "another guest ran")
        lines = [json.loads(x) for x in read(self.raw).splitlines()]
        self.assertEqual([(x["type"], x["why"], x["rep"]) for x in lines],
                         [("discard", "another guest ran", 2)])

    def test_runner_and_guest_disagree(self):
        with self.assertRaisesRegex(report.BenchError, "the guest says kernel 'mainline', the runner 'ours'"):
            report.append(self.raw, {"kernel": "ours"},
                          self.log([("BENCH-JSON", suite_line("s2-capped", "mainline"))]))

    def test_legacy_kernel_name(self):
        line = suite_line("s2-burst", "ours")
        line["kernel"] = "patched"
        report.append(self.raw, {"kernel": "ours"}, self.log([("BENCH-JSON", line)]))
        self.assertEqual(json.loads(read(self.raw))["kernel"], "ours")

    def test_whole_file(self):
        write_raw(self.raw, full_runs())
        data = report.load_raw(self.raw)
        self.assertEqual(len(data.runs), 30)
        self.assertEqual(data.kernels(), ["ours", "mainline", "stock"])
        self.assertEqual({len(v) for v in data.cases().values()}, {3})

    def refused(self, runs, pattern, **kw):
        write_raw(self.raw, runs, **kw)
        with self.assertRaisesRegex(report.BenchError, pattern):
            report.load_raw(self.raw)

    def test_refuses_a_short_run(self):
        runs = full_runs()
        runs[4]["result"]["requests"] = 480
        self.refused(runs, r"fewer requests than their floor[^\n]*\n  ours s2-capped repetition 1: 480 requests, fewer than 500")

    def test_floor_from_the_bench_line(self):
        runs = full_runs()
        for r in runs:
            r["min_requests"] = 0
        runs[0]["result"]["requests"] = 499
        self.refused(runs, "499 requests, fewer than 500")

    def test_refuses_a_missing_repetition(self):
        runs = [r for r in full_runs() if not (r["kernel"] == "stock" and r["rep"] == 2)]
        self.refused(runs, r"stock s2-capped: repetitions \[1, 3\], not \[1, 2, 3\]")

    def test_refuses_a_duplicate(self):
        runs = full_runs()
        self.refused(runs + [runs[0]], "ours s1-nolimit repetition 1 appears twice")

    def test_refuses_an_unfinished_file(self):
        self.refused(full_runs(), "no 'end' line", end=False)

    def test_refuses_other_files(self):
        with open(self.raw, "w") as f:
            f.write(json.dumps({"type": "run"}) + "\n")
        with self.assertRaisesRegex(report.BenchError, "first line is not the 'bench' line"):
            report.load_raw(self.raw)
        self.refused(full_runs(), "format 2", head=dict(bench_line(), format=2))
        with open(self.raw, "a") as f:
            f.write("{not json\n")
        with self.assertRaisesRegex(report.BenchError, "not JSON"):
            report.load_raw(self.raw)

    def render(self, md):
        return quiet(report.main, ["--from", self.raw, "--template", TEMPLATE, "--setup", SETUP,
                                   "--generator", "make bench-kernel", "--md", md,
                                   "--png", os.path.join(self.tmp, "x.png")])

    def test_page_from_the_raw_file_alone(self):
        write_raw(self.raw, full_runs())
        md1, md2 = os.path.join(self.tmp, "a.md"), os.path.join(self.tmp, "b.md")
        self.assertEqual(self.render(md1)[0], 0)
        self.assertEqual(self.render(md2)[0], 0)
        page = read(md1)
        self.assertEqual(page, read(md2))
        self.assertNotRegex(page, r"@[A-Z]+@")
        self.assertIn("n/a (n=502)", page)
        self.assertIn("| ours | s2-capped | 10 / 50 ms | 10 ms | 3 | 502 |", page)
        self.assertIn("| mainline | s2-capped |", page)
        self.assertIn("p99 500, p99.5 1,000", page)
        self.assertIn("(kernel-test.jsonl)", page)
        self.assertIn("repetition 3, stock, boot 1: host CPU pressure 2%", page)

    def test_page_refused_for_a_short_run(self):
        runs = full_runs()
        runs[0]["result"]["requests"] = 100
        write_raw(self.raw, runs)
        md = os.path.join(self.tmp, "a.md")
        rc, _, err = self.render(md)
        self.assertEqual(rc, 1)
        self.assertIn("100 requests, fewer than 500", err)
        self.assertFalse(os.path.exists(md))

    def test_a_selection_of_runs_has_only_its_ratios(self):
        # make bench runs scenario 2's cases only: no row for what it did not run.
        only = ("s2-capped", "s2-burst", "s2-stretched")
        head = dict(bench_line(), only=",".join(only), setup="bench/setup-image.md")
        write_raw(self.raw, [r for r in full_runs() if r["run"] in only], head=head)
        data = report.load_raw(self.raw)
        rows = report.ratio_rows(data)
        self.assertNotIn("scenario 1", rows)
        self.assertNotIn("no limit", rows)
        self.assertIn("(control) scenario 2, mainline at its worst setting for this load: p99 mainline "
                      "(same config), burst capped at quota / p99 ours", rows)
        self.assertIn(report.STRETCHED_ROW, rows)
        self.assertIn("(control) scenario 2, ours: p99 burst = quota / p99 burst 30 ms", rows)
        lines = "\n".join(report.run_lines(data, os.path.join(self.tmp, "a.md")))
        self.assertIn("running the runs s2-capped, s2-burst, s2-stretched for that kernel once", lines)
        self.assertIn("--setup bench/setup-image.md", lines)

    def test_a_log_is_refused_without_append(self):
        write_raw(self.raw, full_runs())
        with self.assertRaises(SystemExit):
            quiet(report.main, ["--from", self.raw, self.raw, "--template", TEMPLATE, "--setup", SETUP,
                                "--generator", "g", "--md", "x.md", "--png", "x.png"])


class PageText(unittest.TestCase):
    """The page's prose figures come from the runs: what ran and how long,
    the stall rule against the overruns seen, the headline, and no
    paragraph about a scenario the runs lack."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name
        self.raw = os.path.join(self.tmp, "kernel-test.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def page(self, runs, setup=SETUP, head=None, discards=(), boots_again=0):
        write_raw(self.raw, list(runs) + list(discards), head=head)
        if boots_again:
            with open(self.raw) as f:
                lines = f.read().splitlines()
            extra = [json.dumps({"type": "boot", "rep": 1, "kernel": "ours", "boot_try": 1,
                                 "counted": 0, "seconds": 60})] * boots_again
            with open(self.raw, "w") as f:
                f.write("\n".join(lines[:1] + extra + lines[1:]) + "\n")
        md = os.path.join(self.tmp, "a.md")
        rc, _, err = quiet(report.main, ["--from", self.raw, "--template", TEMPLATE, "--setup", setup,
                                         "--generator", "g", "--md", md,
                                         "--png", os.path.join(self.tmp, "x.png")])
        self.assertEqual(rc, 0, err)
        return read(md)

    def test_no_figure_is_template_prose(self):
        for path in (TEMPLATE, SETUP, SETUP_IMAGE):
            text = read(path)
            for stale in ("27 runs", "12 runs", "in 9 boots", "≈ 9 ms", "5–8 ms", "about 26 min",
                          "about 22 min", "holds 500", "52.6 s", "three rounds"):
                self.assertNotIn(stale, text, path)

    def test_what_ran_is_counted(self):
        head = dict(bench_line(), estimate_s=1728)
        again = dict(run_line("s2-burst", "ours", 2), type="discard", why="host stall")
        page = self.page(full_runs(), head=head, discards=[again], boots_again=1)
        self.assertIn("Here, in each round, ours ran 7 cases (s1-nolimit, s1-quota, s1-burst, "
                      "s2-nolimit, s2-capped, s2-burst, s3-burst-off), mainline (same config) 2 "
                      "cases (s2-capped, s2-stretched) and Debian's 1 case (s2-capped): 30 counted "
                      "runs in 9 boots, and 1 boot booted again; 1 try run again after a host "
                      "stall. The boots took 25 min (1,500 s) on this 2-core host; the runner "
                      "estimated 29 min (1,728 s) before the first boot", page)
        self.assertIn("holds 500 requests", page)
        self.assertIn("2 s of warm-up: 52.6 s for scenario 1, 52.6 s for scenario 2, 52.6 s for "
                      "scenario 3", page)
        self.assertIn("3 rounds (`BENCH_REPS`)", page)
        self.assertNotRegex(page, r"@[A-Z_ 0-9]+@")

    def test_largest_overrun_from_the_runs(self):
        runs = full_runs()
        worst = next(r for r in runs if r["run"] == "s2-stretched" and r["rep"] == 2)
        worst["result"]["request_overrun_max_us"] = 14500
        page = self.page(runs)
        self.assertIn("The counted runs' largest overrun is 14.5 ms (mainline s2-stretched, "
                      "repetition 2), their median 3.0 ms over 30 runs: the 20 ms threshold is "
                      "above every counted run, 5.5 ms above the largest.", page)
        self.assertNotIn("≈ 9 ms", page)

    def headline(self, stretched, burst=(10000.0, 10000.0, 10000.0), setup=SETUP, only=None):
        p99 = {("mainline", "s2-stretched", i + 1): v for i, v in enumerate(stretched)}
        p99.update({("ours", "s2-burst", i + 1): v for i, v in enumerate(burst)})
        p99.update({("mainline", "s2-capped", i + 1): 90000.0 for i in range(3)})
        runs = full_runs(p99=p99)
        head = None
        if only:
            head = dict(bench_line(), only=",".join(only))
            runs = [r for r in runs if r["run"] in only]
        page = self.page(runs, setup=setup, head=head)
        start = page.index("**The result.**")
        return page, page[start:page.index("\n", start)]

    def test_headline_is_the_same_share_comparison(self):
        page, line = self.headline([8700.0, 7900.0, 10100.0])
        self.assertLess(page.index("**The result.**"), page.index("![latency percentiles"))
        self.assertIn("At the same long-run share (0.2 CPU) and the same 40 ms pool, mainline given a "
                      "longer period (`s2-stretched`: 20 ms per 100 ms, burst = quota) against ours "
                      "with a burst above the quota (`s2-burst`: 10 ms per 50 ms, burst 30 ms): p99 "
                      "mainline / p99 ours = **0.87 [0.79–1.01]**", line)
        self.assertIn("Ours' p99 was the lower in 1 of 3 rounds. The range holds 1: on this load "
                      "the series shows no gain over a mainline user who stretches the period.", line)
        # The capped comparison follows, as a control, never first.
        self.assertIn("**The control**, not the result: against mainline capped at burst = quota", line)
        self.assertIn("the ratio is 9.00;", line)
        self.assertLess(line.index("0.87"), line.index("9.00"))
        self.assertIn("a range, not an error bar", line)
        self.assertIn("[benchmarks-frontier.md](benchmarks-frontier.md)", line)

    def test_headline_says_which_side_won_every_round(self):
        _, line = self.headline([7000.0, 8000.0, 9000.0])
        self.assertIn("**0.80 [0.70–0.90]**", line)
        self.assertIn("Mainline was the lower in every round", line)
        _, line = self.headline([12000.0, 15000.0, 30000.0])
        self.assertIn("**1.50 [1.20–3.00]**", line)
        self.assertIn("Ours was the lower in every round: on this load the series shows a gain", line)

    def test_headline_without_the_same_share_run(self):
        page = self.page([r for r in full_runs() if r["run"] != "s2-stretched"])
        self.assertIn("**The result.** This run has no same-share comparison", page)
        self.assertIn("**The control**, not the result", page)

    def test_container_page_has_no_scenario_1_text(self):
        only = ("s2-capped", "s2-burst", "s2-stretched")
        page, line = self.headline([11000.0, 6600.0, 14200.0], setup=SETUP_IMAGE, only=only)
        self.assertIn("**1.10 [0.66–1.42]**", line)
        self.assertIn("This page runs scenario 2 only", page)
        for s1 in ("Scenario 1 keeps the seed's period", "Why scenario 1's ratio has a ceiling",
                   "Scenario 1's burst (40 ms)", "Scenario 3 repeats ours",
                   "The benchmark reproduces that effect on our stack (scenario 1)"):
            self.assertNotIn(s1, page)
        self.assertIn("Batch intervals (210 ms)", page)
        self.assertIn("mainline (same config) 2 cases (s2-capped, s2-stretched)", page)
        self.assertIn("15 counted runs in 9 boots", page)
        self.assertNotIn("\n\n\n", page)
        # The kernel page keeps them, with its own figures.
        runs = full_runs()
        for r in runs:
            if r["scenario"] == 1:
                r["result"]["rate"] = 9.90099      # a batch of 2 every 202 ms
        full = self.page(runs)
        self.assertIn("Scenario 1 keeps the seed's period", full)
        self.assertIn("Scenario 3 repeats ours", full)
        self.assertIn("Batch intervals (202 ms, 210 ms)", full)
        self.assertIn("TCG takes milliseconds (5.0 ms at p99 in this run's no-limit runs), so the "
                      "ratio cannot\ngo much beyond ≈ 65 ms over that, about 13 (65 ms over the "
                      "scenario 1 no-limit p99's median, 5.0 ms)", full)
        self.assertNotIn("This page runs scenario 2 only", full)

    def test_plot_has_a_panel_per_scenario_run(self):
        runs = full_runs()
        data = report.Data(bench_line())
        data.runs = runs
        panels = report.plot_panels(data.cases())
        self.assertEqual([p[0] for p in panels], [1, 2, 3])
        self.assertEqual(panels[2][2], [("ours", "s2-burst"), ("ours", "s3-burst-off")])
        # The container page's runs: scenario 2's panel alone, no scenario 3
        # panel holding only the run it would control.
        data.runs = [r for r in runs if r["scenario"] == 2 and r["quota_us"] is not None]
        self.assertEqual([p[0] for p in report.plot_panels(data.cases())], [2])

    def test_p99_interval_needs_more_batches(self):
        page = self.page(full_runs())
        self.assertIn("a run's 251 batches are too few for a two-sided 95 % interval of p99 from "
                      "inside the run: the widest one, from its smallest value to its largest, "
                      "covers the true p99 with probability 1 − 0.99^251 = 0.92 (95 % needs 299 "
                      "batches)", page)

    def test_unknown_placeholder_or_condition_is_refused(self):
        data = report.Data(bench_line())
        data.runs = full_runs()
        with self.assertRaisesRegex(report.BenchError, "unknown placeholder @NOPE@"):
            report.page(data, "@NOPE@\n", "", "g", "a.md", "a.png", "", "")
        with self.assertRaisesRegex(report.BenchError, "unknown condition"):
            report.page(data, "@IF s9@\nx\n@ENDIF@\n", "", "g", "a.md", "a.png", "", "")
        with self.assertRaisesRegex(report.BenchError, "without its @ENDIF@"):
            report.page(data, "@IF s1@\nx\n", "", "g", "a.md", "a.png", "", "")
        self.assertEqual(report.page(data, "a\n@IF s1@\nyes\n@ELSE@\nno\n@ENDIF@\nb\n", "",
                                     "g", "a.md", "a.png", "", ""), "a\nyes\nb\n")
        data.runs = [r for r in data.runs if r["scenario"] == 2]
        self.assertEqual(report.page(data, "a\n@IF s1@\nyes\n@ELSE@\nno\n@ENDIF@\nb\n", "",
                                     "g", "a.md", "a.png", "", ""), "a\nno\nb\n")


def burstbench_requests(args):
    """Measured requests of a burstbench run with ARGS, counted as burstbench
    counts them (bench/burstbench.c, bench/args.c): the batches due in
    [warm-up, warm-up + run time), in whole nanoseconds."""
    opt = dict(zip(args[0::2], args[1::2]))
    batch, rate = int(opt["--threads"]), float(opt["--rate"])
    w, r = float(opt["--warmup"]), float(opt["--runtime"])
    interval = int(batch / rate * 1e9 + 0.5)
    warm = (int(w * 1e9) + interval - 1) // interval
    total = max((int((w + r) * 1e9) + interval - 1) // interval, warm + 1)
    return batch * (total - warm)


def plan(expect, floor, warmup="2"):
    env = dict(os.environ, BURSTCFS_EXPECT=expect, BENCH_MIN_REQUESTS=str(floor), BENCH_WARMUP=warmup)
    env.pop("BENCH_ONLY", None)
    out = subprocess.run(["sh", SUITE, "--plan"], env=env, capture_output=True, text=True,
                         check=True).stdout
    return [line.split() for line in out.splitlines()]


class SuiteWindows(unittest.TestCase):
    """The suite sizes each run to hold the floor: the count burstbench will
    measure reaches it, and overshoots by one batch at most."""

    def test_cases_per_kernel(self):
        self.assertEqual([p[1] for p in plan("patched", 500)],
                         ["s1-nolimit", "s1-quota", "s1-burst", "s2-nolimit", "s2-capped",
                          "s2-burst", "s3-burst-off"])
        self.assertEqual([p[1] for p in plan("stock", 500)], ["s2-capped"])

    def test_windows_hold_the_floor(self):
        # The last two warm-ups end just after a batch of S1, of S2: a window
        # of whole intervals, rounded to the ms, then loses a batch.
        for floor in (500, 7, 10, 1001):
            for warmup in ("2", "0.5", "0", "1.7", "0.202021", "0.210001"):
                for p in plan("patched", floor, warmup):
                    n = burstbench_requests(p[4:])
                    batch = int(p[p.index("--threads") + 1])
                    self.assertGreaterEqual(n, floor, (floor, warmup, p))
                    self.assertLessEqual(n, floor + 2 * batch - 1, (floor, warmup, p))

    @unittest.skipUnless(os.environ.get("BURSTBENCH"), "BURSTBENCH not set")
    def test_real_burstbench_reaches_the_floor(self):
        for p in plan("patched", 10, "0.3"):
            if p[1] not in ("s1-nolimit", "s2-nolimit"):
                continue
            out = subprocess.run([os.environ["BURSTBENCH"], "--json"] + p[4:], capture_output=True,
                                 text=True, check=True).stdout
            got = json.loads(out)["requests"]
            self.assertEqual(got, burstbench_requests(p[4:]), p)
            self.assertGreaterEqual(got, 10, p)


class ModelThrottles(unittest.TestCase):
    """The throttles the reference model gives a run (report.model_throttles,
    through the real burstctl that make check-bench builds first)."""

    def run_rec(self, burst, seen=0, enabled=1, elapsed=10.0):
        res = result(runtime_s=elapsed)
        res["cpu_stat"]["nr_throttled"] = seen
        # The requests used exactly their CPU: 30 ms a batch.
        res["requests_cpu_us"] = res["requests"] * res["cputime_us"]
        return {"quota_us": 10000, "period_us": 50000, "burst_us": burst, "burst_enabled": enabled,
                "result": res, "kernel": "ours", "run": "s2-burst", "rep": 1}

    def test_batch_cost_is_what_its_requests_used(self):
        res = result()
        res["requests_cpu_us"] = 502 * 15350
        self.assertEqual(report.batch_cpu_us(res), 30700)
        del res["requests_cpu_us"]
        self.assertEqual(report.batch_cpu_us(res), 30000)

    def test_demand_trace(self):
        res = result(runtime_s=1.0)
        res["requests_cpu_us"] = 502 * 15000
        rows = report.demand_trace(res).splitlines()
        self.assertEqual(rows[:4], ["# cpus: 2", "time_us,cpu_us", "0,0", "1000,30000"])
        # Batches every 2 / 9.5238 s = 210000 us, due before 2 s + 1 s.
        demand = [r for r in rows[2:] if not r.endswith(",0")]
        self.assertEqual(len(demand), 15)
        self.assertEqual(demand[-1], "2941000,30000")
        self.assertIn("2940000,0", rows)

    def test_burst_covers_every_batch(self):
        self.assertTrue(os.access(report.BURSTCTL, os.X_OK), f"no burstctl at {report.BURSTCTL}")
        self.assertEqual(report.model_throttles(self.run_rec(30000)), (0, 0))

    def test_capped_pool_throttles_four_batches_in_five(self):
        # A 30 ms batch from a full 20 ms pool (refilled in the 4 periods
        # between batches): two CPUs drain the pool in 10 ms, so a batch
        # escapes only when a boundary falls in those 10 ms, and otherwise
        # waits exactly one boundary. Batches come 210 ms apart, 10 ms later
        # in the period each time: 1 in 5 escapes, and 4/5 of the 48 batches
        # in the 10 s window throttle; none escapes at a phase that puts the
        # boundary just at the end of the drain; none throttles twice.
        fewest, most = report.model_throttles(self.run_rec(10000))
        self.assertGreaterEqual(fewest, 37)
        self.assertLessEqual(fewest, 39)
        self.assertLessEqual(most, 48)
        # Burst switched off is a pool of quota alone: more throttles still.
        off = report.model_throttles(self.run_rec(30000, enabled=0))
        self.assertGreater(off[0], fewest)

    def test_needless_only_where_the_model_needs_none(self):
        cases = {("ours", "s2-burst"): [self.run_rec(30000, seen=3), dict(self.run_rec(30000, seen=1), rep=2)],
                 ("mainline", "s2-capped"): [dict(self.run_rec(10000, seen=500), kernel="mainline",
                                                  run="s2-capped")]}
        table, total, runs = report.needless_table(cases)
        self.assertEqual((total, runs), (4, 2))
        self.assertIn("| ours | s2-burst | 2 | 2 [1–3] | 0, 0 | 2 [1–3] |", table)
        self.assertRegex(table, r"\| mainline \| s2-capped \| 1 \| 500 \| 3\d–\d+ \| not told by counts \|")

    def test_needless_put_down_to_a_measured_stall(self):
        # A 40 ms pool over a 30 ms batch spares 10 ms: a request charged
        # 12 ms beyond its spin explains its run's throttles, one charged 3 ms
        # does not.
        stalled, clean = self.run_rec(30000, seen=3), dict(self.run_rec(30000, seen=1), rep=2)
        stalled["result"]["request_overrun_max_us"] = 12000
        clean["result"]["request_overrun_max_us"] = 3000
        emulator, unexplained, lines = report.needless_causes({("ours", "s2-burst"): [stalled, clean]})
        self.assertEqual((emulator, unexplained), (3, 1))
        self.assertIn("repetition 1: 3 throttled periods; the emulator: a request was charged 12.0 ms", lines[0])
        self.assertIn("repetition 2: 1 throttled period; **unexplained**", lines[1])
        # On two CPUs the other's runqueue keeps 1 ms: the spare is 9 ms.
        for r in (stalled, clean):
            r["cpus"] = 2
        clean["result"]["request_overrun_max_us"] = 9500
        emulator, unexplained, lines = report.needless_causes({("ours", "s2-burst"): [stalled, clean]})
        self.assertEqual((emulator, unexplained), (4, 0))
        self.assertIn("more than the 9.0 ms the pool had to spare over a batch, less the 1 ms", lines[1])

    def test_a_batch_interval_the_trace_cannot_hold(self):
        res = result()
        res["rate"] = 4000.0
        with self.assertRaises(report.BenchError):
            report.demand_trace(res)

    def test_no_limit_no_row(self):
        rec = self.run_rec(0)
        rec["quota_us"] = None
        self.assertIsNone(report.model_throttles(rec))
        self.assertIsNone(report.needless_table({("ours", "s2-nolimit"): [rec]}))


if __name__ == "__main__":
    unittest.main(verbosity=1)
