"""Random f16 operands of an M x N x K GEMM for the device scripts that run
an example under ncu (profile-configs.sh, ncu-report.sh): DIR/a.npy (M x K),
DIR/b.npy (K x N), DIR/c.npy (M x N, zeros).
usage: python3 scripts/gemm-operands.py M N K DIR"""
import sys

import numpy as np

m, n, k = map(int, sys.argv[1:4])
work = sys.argv[4]
rng = np.random.default_rng(0)
np.save(f'{work}/a.npy', rng.uniform(-1, 1, (m, k)).astype(np.float16))
np.save(f'{work}/b.npy', rng.uniform(-1, 1, (k, n)).astype(np.float16))
np.save(f'{work}/c.npy', np.zeros((m, n), np.float16))
