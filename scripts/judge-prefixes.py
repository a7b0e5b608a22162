#!/usr/bin/python3
"""Judge the suite's runs on every prefix of the kernel series.

Usage: scripts/judge-prefixes.py KERNEL_SERIES RESULTS_DIR COUNT

RESULTS_DIR holds prefix-K.log.txt (the guest's console, TAP inside) and
prefix-K.subject for K in 0..COUNT-1, as scripts/series-prefixes.sh leaves
them. kernel/series names the feature each patch adds ("# feature: NAME");
each check of the suite names the features it needs ("[NAME NAME] ..." at
the start of its description, tests/kernel/pool.h). The run on the whole
series must pass and gives each check's tags. On every other prefix:
 - each failing check needs a feature the prefix lacks (no other failure);
 - at least one check that names the feature the next patch adds fails:
   that patch has a test (the keep-pool checks read the pool through
   current-bw, two patches later, so they also name it);
 - a group whose set-up check fails (as expected) reports its remaining
   checks as "not reached": they are counted as blocked, not judged.
A check may pass on a prefix that lacks a feature it names, when that
run did not exercise the difference (a sampling check, or one that needs
two features together); the table lists those. Writes series-prefixes.md
(the table docs/kernel.md shows) and exits 1 on any problem.
"""
import re
import sys

TAP = re.compile(r'^(not )?ok (\d+) - (.*)$')
TAGS = re.compile(r'^\[([a-z0-9 -]*)\]')
UNREACHED = re.compile(r'^[\w.-]+: check \d+ not reached')


def features_of(series):
    feats = []
    for line in open(series):
        name = line.split('#')[0].strip()
        if not name:
            continue
        m = re.search(r'#\s*feature:\s*(\S+)', line)
        feats.append(m.group(1) if m else None)
    return feats


def results(log):
    got, plan, ended = {}, None, False
    for line in open(log, errors='replace'):
        line = line.rstrip('\n')
        m = TAP.match(line)
        if m:
            got[int(m.group(2))] = (m.group(1) is None, m.group(3))
        elif re.match(r'^1\.\.\d+', line):
            plan = int(line[3:].split()[0])
        elif line.startswith('GUEST-RESULT'):
            ended = True
    return got, plan, ended


def ranges(numbers):
    """1, 2, 3, 5 -> "1-3, 5": the table stays readable."""
    out, run = [], []
    for n in numbers:
        if run and n != run[-1] + 1:
            out.append(f'{run[0]}-{run[-1]}' if len(run) > 1 else str(run[0]))
            run = []
        run.append(n)
    if run:
        out.append(f'{run[0]}-{run[-1]}' if len(run) > 1 else str(run[0]))
    return ', '.join(out)


def main():
    series, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    feats = features_of(series)
    full, plan, ended = results(f'{out}/prefix-{count - 1}.log.txt')
    problems = []
    if not ended or plan is None or len(full) != plan or not all(ok for ok, _ in full.values()):
        problems.append('the whole series does not pass the suite: '
                        + ', '.join(str(n) for n, (ok, _) in sorted(full.items()) if not ok))
    known = {f for f in feats if f}
    tags = {}
    for n, (_, desc) in full.items():
        m = TAGS.match(desc)
        tags[n] = set(m.group(1).split()) if m else set()
        unknown = tags[n] - known
        if unknown:
            problems.append(f'check {n} names unknown features {sorted(unknown)}')

    rows = ['| prefix | last patch | its feature | checks failing | of them, naming the next patch\'s feature | passing without a feature they name | not reached |',
            '| --- | --- | --- | --- | --- | --- | --- |']
    for k in range(count):
        have = {f for f in feats[:k] if f}
        adds = feats[k] if k < len(feats) else None
        got, kplan, kended = results(f'{out}/prefix-{k}.log.txt')
        subject = open(f'{out}/prefix-{k}.subject').read().strip()
        blocked = {n for n in full if n in got and UNREACHED.match(got[n][1])}
        failing = sorted(n for n in full if n not in blocked and not got.get(n, (False, ''))[0])
        expected = {n for n in full if n not in blocked and not tags[n] <= have}
        unexplained = [n for n in failing if n not in expected]
        passing_without = sorted(expected - set(failing))
        # The checks that prove the next patch: they name its feature and fail here.
        teeth = [n for n in failing if adds and adds in tags[n]]
        # A group stops only after one of its checks failed as expected.
        causes = {n - 1 for n in blocked if n - 1 not in blocked}
        bad_stops = sorted(c for c in causes if c not in expected)
        what = []
        if not kended or kplan != plan:
            what.append(f'incomplete run (plan {kplan}, end marker {kended})')
        if unexplained:
            what.append('failures no missing feature explains ' + ', '.join(
                f'{n} ({got.get(n, (False, "not reported"))[1][:90]})' for n in unexplained))
        if bad_stops:
            what.append('groups stopped after a check that should pass: ' + ', '.join(map(str, bad_stops)))
        if adds and not teeth:
            what.append(f'no check naming {adds}, which the next patch adds, fails')
        if what:
            problems.append(f'prefix {k}: ' + '; '.join(what))
        rows.append(f'| {k} | {subject} | {"+" + feats[k - 1] if k and feats[k - 1] else "-"} | '
                    f'{len(failing)}: {ranges(failing) or "none"} | '
                    f'{(adds + ": " + ranges(teeth)) if adds else "-"} | '
                    f'{ranges(passing_without) or "none"} | {len(blocked)} |')
    table = '\n'.join(rows) + '\n'
    open(f'{out}/series-prefixes.md', 'w').write(table)
    print(table)
    for p in problems:
        print(f'judge-prefixes: {p}', file=sys.stderr)
    print(f'judge-prefixes: {count} prefixes, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
