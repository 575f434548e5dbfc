#!/usr/bin/env python3
"""Crash check for tile-opt, in two phases.

1. Syntax: truncated and mutated versions of every .mlir file in examples/
   and lit/, plus random bytes. A run must end with exit code 0 (accepted)
   or 1 (a diagnostic); anything else (a signal, an abort) is a crash.
2. Pipelines (structure-aware): mutants of the programs in examples/ and
   tests/kernels/ made by operators that keep programs plausible (commuted
   operands, a sibling op, another SSA value, another constant, padding,
   reduce kind, element type or tile size, hints, yields permuted). Those
   that verify go through `tile-to-cpu` and, where CUDA_HOME holds ptxas and
   libdevice, `tile-to-ptx`: a verified program that a pipeline rejects is
   a finding (the verifier must reject what the lowerings cannot take), as
   is a crash, except the rejections listed in KNOWN, each a limitation an
   open issue removes, which are counted and shown. The phase runs until
   its time budget is spent.

usage: fuzz-tile-opt.py TILE_OPT [SEED...] [--budget SECONDS] [--jobs N]
TILE_OPT for phase 1; phase 2 uses the release build beside it when there
is one (target/release/tile-opt), which is several times faster.
Failing inputs are kept in $TMPDIR/tile-opt-{crash,finding}-N.mlir."""
import glob, os, random, re, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
budget = float(args[args.index('--budget') + 1]) if '--budget' in args else 150.0
jobs = int(args[args.index('--jobs') + 1]) if '--jobs' in args else os.cpu_count() or 2
args = [a for i, a in enumerate(args) if a not in ('--budget', '--jobs') and (i == 0 or args[i - 1] not in ('--budget', '--jobs'))]
opt = args[0]
seeds = [int(s) for s in args[1:]] or [0]
release = os.path.join(root, 'target', 'release', 'tile-opt')
pipeline_opt = release if os.path.exists(release) else opt


def keep(kind, n, text, why):
    path = os.path.join(tempfile.gettempdir(), f'tile-opt-{kind}-{n}.mlir')
    open(path, 'wb').write(text.encode('latin1', 'replace'))
    print(f'{kind.upper()}: {path}: {why}', flush=True)


# Phase 1: syntax.
files = sorted(glob.glob(os.path.join(root, 'examples', '**', '*.mlir'), recursive=True)
               + glob.glob(os.path.join(root, 'lit', '**', '*.mlir'), recursive=True))
texts = [open(f).read() for f in files]
cases = []
for seed in seeds:
    random.seed(seed)
    for t in texts:
        for _ in range(25):
            cases.append(t[:random.randrange(len(t))])
        toks = t.split(' ')
        for _ in range(40):
            tt = list(toks)
            for _ in range(random.randint(1, 3)):
                i = random.randrange(len(tt))
                op = random.random()
                if op < 0.3: tt[i] = random.choice(toks)
                elif op < 0.5: del tt[i]
                elif op < 0.7: tt[i] = tt[i].replace('128', random.choice(['0', '3', '-1', '1048576', '99999999999999999999', '?']))
                elif op < 0.85: tt[i] = tt[i].replace('f16', random.choice(['f64', 'i1', 'f8E4M3FN', 'index', 'bf16', 'complex<f32>', 'vector<4xf32>']))
                else: tt.insert(i, random.choice(['%x', 'tile.load', '[', ']', '<', '>', ',', 'dim', 'padding', '=', '!tile.partition_view<', 'tensor<4x?xf32>', 'memref<*xf32>']))
            cases.append(' '.join(tt))
    for _ in range(50):
        cases.append(bytes(random.getrandbits(8) for _ in range(random.randint(0, 400))).decode('latin1'))


def syntax(i):
    # One in four also runs the first stage, one in four the whole CPU
    # pipeline (the passes see only verified IR).
    passes = [[], ['--tile-simplify', '--convert-tile-to-linalg'], [], ['--pass-pipeline=builtin.module(tile-to-cpu)']][i % 4]
    p = subprocess.run([opt, '-', '--split-input-file', *passes], input=cases[i].encode('latin1', 'replace'),
                       capture_output=True, timeout=120)
    return i, p.returncode, p.stderr.decode(errors='replace')


