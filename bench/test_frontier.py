#!/usr/bin/env python3
"""bench/frontier.py on raw files made by hand: the oracle's choice, the
verdicts, the pod's comparison, the page, and refusals. TAP; exits 1 on a
failed check."""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frontier  # noqa: E402

n = failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {what}")


def run(load, share, setting, lat, rep=1, pod=None):
    return {"type": "run", "load": load, "share_pct": share, "setting": setting, "rep": rep,
            "release": "6.1.0-test", "pod_cpu_stat": pod,
            "result": {"latencies_us": lat, "cpu_stat": {"nr_throttled": sum(1 for v in lat if v > 1000)}}}


def flat(v, k=600):
    return [v] * k


def tail(base, high, every, k=600):
    """base, but every every-th request high: 1/every of them."""
    return [high if i % every == every - 1 else base for i in range(k)]


# The oracle: three mainline periods, best at 200 ms for p99.
cell = frontier.Cell("schbench", 20, [
    run("schbench", 20, "ours-advised", flat(100)),
    run("schbench", 20, "mainline-100", tail(100, 80000, 20)),
    run("schbench", 20, "mainline-200", flat(200)),
    run("schbench", 20, "mainline-1000", tail(100, 300000, 50)),
])
c = cell.compare()
ok(c["p99"]["best_setting"] == "mainline-200" and c["p99"]["best"] == 200,
   "the oracle takes mainline's best period at p99 (200 ms: 0.2 ms)")
ok(c["p99"]["verdict"] == "tie" and c["p99"]["lo"] == 1 and c["p99"]["hi"] == 1,
   "ours and the best both below the floor: a tie, ratio 1 [1-1]")

# Ours never waits; every mainline period makes 5% of requests wait 50 ms or more.
cell = frontier.Cell("rare", 15, [
    run("rare", 15, "ours-advised", flat(100)),
    run("rare", 15, "mainline-100", tail(100, 90000, 20)),
    run("rare", 15, "mainline-1000", tail(100, 50000, 20)),
])
c = cell.compare()
ok(c["p99"]["verdict"] == "win" and c["p99"]["best_setting"] == "mainline-1000" and
   abs(c["p99"]["ratio"] - 0.01) < 1e-9, "ours 0.5 ms (floored) against 50 ms: win, ratio 0.01")

# Ours worse than mainline's best everywhere: lose.
cell = frontier.Cell("heavytail", 12, [
    run("heavytail", 12, "ours-advised", tail(100, 40000, 10)),
    run("heavytail", 12, "mainline-500", flat(100)),
])
ok(cell.compare()["p99"]["verdict"] == "lose", "ours 40 ms against mainline's 0.5 ms: lose")

# One run each, a p99 that depends on a handful of blocks: undecided.
lat_o = [100] * 590 + [20000] * 10
lat_m = [100] * 594 + [20000] * 6
cell = frontier.Cell("heavytail", 15, [
    run("heavytail", 15, "ours-advised", lat_o),
    run("heavytail", 15, "mainline-500", lat_m),
])
c = cell.compare()
ok(c["p99"]["verdict"] == "undecided" and c["p99"]["lo"] < 1 / 1.1 and c["p99"]["hi"] > 1.1,
   f"a p99 that rests on a few blocks: undecided [{c['p99']['lo']:.2f}-{c['p99']['hi']:.2f}]")

ok(frontier.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99) == 10 and
   frontier.percentile(list(range(1, 1001)), 99.9) == 999, "nearest-rank percentiles")
ok(frontier.latencies({"result": {"latencies_us": [5, -1, 7]}}) == [5, 7, 7],
   "an unfinished request counts as the run's longest wait")
ok(frontier.verdict(0.5, 0.8) == "win" and frontier.verdict(1.2, 3) == "lose" and
   frontier.verdict(0.95, 1.05) == "tie" and frontier.verdict(0.8, 1.2) == "undecided",
   "the verdict rule: win, lose, tie, undecided")

