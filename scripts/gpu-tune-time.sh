#!/usr/bin/env bash
# How long tile-run takes to tune a kernel with a large tuning space (the
# 16-bit-output examples: 288 configurations) and where the time goes
# (tile-run's line "N configurations compiled in A s, assembled with ptxas
# (VERSION) in B s; D distinct kernels run and timed in C s", "JIT-loaded
# in B s" where the driver compiled the PTX), each example tuned twice from
# an empty tuning cache: with the driver's JIT (TILE_PTXAS=/nonexistent),
# then with the toolkit's ptxas processes (the default). The driver's JIT
# cache is off (CUDA_CACHE_DISABLE=1), so that every module is compiled as
# on a first run. Correctness of the tuned kernels: gpu_check.py.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/gpu-tune-time.sh [EXAMPLE...]   (f16 examples; device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
export CUDA_CACHE_DISABLE=1
work=$(mktemp -d)
status=0
if [ -x "$CUDA_HOME/bin/ptxas" ]; then
  echo "ptxas: $CUDA_HOME/bin/ptxas ($("$CUDA_HOME/bin/ptxas" --version | grep -m 1 release))"
else
  echo "no $CUDA_HOME/bin/ptxas: the default run looks on PATH, else JIT-loads"
fi
for example in "${@:-matmul_f16_f16}"; do
  python3 - "$work" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
d = sys.argv[1]
np.save(f'{d}/a.npy', rng.uniform(-1, 1, (300, 100)).astype(np.float16))
np.save(f'{d}/b.npy', rng.uniform(-1, 1, (100, 200)).astype(np.float16))
np.save(f'{d}/c.npy', np.full((300, 200), np.nan, np.float16))
PY
  for route in jit ptxas; do
    # A cache of its own, so that each run tunes from scratch.
    export TILE_TUNE_CACHE=$work/tune-$example-$route
    if [ "$route" = jit ]; then export TILE_PTXAS=/nonexistent; else unset TILE_PTXAS; fi
    SECONDS=0
    /tmp/tile-run "examples/$example.mlir" --grid tiles:2 "$work/a.npy" "$work/b.npy" "$work/c.npy" 2>&1 \
      | grep -E "tuning|tuned|error|tile-run: @" || status=1
    echo "$example 300x200x100 ($route): tuned in $SECONDS s"
  done
done
exit $status