crashes = 0
with ThreadPoolExecutor(jobs) as pool:
    for i, code, err in pool.map(syntax, range(len(cases))):
        if code not in (0, 1):
            crashes += 1
            keep('crash', crashes, cases[i], f'exit code {code}: {err[-400:]}')
print(f'fuzz-tile-opt: syntax: {len(cases)} inputs, {crashes} crashes', flush=True)

# Phase 2: pipelines.
programs = sorted(glob.glob(os.path.join(root, 'examples', '*.mlir')) + glob.glob(os.path.join(root, 'tests', 'kernels', '*.mlir')))
programs = [open(p).read() for p in programs]
FLOAT_OPS = ['addf', 'subf', 'mulf', 'divf', 'maximumf', 'minimumf']
INT_OPS = ['addi', 'subi', 'muli', 'divui', 'remui', 'divsi', 'remsi', 'maxsi', 'minsi', 'andi', 'ori', 'xori']
COMMUTATIVE = ['addf', 'mulf', 'maximumf', 'minimumf', 'addi', 'muli', 'andi', 'ori', 'xori', 'maxsi', 'minsi']
KNOBS = {'num_stages': [1, 2, 3, 4, 8], 'occupancy': [1, 2, 4], 'num_ctas': [1, 2], 'warp_specialize': [0, 1],
         'persistent': [0, 1], 'split_k': [1, 2], 'pingpong': [0, 1]}


def sub_one(pattern, text, repl):
    """`text` with one random match of `pattern` replaced by repl(match)."""
    matches = list(re.finditer(pattern, text))
    if not matches:
        return text
    m = random.choice(matches)
    return text[:m.start()] + repl(m) + text[m.end():]


def mutate(t):
    op = random.randrange(11)
    if op == 0:  # commute a commutative op's operands
        ops = '|'.join(COMMUTATIVE)
        return sub_one(rf'arith\.({ops}) (%[\w#]+), (%[\w#]+)', t, lambda m: f'arith.{m[1]} {m[3]}, {m[2]}')
    if op == 1:  # a sibling op of the same family
        return sub_one(r'arith\.(\w+) ', t, lambda m: 'arith.' + (
            random.choice(FLOAT_OPS) if m[1] in FLOAT_OPS else random.choice(INT_OPS) if m[1] in INT_OPS else m[1]) + ' ')
    if op == 2:  # another SSA value in a use
        names = re.findall(r'(%[a-zA-Z_][\w]*)\s*=', t)
        if not names:
            return t
        return sub_one(r'(?<=[ ,(\[])%[a-zA-Z_]\w*(?=[ ,)\]:])', t, lambda m: random.choice(names))
    if op == 3:  # another constant
        return sub_one(r'arith\.constant (-?\d+) : (index|i32|i64)', t,
                       lambda m: f'arith.constant {random.choice([0, 1, -1, 2, 7, 64, 1 << 40, -(1 << 62)])} : {m[2]}')
    if op == 4:  # padding
        return sub_one(r'(padding = \w+|xf32>|xf16>|xbf16>)(?=>)', t, lambda m: (
            f', padding = {random.choice(["zero", "neg_inf", "pos_inf", "nan"])}' if not m[1].startswith('padding') else
            f'padding = {random.choice(["zero", "neg_inf", "pos_inf", "nan"])}'))
    if op == 5:  # reduce kind
        return sub_one(r'tile\.reduce (add|mul|max|min)', t, lambda m: 'tile.reduce ' + random.choice(['add', 'mul', 'max', 'min']))
    if op == 6:  # element type, everywhere
        a, b = random.sample(['f16', 'bf16', 'f32'], 2)
        return re.sub(rf'\b{a}\b', b, t)
    if op == 7:  # a tile extent, everywhere
        a = random.choice(['1024', '128', '64', '32', '16', '4'])
        b = random.choice(['2048', '256', '128', '64', '32', '16', '8', '2', '1'])
        return re.sub(rf'(?<=[<x]){a}(?=x)', b, t)
    if op == 8:  # a hint
        key = random.choice(list(KNOBS))
        hint = f'tile.hints = {{{key} = {random.choice(KNOBS[key])} : i64}}'
        return t if 'tile.hints' in t else t.replace('attributes {tile.kernel', 'attributes {' + hint + ', tile.kernel', 1)
    if op == 9:  # a yield's operands permuted or repeated
        def yields(m):
            ops = [o.strip() for o in m[1].split(',')]
            if random.random() < 0.5:
                random.shuffle(ops)
            else:
                i = random.randrange(len(ops))
                ops[i] = random.choice(ops)
            return 'scf.yield ' + ', '.join(ops) + ' :'
        return sub_one(r'scf\.yield ([^:\n]+) :', t, yields)
    # an index computation becomes a tile coordinate's neighbour
    return sub_one(r'(tile\.load %\w+\[)(%\w+)', t, lambda m: m[1] + random.choice(re.findall(r'(%[a-zA-Z_]\w*)\s*=', t) or [m[2]]))


