#!/usr/bin/env python3
"""Issue #21's bars, checked on the suite's table of one run (the suite.csv
that scripts/bench-suite.py writes): for each bar, the weakest case and
whether the run meets it; exit 1 where a bar is missed in any run given.

usage: python3 scripts/suite-bars.py SUITE_CSV...
  e.g. python3 scripts/suite-bars.py docs/bench/suite-s49.csv

The bars (the issue's "Bars, from the suite, one H100 run"):
  - every GEMM-family case at least 0.95 of cuBLAS in the same run
    (A B, A B^T, A^T B, the epilogues, batched, 64x128x32 tiles, the
    hand-written persistent program, rows not 16-byte aligned, the decode
    step);
  - tf32 at least 0.95 of torch's tf32 matmul; f8 at least 0.9 of
    torch._scaled_mm;
  - attention, head dim 64 and 128, causal and not, sequences of 4096 and
    16384, at least 0.8 of SDPA (the suite's sequences of 1024 are shown
    beside the bar, not in it);
  - every case correct, and every GEMM and attention case on the tensor
    cores (wgmma in its PTX).
The tile-bench table of the examples (at least 1.0 at 4096^3 and 8192^3)
is another tool's output and is not checked here.
"""
import csv, re, sys


def bar_of(case):
    """The bar a case belongs to: (name, least ratio), or None for a case
    outside the issue's bars."""
    if case.startswith('gemm'):
        if ' tf32 ' in case:
            return ('tf32', 0.95)
        if re.search(r' f8e[0-9a-z]+', case):
            return ('f8', 0.9)
        return ('GEMM family', 0.95)
    if case.startswith('attention'):
        sequence = int(case.rsplit('x', 1)[1])
        if sequence >= 4096:
            return ('attention (sequences 4096 and 16384)', 0.8)
        return ('attention, sequence 1024 (beside the bar)', None)
    return None


def check(path):
    try:
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        print(f'{path}: {e}', file=sys.stderr)
        return False
    if not rows:
        print(f'{path}: no cases', file=sys.stderr)
        return False
    missing = {'case', 'ratio', 'ok', 'tensor_cores'} - set(rows[0])
    if missing:
        print(f'{path}: not a suite table (no column {", ".join(sorted(missing))})', file=sys.stderr)
        return False
    met = True
    groups = {}
    for row in rows:
        bar = bar_of(row['case'])
        if bar:
            groups.setdefault(bar, []).append(row)
    print(f'{path}: {len(rows)} cases')
    for (name, least), members in groups.items():
        rated = [r for r in members if r['ratio']]
        if len(rated) < len(members):
            missing_cases = ', '.join(r['case'] for r in members if not r['ratio'])
            print(f'  {name}: no ratio for {missing_cases}')
            met = False
        if not rated:
            continue
        weakest = min(rated, key=lambda r: float(r['ratio']))
        ratio = float(weakest['ratio'])
        below = [r for r in rated if least is not None and float(r['ratio']) < least]
        if least is None:
            verdict = 'shown'
        elif below:
            verdict = f'MISSED by {len(below)} of {len(members)}'
            met = False
        else:
            verdict = f'met by all {len(members)}'
        limit = f' (>= {least})' if least is not None else ''
        print(f'  {name}{limit}: {verdict}; weakest {ratio:.3f} ({weakest["case"]})')
        for r in below:
            print(f'    {r["case"]}: {float(r["ratio"]):.3f}')
    mma = [r for r in rows if r['case'].startswith(('gemm', 'attention'))]
    met = every('correct', rows, 'ok', f'all {len(rows)}') and met
    return every('tensor cores', mma, 'tensor_cores', f'all {len(mma)} GEMM and attention cases') and met


def every(name, rows, column, all_text):
    """Whether `column` is True for every row, saying which are not."""
    missed = [r['case'] for r in rows if r[column] != 'True']
    if missed:
        print(f'  {name}: MISSED by {len(missed)}: {", ".join(missed)}')
        return False
    print(f'  {name}: {all_text}')
    return True


def main(paths):
    if not paths:
        print('usage: python3 scripts/suite-bars.py SUITE_CSV...', file=sys.stderr)
        return 1
    met = True
    for path in paths:
        try:
            met = check(path) and met
        except (ValueError, IndexError, TypeError, AttributeError) as e:
            # A ratio that is not a number, a case name of another form, or
            # a row shorter than the header.
            print(f'{path}: not a suite table ({e})', file=sys.stderr)
            met = False
    print('all bars met' if met else 'a bar is missed')
    return 0 if met else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
