#!/usr/bin/env python3
"""Rough speed probe while #5's same-process cuBLAS benchmark is built:
times `tile-run --bench` on an f16 matmul and, in a separate process,
torch.matmul (cuBLAS) on the same shape. The ratio is indicative only.

usage: matmul_speed.py TILE_RUN M N K [tile-run flags...]"""
import os, subprocess, sys, tempfile
import numpy as np

tile_run, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
flags = sys.argv[5:]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = tempfile.mkdtemp()
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (m, k)).astype(np.float16); b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
for name, x in [('a', a), ('b', b), ('c', np.zeros((m, n), np.float32))]:
    np.save(f'{work}/{name}.npy', x)
grid = (m + 127) // 128 * ((n + 127) // 128)
p = subprocess.run([tile_run, f'{root}/examples/matmul.mlir', '--target', 'cuda', '--grid', str(grid), '--bench', '50',
                    *flags, f'{work}/a.npy', f'{work}/b.npy', f'{work}/c.npy'], capture_output=True, text=True)
print(p.stdout.strip(), p.stderr.strip())
try:
    import torch
    ta, tb = torch.tensor(a, device='cuda'), torch.tensor(b, device='cuda')
    for _ in range(5):
        torch.matmul(ta, tb)
    ts = []
    for _ in range(50):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.matmul(ta, tb); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    ms = sorted(ts)[len(ts) // 2]
    print(f'torch.matmul f16 {m}x{n}x{k}: {ms:.3f} ms, {2 * m * n * k / ms / 1e9:.0f} TFLOP/s')
except ImportError:
    print('no torch')
