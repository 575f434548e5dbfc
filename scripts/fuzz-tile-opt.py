#!/usr/bin/env python3
"""Crash check for tile-opt: feeds it truncated and mutated versions of every
.mlir file in examples/ and lit/, plus random bytes, and fails if any run ends
other than with exit code 0 (accepted) or 1 (a diagnostic).

usage: fuzz-tile-opt.py TILE_OPT [SEED...]
The files are the checkout's lit tests and examples.
Crashing inputs are kept in $TMPDIR/tile-opt-crash-N.mlir."""
import glob, os, random, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
opt = sys.argv[1]
seeds = [int(s) for s in sys.argv[2:]] or [0]
files = sorted(glob.glob(os.path.join(root, 'examples', '**', '*.mlir'), recursive=True)
               + glob.glob(os.path.join(root, 'lit', '**', '*.mlir'), recursive=True))
texts = [open(f).read() for f in files]
cases = []
for seed in seeds:
  random.seed(seed)
  for t in texts:
      # truncations
      for _ in range(25):
          cases.append(t[:random.randrange(len(t))])
      # token mutations
      toks = t.split(' ')
      for _ in range(40):
          tt = list(toks)
          for _ in range(random.randint(1, 3)):
              i = random.randrange(len(tt))
              op = random.random()
              if op < 0.3: tt[i] = random.choice(toks)
              elif op < 0.5: del tt[i]
              elif op < 0.7: tt[i] = tt[i].replace('128', random.choice(['0','3','-1','1048576','99999999999999999999','?']))
              elif op < 0.85: tt[i] = tt[i].replace('f16', random.choice(['f64','i1','f8E4M3FN','index','bf16','complex<f32>','vector<4xf32>']))
              else: tt.insert(i, random.choice(['%x', 'tile.load', '[', ']', '<', '>', ',', 'dim', 'padding', '=', '!tile.partition_view<', 'tensor<4x?xf32>', 'memref<*xf32>']))
          cases.append(' '.join(tt))
  for _ in range(50):
      cases.append(bytes(random.getrandbits(8) for _ in range(random.randint(0, 400))).decode('latin1'))
bad = 0
for i, c in enumerate(cases):
    # Inputs also run the tile passes (which see only verified IR): one in
    # four the first stage, one in four the whole CPU pipeline.
    passes = [[], ['--tile-simplify', '--convert-tile-to-linalg'], [], ['--pass-pipeline=builtin.module(tile-to-cpu)']][i % 4]
    p = subprocess.run([opt, '-', '--split-input-file', *passes], input=c.encode('latin1', 'replace'), capture_output=True, timeout=60)
    if p.returncode not in (0, 1):
        bad += 1
        path = os.path.join(tempfile.gettempdir(), f'tile-opt-crash-{bad}.mlir')
        open(path, 'wb').write(c.encode('latin1', 'replace'))
        print(f'CRASH: exit code {p.returncode} on {path}:', p.stderr.decode(errors='replace')[-400:])
print(f'fuzz-tile-opt: {len(cases)} inputs, {bad} crashes')
sys.exit(1 if bad else 0)