# A whole raw file, through the command line.
with tempfile.TemporaryDirectory() as tmp:
    raw = os.path.join(tmp, "frontier-test.jsonl")
    frontier.main(["--header", raw, "date=today", "commit=abc", "reps=1", "requests=600"])
    log = os.path.join(tmp, "boot.log.txt")
    with open(log, "w") as f:
        for r in [run("schbench", 20, "ours-advised", flat(100)), run("schbench", 20, "ours-capped", tail(100, 60000, 20)),
                  run("schbench", 20, "mainline-100", tail(100, 60000, 20)), run("schbench", 20, "mainline-200", flat(100)),
                  run("pod", 20, "ours-advised", flat(100), pod="nr_periods 10 nr_throttled 0 throttled_usec 0 "),
                  run("pod", 20, "mainline-100", tail(100, 60000, 20), pod="nr_periods 10 nr_throttled 30 throttled_usec 9 ")]:
            r = dict(r)
            del r["type"], r["rep"]
            f.write("FRONTIER-JSON " + json.dumps(r) + "\r\n")
        f.write('FRONTIER-ADVISE {"load":"schbench","share_pct":20,"burst_us":25000,"advice":{"burst_us":25000,'
                '"mainline":{"best":{"period_us":200000,"meets_goal":true},"needs_patched_kernel":false,'
                '"needs_patched_kernel_at_own_period":true}}}\n')
    frontier.main(["--collect", raw, log, "rep=1", "boot=ours", "release=6.1.0-test (u@h) #1 SMP"])
    frontier.main(["--footer", raw, "elapsed_s=5"])
    md = os.path.join(tmp, "page.md")
    frontier.main(["--from", raw, "--md", md])
    text = open(md).read()
    ok("| 20 % | p99 | 0.1 | 0.1 (200 ms) | 60.0 | 60.0 | 1.00 [1.00–1.00] | **tie** |" in text,
       "the page: schbench at 20 %: ours ties mainline's best (200 ms); at 100 ms and the control wait 60 ms")
    ok("| 20 % | p99 | 0.1 | – (the period is the node's) | 60.0 | – | 0.01 [0.01–0.01] | **win** |" in text,
       "the page: the pod against mainline at 100 ms: a win")
    ok("| 20 % | 0 | – | 30 |" in text, "the page: the pod level's throttled periods, ours, control (not run), mainline")
    ok("mainline meets it at 200 ms, burst = quota; not at 100 ms" in text, "the page: advise's verdict on mainline")
    ok("**The frontier**: 2 win, 2 tie, 0 lose, 0 undecided" in text, f"the page: the frontier's count")
    bad = os.path.join(tmp, "bad.jsonl")
    p = subprocess.run([sys.executable, frontier.__file__, "--collect", bad, log, "release=6.1.0-other (u@h)"],
                       capture_output=True, text=True)
    ok(p.returncode == 1 and "not the bzImage's" in p.stderr, "a boot of another kernel is refused")
    with open(raw) as f:
        lines = f.readlines()[:-1]
    cut = os.path.join(tmp, "cut.jsonl")
    with open(cut, "w") as f:
        f.writelines(lines)
    p = subprocess.run([sys.executable, frontier.__file__, "--from", cut, "--md", md], capture_output=True, text=True)
    ok(p.returncode == 1 and "interrupted" in p.stderr, "a raw file without its end line is refused")

# The model's throttles of a run's own demand (bench/frontier.py's rule).
burstctl = os.environ.get("BURSTCTL")
ok(burstctl and os.access(burstctl, os.X_OK), f"BURSTCTL names the burstctl binary ({burstctl})")
if burstctl:
    def fixed_run(quota, burst, throttled):
        return {"load": "schbench", "share_pct": 20, "setting": "x", "quota_us": quota, "period_us": 100000,
                "burst_us": burst, "result": {"batch": 1, "warmup_s": 0.42, "cputime_us": 30000,
                                              "batch_interval_ns": 210000000, "sizes_us": [30000] * 20,
                                              "cpu_stat": {"nr_throttled": throttled}, "latencies_us": [0] * 20}}
    trace, window, fixed = frontier.run_trace(fixed_run(20000, 20000, 0))
    ok(trace.startswith("# cpus: 1\ntime_us,cpu_us\n0,0\n20000,20000\n40000,0\n40001,30000\n250000,0\n")
       and window == 460000 and fixed,
       "a run's trace: the 20 ms calibration, then 30 ms due every 210 ms; the window after 2 warm-up batches")
    # 0.2 CPU with a 40 ms pool serves 30 ms every 210 ms: a throttle at most at the start.
    ok(frontier.model_throttles(fixed_run(20000, 20000, 0), burstctl) == (0, 1),
       "20 ms / 100 ms, burst 20 ms: the model throttles 0 to 1 periods in the window")
    checks = frontier.needless([fixed_run(20000, 20000, 2), fixed_run(20000, 20000, 5)], burstctl)
    ok([c[4] for c in checks] == [0, 3], "2 throttles are within one of the model's most; 5 leave 3 unexplained")

print(f"1..{n}")
print(f"frontier: {n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
