#!/usr/bin/env python3
"""How much one case's timing moves from round to round in one run (the
suite's method, bench-suite.py): ROUNDS rounds of `tile-run --bench N` on
bench/gemm/PROGRAM.mlir, each followed by N timed launches of torch's
matmul of the same arrays (after 3 warm-up ones), as bench-suite.py times
a case once. Prints each round's two medians and their ratio, then the
spread of each side.

usage: timing-noise.py TILE_RUN PROGRAM M N K [ROUNDS [N]]   (device tool; bf16 operands)
GRID=X launches the program on X blocks (the suite's 132 for bench/gemm/persistent.mlir)
instead of one block per 128x128 tile."""
import os, re, subprocess, sys, tempfile

import numpy as np
import torch

from peer_timing import events_ms

tile_run, program, m, n, k = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 6
runs = int(sys.argv[7]) if len(sys.argv) > 7 else 10
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp(dir='/dev/shm' if os.path.isdir('/dev/shm') else None)
source = os.path.join(work, f'{program}.mlir')
open(source, 'w').write(open(os.path.join(root, 'bench/gemm', program + '.mlir')).read().replace('f16', 'bf16'))
gen = torch.Generator(device='cuda').manual_seed(0)
a = torch.rand(m, k, device='cuda', generator=gen, dtype=torch.float32).mul(2).sub(1).to(torch.bfloat16)
b = torch.rand(k, n, device='cuda', generator=gen, dtype=torch.float32).mul(2).sub(1).to(torch.bfloat16)
paths = []
for i, t in enumerate([a, b, torch.full((m, n), float('nan'), device='cuda', dtype=torch.bfloat16)]):
    p = os.path.join(work, f'arg{i}.npy')
    np.save(p, t.view(torch.int16).cpu().numpy().view(np.uint16))  # bf16 as raw bits, as bench-suite.py
    paths.append(p)


flop = 2 * m * n * k
tiles = int(os.environ.get('GRID', -(-m // 128) * -(-n // 128)))
ours, theirs = [], []
for r in range(rounds):
    p = subprocess.run([tile_run, source, '--target', 'cuda', '--grid', str(tiles), '--bench', str(runs), *paths],
                       capture_output=True, text=True)
    found = re.search(r'median of \d+ launches ([\d.]+) ms', p.stdout + p.stderr)
    if not found:
        sys.exit(f'tile-run: {p.stdout[-500:]} {p.stderr[-500:]}')
    ms = float(found[1])
    peer = events_ms(lambda: a @ b, runs)
    ours.append(flop / ms / 1e9)
    theirs.append(flop / peer / 1e9)
    print(f'round {r}: tile {ours[-1]:.0f} TFLOP/s, cuBLAS {theirs[-1]:.0f}, ratio {peer / ms:.3f}', flush=True)
for side, rates in [('tile', ours), ('cuBLAS', theirs)]:
    print(f'{side}: median {np.median(rates):.0f}, min {min(rates):.0f}, max {max(rates):.0f} TFLOP/s')
print(f'ratio of medians {np.median(ours) / np.median(theirs):.3f}')