# Rejections a pipeline makes of verified programs today that an open
# issue removes: counted and shown, not failed. Each names its issue.
KNOWN = [
    (re.compile(r'needs \d+ bytes of shared memory for its tiles'),
     'kernels with a tile.mma take the general GPU path, which keeps every tile in shared memory (issue: tensor cores for every tile.mma)'),
]

toolkit = os.environ.get('CUDA_HOME')
pipelines = [('tile-to-cpu', 'builtin.module(tile-to-cpu)')]
if toolkit and os.path.exists(os.path.join(toolkit, 'bin', 'ptxas')):
    pipelines.append(('tile-to-ptx', 'builtin.module(tile-to-ptx{chip=sm_90a})'))
else:
    print('fuzz-tile-opt: pipelines: CUDA_HOME has no ptxas; tile-to-ptx is not fuzzed', flush=True)


def run(text, *flags):
    try:
        p = subprocess.run([pipeline_opt, '-', *flags], input=text.encode('latin1', 'replace'),
                           capture_output=True, timeout=120)
        return p.returncode, p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return 'timeout', ''


def pipeline_case(n):
    rng = random.Random(seeds[0] * 1_000_003 + n)
    random.seed(rng.random())
    t = random.choice(programs)
    for _ in range(random.randint(1, 3)):
        t = mutate(t)
    code, err = run(t)
    if code != 0:
        return n, t, code, err, None
    results = []
    for name, pipeline in pipelines:
        c, e = run(t, f'--pass-pipeline={pipeline}', '-o', os.devnull)
        results.append((name, c, e))
    return n, t, 0, '', results


start, verified, findings, total, n = time.time(), 0, 0, 0, 0
known = {why: 0 for _, why in KNOWN}
with ThreadPoolExecutor(jobs) as pool:
    while time.time() - start < budget:
        batch = list(pool.map(pipeline_case, range(n, n + 4 * jobs)))
        n += len(batch)
        for _, text, code, err, results in batch:
            total += 1
            if code not in (0, 1):
                crashes += 1
                keep('crash', crashes, text, f'verifier: exit code {code}: {err[-400:]}')
                continue
            if results is None:
                continue
            verified += 1
            for name, c, e in results:
                limitation = next((why for pattern, why in KNOWN if c == 1 and pattern.search(e)), None)
                if limitation:
                    known[limitation] += 1
                    continue
                if c != 0:
                    kind = 'crash' if c not in (0, 1) else 'finding'
                    if kind == 'crash':
                        crashes += 1
                    else:
                        findings += 1
                    keep(kind, crashes if kind == 'crash' else findings, text,
                         f'verified, then {name} exit code {c}: {e.strip()[-600:]}')
print(f'fuzz-tile-opt: pipelines: {total} mutants in {time.time() - start:.0f} s, {verified} verified, '
      f'{findings} rejected by a pipeline, {crashes} crashes in all', flush=True)
for why, count in known.items():
    if count:
        print(f'fuzz-tile-opt: pipelines: {count} rejected as known: {why}', flush=True)
sys.exit(1 if crashes or findings else 0)
